import type { AssistantMessage, Conversation, Tool } from '../../lib/conversation/types';
import { NO_TOKENS } from '../../lib/dialects/usage';
import { geminiDialect } from '../../lib/dialects/gemini';
import { geminiFinish } from '../../lib/dialects/gemini/finish';
import { GEMINI_BASE_URL } from '../../lib/dialects/gemini/http';
import { SKIP_SIGNATURE } from '../../lib/dialects/gemini/messages';
import { geminiToolNames } from '../../lib/dialects/gemini/names';
import type { GeminiPart, GeminiResponse } from '../../lib/dialects/gemini/wire';
import type { EndpointConfig, ModelSettings } from '../../lib/dialects/types';
import { echoWithoutSchema, weather } from '../support/dialectTools';
import { geminiChunk, geminiResponse } from '../support/vendorBodies';

// The vendor bodies here and in ../support/vendorBodies.ts are written by hand from the
// generateContent reference and @google/genai's types, in the shape of the captures in vercel/ai's
// packages/google/src/__fixtures__; none is a capture.

const echo = echoWithoutSchema;

const settings: ModelSettings = { model: 'gemini-2.5-flash', toolChoice: 'auto', stream: false };
const build = (
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	overrides: Partial<ModelSettings> = {},
) => geminiDialect.buildRequest(conversation, { ...settings, ...overrides });

/** The assistant turn a Gemini answer with these parts leaves in the conversation. */
function geminiTurn(parts: GeminiPart[]): AssistantMessage {
	const body = {
		candidates: [{ content: { role: 'model' as const, parts }, finishReason: 'STOP' }],
	};
	return geminiDialect.parseResponse(body, geminiToolNames(['weather.get', 'echo'])).message;
}

describe('buildRequest', () => {
	const ask = { role: 'user' as const, content: 'Weather in Oslo?' };

	it('ignores parallelToolCalls, which Gemini has no switch for', () => {
		const conversation = { tools: [weather], messages: [ask] };
		const plain = build(conversation).body;
		expect(build(conversation, { parallelToolCalls: false }).body).toEqual(plain);
		expect(build(conversation, { parallelToolCalls: true }).body).toEqual(plain);
	});

	it('puts temperature and the token limit in generationConfig, each only when set', () => {
		expect(build({ tools: [], messages: [ask] }, { temperature: 0 }).body.generationConfig).toEqual(
			{ temperature: 0 },
		);
		expect(build({ tools: [], messages: [ask] }, { maxTokens: 64 }).body.generationConfig).toEqual({
			maxOutputTokens: 64,
		});
		expect(build({ tools: [], messages: [ask] }).body).not.toHaveProperty('generationConfig');
	});

	it('keeps dotted MCP names, repairs illegal ones, shortens names past 64 characters, and maps them back', () => {
		const long = `t${'x'.repeat(140)}`;
		const tools = ['weather.get', 'ns:tool-1', '1st tool', 'a/b', long].map((name): Tool => ({
			name,
			inputSchema: {},
		}));
		const { body, names } = build({ tools, messages: [ask] });
		const declared = body.tools![0].functionDeclarations.map((declaration) => declaration.name);
		expect(declared.slice(0, 4)).toEqual(['weather.get', 'ns:tool-1', '_1st_tool', 'a_b']);
		expect(declared[4]).toHaveLength(64);
		declared.forEach((vendorName, i) => expect(names.fromVendor(vendorName)).toBe(tools[i].name));
	});

	it('puts every system message in systemInstruction, in order', () => {
		const { body } = build({
			tools: [],
			messages: [{ role: 'system', content: 'A.' }, ask, { role: 'system', content: 'B.' }],
		});
		expect(body.systemInstruction).toEqual({ parts: [{ text: 'A.' }, { text: 'B.' }] });
		expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }]);
	});

	it('leaves out an assistant turn with nothing in it, which Gemini would refuse', () => {
		const { body } = build({
			tools: [],
			messages: [ask, { role: 'assistant', content: null }, { role: 'assistant', content: '' }],
		});
		expect(body.contents).toHaveLength(1);
	});

	describe('continuing a Gemini turn', () => {
		const parts: GeminiPart[] = [
			{ text: 'Thinking about it.', thought: true },
			{
				functionCall: { name: 'weather.get', args: { city: 'Oslo' }, id: 'fc_1' },
				thoughtSignature: 'c2lnLTE=',
			},
			{ functionCall: { name: 'echo', args: {} } },
		];
		const turn = geminiTurn(parts);
		const results = [
			{
				role: 'tool' as const,
				tool_call_id: 'fc_1',
				content: '{"temp":3}',
				structuredContent: { temp: 3 },
			},
			{ role: 'tool' as const, tool_call_id: 'call_1', content: 'hi' },
		];

		it('echoes the parts verbatim and answers each call by name, with the id only where Gemini gave one', () => {
			expect(turn.tool_calls?.map((call) => call.id)).toEqual(['fc_1', 'call_1']);
			const { body } = build(
				{ tools: [weather, echo], messages: [ask, turn, ...results] },
				{ model: 'gemini-3-pro-preview' },
			);
			expect(body.contents).toEqual([
				{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
				{ role: 'model', parts },
				{
					role: 'user',
					parts: [
						{
							functionResponse: {
								name: 'weather.get',
								id: 'fc_1',
								response: { output: { temp: 3 } },
							},
						},
						{ functionResponse: { name: 'echo', response: { output: 'hi' } } },
					],
				},
			]);
		});

		it('gives an unsigned Gemini turn (a model that did not sign) the stand-in when a signing model continues it', () => {
			const unsigned = geminiTurn([
				{ text: 'Sure.' },
				...parts.slice(2),
				{ functionCall: { name: 'weather.get', args: {} } },
			]);
			const { body } = build(
				{ tools: [weather, echo], messages: [unsigned] },
				{ model: 'gemini-3-flash-preview' },
			);
			expect(body.contents[0].parts).toEqual([
				{ text: 'Sure.' },
				{ functionCall: { name: 'echo', args: {} }, thoughtSignature: SKIP_SIGNATURE },
				{ functionCall: { name: 'weather.get', args: {} } },
			]);
			// The conversation keeps what Gemini sent.
			expect(unsigned.vendorTurn?.content[1]).toEqual({ functionCall: { name: 'echo', args: {} } });
		});

		it('rebuilds a turn edited between nodes: a call taken out, or its text changed', () => {
			const oneCall = { ...turn, tool_calls: turn.tool_calls!.slice(0, 1) };
			expect(build({ tools: [weather], messages: [oneCall] }).body.contents[0].parts).toEqual([
				{ functionCall: { name: 'weather.get', args: { city: 'Oslo' } } },
			]);
			const retold = { ...turn, content: 'Checking two things.' };
			expect(build({ tools: [weather, echo], messages: [retold] }).body.contents[0].parts).toEqual([
				{ text: 'Checking two things.' },
				{ functionCall: { name: 'weather.get', args: { city: 'Oslo' } } },
				{ functionCall: { name: 'echo', args: {} } },
			]);
		});

		it('rebuilds a turn whose vendorTurn is empty', () => {
			const vendorTurn = { dialect: 'gemini', content: [] };
			const { body } = build({ tools: [weather], messages: [{ ...turn, vendorTurn }] });
			expect(body.contents[0].parts).toEqual([
				{ functionCall: { name: 'weather.get', args: { city: 'Oslo' } } },
				{ functionCall: { name: 'echo', args: {} } },
			]);
		});

		it('starts a new user turn for results that an assistant turn separates', () => {
			const { body } = build({
				tools: [weather, echo],
				messages: [turn, results[0], { role: 'assistant', content: 'Half done.' }, results[1]],
			});
			expect(body.contents.map((content) => [content.role, content.parts.length])).toEqual([
				['model', 3],
				['user', 1],
				['model', 1],
				['user', 1],
			]);
		});
	});

	describe('continuing a turn another dialect wrote', () => {
		const foreign: AssistantMessage = {
			role: 'assistant',
			content: null,
			tool_calls: [
				{
					id: 'call_abc',
					type: 'function',
					function: { name: 'weather.get', arguments: '{"city":"Oslo"}' },
				},
				{ id: 'call_def', type: 'function', function: { name: 'echo', arguments: '[1]' } },
			],
		};
		const results = [
			{ role: 'tool' as const, tool_call_id: 'call_abc', content: 'cold' },
			{
				role: 'tool' as const,
				tool_call_id: 'call_def',
				content: 'Error: must be an object',
				isError: true,
			},
		];

		it.each([
			['gemini-3-flash-preview', true],
			['models/gemini-3-pro-preview', true],
			['gemini-10-ultra', true],
			['gemini-2.5-flash', false],
			['gemini-flash-latest', false],
		])('gives the first call of %s the stand-in signature: %s', (model, signed) => {
			const { body } = build(
				{ tools: [weather, echo], messages: [foreign, ...results] },
				{ model },
			);
			expect(body.contents[0].parts).toEqual([
				{
					functionCall: { name: 'weather.get', args: { city: 'Oslo' } },
					...(signed && { thoughtSignature: SKIP_SIGNATURE }),
				},
				{ functionCall: { name: 'echo', args: {} } },
			]);
			// Another vendor's ids mean nothing to Gemini: none is sent.
			expect(body.contents[1].parts).toEqual([
				{ functionResponse: { name: 'weather.get', response: { output: 'cold' } } },
				{ functionResponse: { name: 'echo', response: { error: 'Error: must be an object' } } },
			]);
		});

		it('names a result whose call is not in the history by the tool name it carries', () => {
			const { body } = build({
				tools: [],
				messages: [{ role: 'tool', tool_call_id: 'x', content: 'late', name: 'old/tool' }],
			});
			expect(body.contents).toEqual([
				{
					role: 'user',
					parts: [{ functionResponse: { name: 'old_tool', response: { output: 'late' } } }],
				},
			]);
		});
	});
});

describe('buildRequest: the order of turns Gemini accepts', () => {
	const search = { ...echo, name: 'search' };
	const callTurn: AssistantMessage = {
		role: 'assistant',
		content: null,
		tool_calls: [
			{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } },
			{ id: 'c2', type: 'function', function: { name: 'search', arguments: '{}' } },
		],
	};
	const result = (id: string) => ({ role: 'tool' as const, tool_call_id: id, content: id });
	/** Each turn as its role and the kinds of its parts. */
	const shapeOf = (messages: Conversation['messages']) =>
		(
			build({ tools: [search], messages }).body.contents as Array<{
				role: string;
				parts: GeminiPart[];
			}>
		).map(
			({ role, parts }) =>
				`${role}: ${parts.map((part) => (part.functionCall ? 'call' : part.functionResponse ? 'result' : part.text)).join(', ')}`,
		);

	it('puts the results of a turn of calls right after it, and user text written among them after that', () => {
		const shape = ['user: find it', 'model: call, call', 'user: result, result', 'user: be quick'];
		expect(
			shapeOf([
				{ role: 'user', content: 'find it' },
				callTurn,
				{ role: 'user', content: 'be quick' },
				result('c1'),
				result('c2'),
			]),
		).toEqual(shape);
		expect(
			shapeOf([
				{ role: 'user', content: 'find it' },
				callTurn,
				result('c1'),
				{ role: 'user', content: 'be quick' },
				result('c2'),
			]),
		).toEqual(shape);
	});

	it('merges assistant turns one after another, so a turn of calls follows a user turn', () => {
		expect(
			shapeOf([
				{ role: 'user', content: 'find it' },
				{ role: 'assistant', content: 'Let me look.' },
				callTurn,
				result('c1'),
				result('c2'),
			]),
		).toEqual(['user: find it', 'model: Let me look., call, call', 'user: result, result']);
	});

	it('leaves out blank system and user text, which Gemini refuses as an empty text part', () => {
		const { body } = build({
			tools: [],
			messages: [
				{ role: 'system', content: '' },
				{ role: 'user', content: 'hi' },
				{ role: 'assistant', content: 'hello' },
				{ role: 'user', content: ' ' },
			],
		});
		expect(body.systemInstruction).toBeUndefined();
		expect(body.contents).toEqual([
			{ role: 'user', parts: [{ text: 'hi' }] },
			{ role: 'model', parts: [{ text: 'hello' }] },
		]);
	});
});

describe('parseResponse', () => {
	const names = geminiToolNames(['weather.get', 'a/b']);

	it('joins text parts, leaves thoughts out of the answer, and keeps all parts as vendorTurn', () => {
		const parts = [
			{ text: 'Plan.', thought: true },
			{ text: 'It is ' },
			{ text: '3 °C.', thoughtSignature: 'c2ln' },
		];
		expect(geminiDialect.parseResponse(geminiResponse(parts), names)).toEqual({
			message: {
				role: 'assistant',
				content: 'It is 3 °C.',
				vendorTurn: { dialect: 'gemini', content: parts },
			},
			toolCalls: [],
			finish: 'stop',
			finishReason: 'STOP',
			usage: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
			tokens: { input: 10, output: 5, cacheRead: 0, cacheWrite: null, reasoning: 0 },
			// The thoughts go to the trace, never into the answer.
			reasoning: 'Plan.',
		});
	});

	it.each([
		['SAFETY', 'content_filter'],
		['UNEXPECTED_TOOL_CALL', 'malformed_tool_call'],
		['TOO_MANY_TOOL_CALLS', 'malformed_tool_call'],
		['LANGUAGE', 'other'],
	])('reads finishReason %s without content as %s', (finishReason, finish) => {
		const body = { candidates: [{ finishReason, index: 0 }] } as GeminiResponse;
		expect(geminiDialect.parseResponse(body, names)).toEqual({
			message: { role: 'assistant', content: null },
			toolCalls: [],
			finish,
			finishReason,
			tokens: NO_TOKENS,
		});
	});

	it('surfaces finishMessage only when the turn has neither text nor calls', () => {
		const withText = geminiResponse([{ text: 'Partial' }], {
			finishReason: 'UNEXPECTED_TOOL_CALL',
			finishMessage: 'Unexpected tool call.',
		});
		expect(geminiDialect.parseResponse(withText, names).message.content).toBe('Partial');
		const withCall = geminiResponse([{ functionCall: { name: 'weather.get', args: {} } }], {
			finishMessage: 'Model generated function call(s).',
		});
		expect(geminiDialect.parseResponse(withCall, names).message.content).toBeNull();
	});

	it('reads a blocked prompt with the words Gemini gave', () => {
		const body = {
			promptFeedback: { blockReason: 'OTHER', blockReasonMessage: 'Blocked by policy.' },
		};
		expect(geminiDialect.parseResponse(body, names)).toEqual({
			message: { role: 'assistant', content: 'Blocked by policy.' },
			toolCalls: [],
			finish: 'content_filter',
			finishReason: 'OTHER',
			tokens: NO_TOKENS,
		});
	});

	it.each<[string, unknown, string]>([
		[
			'a Gemini error body',
			{
				error: {
					code: 400,
					message: 'API key not valid. Please pass a valid API key.',
					status: 'INVALID_ARGUMENT',
				},
			},
			'The model API returned an error: INVALID_ARGUMENT: API key not valid. Please pass a valid API key.',
		],
	])('throws a clear error for %s', (_label, body, message) => {
		expect(() => geminiDialect.parseResponse(body as GeminiResponse, names)).toThrow(
			new Error(message),
		);
	});
});

describe('geminiFinish', () => {
	it.each([
		['STOP', 'stop'],
		['MAX_TOKENS', 'length'],
		['RECITATION', 'content_filter'],
		['BLOCKLIST', 'content_filter'],
		['PROHIBITED_CONTENT', 'content_filter'],
		['SPII', 'content_filter'],
		['IMAGE_SAFETY', 'content_filter'],
		['MALFORMED_FUNCTION_CALL', 'malformed_tool_call'],
		['FINISH_REASON_UNSPECIFIED', 'other'],
	])('maps %s to %s', (reason, finish) => {
		expect(geminiFinish(reason, false)).toBe(finish);
	});

	it('lets the calls decide, and reads no reason as other', () => {
		expect(geminiFinish('STOP', true)).toBe('tool_calls');
		expect(geminiFinish(null, false)).toBe('other');
	});
});

describe('createStreamAssembler', () => {
	const names = geminiToolNames(['weather.get']);
	function assemble(chunks: unknown[]) {
		const assembler = geminiDialect.createStreamAssembler();
		for (const c of chunks) assembler.push(c as GeminiResponse);
		return assembler;
	}

	it('is not finished when the stream is cut before a finish reason, and reports no reason', () => {
		const assembler = assemble([
			geminiChunk([{ text: 'It is' }]),
			geminiChunk([{ functionCall: { name: 'weather.get', args: {} } }]),
		]);
		expect(assembler.finished()).toBe(false);
		const turn = geminiDialect.parseResponse(assembler.result(), names);
		expect(turn).toMatchObject({ finishReason: null, finish: 'tool_calls' });
		expect(turn.message.content).toBe('It is');
	});

	it('is finished by a blocked prompt, which has no candidate', () => {
		const assembler = assemble([
			{ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3 } },
		]);
		expect(assembler.finished()).toBe(true);
		expect(geminiDialect.parseResponse(assembler.result(), names)).toMatchObject({
			finish: 'content_filter',
			finishReason: 'SAFETY',
		});
	});

	it('joins text of the same kind only, and lets a signature close the part it lands on', () => {
		const body = assemble([
			geminiChunk([{ text: 'Let me ', thought: true }]),
			geminiChunk([
				{ text: 'think.', thought: true },
				{ text: 'Answer', thoughtSignature: 'c2ln' },
			]),
			geminiChunk([{ text: ' follows' }, { text: '.' }]),
			geminiChunk([{ text: '', thoughtSignature: 'c2lnMg==' }], { finishReason: 'STOP' }),
		]).result();
		expect(body.candidates?.[0].content?.parts).toEqual([
			{ text: 'Let me think.', thought: true },
			{ text: 'Answer', thoughtSignature: 'c2ln' },
			{ text: ' follows.', thoughtSignature: 'c2lnMg==' },
		]);
	});

	it('keeps an empty part that carries a signature after a call, and drops one that carries nothing', () => {
		const call = { functionCall: { name: 'weather.get', args: { city: 'Oslo' } } };
		const body = assemble([
			geminiChunk([call]),
			geminiChunk([{ text: '' }]),
			geminiChunk([{ text: '', thoughtSignature: 'c2ln' }], { finishReason: 'STOP' }),
		]).result();
		expect(body.candidates?.[0].content?.parts).toEqual([
			call,
			{ text: '', thoughtSignature: 'c2ln' },
		]);
	});

	it('keeps the last usage and ignores other candidates', () => {
		const assembler = assemble([
			{
				candidates: [
					{ index: 1, content: { parts: [{ text: 'B' }] } },
					{ index: 0, content: { parts: [{ text: 'A' }] } },
				],
				usageMetadata: { totalTokenCount: 1 },
			},
			{
				...geminiChunk([{ text: 'a' }], { finishReason: 'STOP' }),
				usageMetadata: { totalTokenCount: 2 },
			},
		]);
		expect(geminiDialect.parseResponse(assembler.result(), names)).toMatchObject({
			message: { content: 'Aa' },
			usage: { totalTokenCount: 2 },
		});
	});
});

describe('http', () => {
	const endpoint: EndpointConfig = {
		baseUrl: GEMINI_BASE_URL,
		apiKey: 'k-1',
		headers: { 'x-team': 'a' },
	};
	const { http } = geminiDialect;

	it('puts the model and the stream choice in the URL, with or without "models/"', () => {
		expect(http.url(endpoint, 'gemini-2.5-flash', false)).toBe(
			'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
		);
		expect(http.url(endpoint, 'models/gemini-2.5-flash', true)).toBe(
			'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
		);
		expect(http.url(endpoint, 'tunedModels/mine-1', false)).toBe(
			'https://generativelanguage.googleapis.com/v1beta/tunedModels/mine-1:generateContent',
		);
		expect(http.streamFraming).toBe('sse');
	});

	it('sends the key in x-goog-api-key beside the extra headers, and no key header without a key', () => {
		expect(http.headers(endpoint)).toEqual({ 'x-team': 'a', 'x-goog-api-key': 'k-1' });
		expect(http.headers({ ...endpoint, apiKey: undefined })).toEqual({ 'x-team': 'a' });
	});

	it('reads the status and the message of error bodies', () => {
		expect(
			http.errorMessage({
				error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' },
			}),
		).toBe('RESOURCE_EXHAUSTED: Quota exceeded.');
	});

	it('lists the models that can generateContent, without "models/"', () => {
		expect(http.modelsUrl(endpoint)).toBe(
			'https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000',
		);
		const body = {
			models: [
				{
					name: 'models/gemini-2.5-flash',
					supportedGenerationMethods: ['generateContent', 'countTokens'],
				},
				{ name: 'models/text-embedding-004', supportedGenerationMethods: ['embedContent'] },
				{ name: 'models/gemini-3-pro-preview' },
				{ displayName: 'no name' },
				'garbage',
			],
			nextPageToken: 'next',
		};
		expect(http.parseModels(body)).toEqual(['gemini-2.5-flash', 'gemini-3-pro-preview']);
	});
});

describe('geminiDialect round trip', () => {
	it('answers the calls of a parsed turn in the next request, signatures and ids intact', () => {
		const { names } = build({ tools: [weather], messages: [] });
		const parts = [
			{
				functionCall: { name: 'weather.get', args: { city: 'Oslo' }, id: 'fc_9' },
				thoughtSignature: 'c2ln',
			},
		];
		const turn = geminiDialect.parseResponse(geminiResponse(parts), names);
		const next = build({
			tools: [weather],
			messages: [
				turn.message,
				{ role: 'tool', tool_call_id: turn.toolCalls[0].id, content: 'cold' },
			],
		});
		expect(next.body.contents).toEqual([
			{ role: 'model', parts },
			{
				role: 'user',
				parts: [
					{ functionResponse: { name: 'weather.get', id: 'fc_9', response: { output: 'cold' } } },
				],
			},
		]);
	});
});
