import type { Conversation, Message } from '../../lib/conversation/types';
import { NO_TOKENS } from '../../lib/dialects/usage';
import { ollamaDialect } from '../../lib/dialects/ollama';
import { OLLAMA_BASE_URL } from '../../lib/dialects/ollama/http';
import { ollamaToolNames } from '../../lib/dialects/ollama/names';
import type { OllamaChatResponse } from '../../lib/dialects/ollama/wire';
import { UnsupportedSettingError, type ModelSettings } from '../../lib/dialects/types';
import { echoText, weather } from '../support/dialectTools';
import { ollamaResponse } from '../support/vendorBodies';

// The vendor bodies here and in ../support/vendorBodies.ts are written by hand in the shape of
// Ollama's Go types (api/types.go) and the examples of its API reference (docs/api.md); none is a
// capture.

const echo = echoText;

const settings: ModelSettings = { model: 'qwen3:8b', toolChoice: 'auto', stream: false };
const user: Message = { role: 'user', content: 'Weather in Oslo?' };

function build(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	overrides: Partial<ModelSettings> = {},
) {
	return ollamaDialect.buildRequest(conversation, { ...settings, ...overrides });
}

describe('buildRequest', () => {
	it('offers the tools for "auto" and leaves them out for "none"', () => {
		expect(build({ tools: [weather], messages: [user] }).body.tools).toHaveLength(1);
		expect(build({ tools: [weather], messages: [user] }, { toolChoice: 'none' }).body).toEqual({
			model: 'qwen3:8b',
			messages: [user],
			stream: false,
		});
	});

	it.each<[string, ModelSettings['toolChoice'], string]>([
		['required', 'required', 'a tool call ("required")'],
		['a named tool', { name: 'weather.get' }, 'the tool "weather.get"'],
	])('refuses %s, which Ollama cannot force', (_label, toolChoice, asked) => {
		const attempt = () => build({ tools: [weather], messages: [user] }, { toolChoice });
		expect(attempt).toThrow(UnsupportedSettingError);
		expect(attempt).toThrow(
			`Ollama's /api/chat has no tool choice: it cannot be made to call ${asked}. Set Tool Choice to "auto" (the model decides) or "none".`,
		);
	});

	it('always sends stream, because Ollama streams unless told not to', () => {
		expect(build({ tools: [], messages: [] }).body.stream).toBe(false);
		expect(build({ tools: [], messages: [] }, { stream: true }).body.stream).toBe(true);
	});

	it('ignores parallelToolCalls, which Ollama has no switch for', () => {
		const plain = build({ tools: [weather], messages: [user] });
		expect(
			build({ tools: [weather], messages: [user] }, { parallelToolCalls: false }).body,
		).toEqual(plain.body);
	});

	it('puts temperature and the token limit in options, and sends no options without them', () => {
		expect(build({ tools: [], messages: [] }, { maxTokens: 64 }).body.options).toEqual({
			num_predict: 64,
		});
		expect(build({ tools: [], messages: [] }, { temperature: 0 }).body.options).toEqual({
			temperature: 0,
		});
		expect(build({ tools: [], messages: [] }).body).not.toHaveProperty('options');
	});
});

describe('tool names', () => {
	it('maps dotted MCP names to legal names and back', () => {
		const names = ollamaToolNames(['weather.get', 'fs.read file', 'echo']);
		expect(names.toVendor('weather.get')).toBe('weather_get');
		expect(names.toVendor('fs.read file')).toBe('fs_read_file');
		expect(names.toVendor('echo')).toBe('echo');
		expect(names.fromVendor('weather_get')).toBe('weather.get');
		expect(names.fromVendor('fs_read_file')).toBe('fs.read file');
		expect(names.fromVendor('unknown_tool')).toBe('unknown_tool');
	});

	it('keeps an MCP tool apart from the gpt-oss built-in Ollama keeps under the same name', () => {
		expect(ollamaToolNames(['browser.search']).toVendor('browser.search')).toBe('browser_search');
	});
});

describe('tool schemas', () => {
	const schemaOf = (inputSchema: Record<string, unknown>) =>
		build({ tools: [{ name: 't', inputSchema }], messages: [] }).body.tools?.[0].function
			.parameters;

	it('sends what Ollama reads, and tells in the description the keywords it would drop', () => {
		const schema = {
			type: 'object',
			properties: {
				when: {
					type: ['string', 'null'],
					format: 'date-time',
					anyOf: [{ type: 'string', pattern: '^2' }],
					title: 'When',
				},
				list: { type: 'array', items: { type: 'string', format: 'email' }, maxItems: 3 },
			},
			required: ['when'],
			additionalProperties: false,
			$defs: { x: { type: 'number' } },
		};
		expect(schemaOf(schema)).toEqual({
			type: 'object',
			properties: {
				when: {
					type: ['string', 'null'],
					anyOf: [{ type: 'string', description: 'JSON Schema: {"pattern":"^2"}' }],
					description: 'JSON Schema: {"format":"date-time"}',
				},
				// items reach the model whole.
				list: {
					type: 'array',
					items: { type: 'string', format: 'email' },
					description: 'JSON Schema: {"maxItems":3}',
				},
			},
			required: ['when'],
		});
	});

	it('inlines references, turns const into an enum and oneOf into anyOf, and closes an object without properties', () => {
		const schema = {
			type: 'object',
			$defs: { Mode: { oneOf: [{ const: 'fast' }, { const: 'slow' }], description: 'Mode' } },
			properties: {
				mode: { $ref: '#/$defs/Mode' },
				nothing: { type: 'object', additionalProperties: false },
			},
		};
		expect(schemaOf(schema)).toEqual({
			type: 'object',
			properties: {
				mode: {
					anyOf: [{ enum: ['fast'] }, { enum: ['slow'] }],
					description: 'Mode\nJSON Schema: {"oneOf":"exactly one of the anyOf schemas"}',
				},
				nothing: { type: 'object', properties: {} },
			},
		});
	});

	it("tells what the root cannot say in the function's description, as Ollama reads none at the root", () => {
		const tool = build({
			tools: [
				{
					name: 't',
					description: 'Does t',
					inputSchema: {
						type: 'object',
						properties: { a: { type: 'string' }, b: { type: 'string' } },
						anyOf: [{ required: ['a'] }, { required: ['b'] }],
					},
				},
			],
			messages: [],
		}).body.tools?.[0].function;
		expect(tool?.description).toBe(
			'Does t\nJSON Schema: {"anyOf":[{"required":["a"]},{"required":["b"]}]}',
		);
		expect(tool?.parameters).toEqual({
			type: 'object',
			properties: { a: { type: 'string' }, b: { type: 'string' } },
		});
	});

	it('gives a tool without a schema an empty object schema', () => {
		expect(schemaOf({})).toEqual({ type: 'object', properties: {} });
	});

	it('leaves out the values Ollama cannot decode, which would fail the whole request', () => {
		const schema = {
			type: 'object',
			properties: {
				// A schemars-style `true` allows anything; a `false` property can never be given.
				data: true,
				never: false,
				shape: {
					type: 'object',
					description: { text: 'not a string' },
					required: { circle: ['radius'] },
					enum: 'circle',
					properties: [],
					anyOf: [true, false, { type: 'object', properties: { radius: { type: 7 } } }, 'x'],
					// Free-form in Ollama's types, so anything inside is sent unchanged.
					items: { type: 7 },
				},
				label: { type: ['string', 3] },
			},
			required: 'data',
		};
		expect(schemaOf(schema)).toEqual({
			type: 'object',
			properties: {
				data: {},
				shape: {
					type: 'object',
					anyOf: [{}, { type: 'object', properties: { radius: {} } }],
					items: { type: 7 },
				},
				label: {},
			},
		});
		// The tool's own schema is not changed.
		expect(schema.properties.data).toBe(true);
	});

	it('sends the root type as one string, which is all Ollama reads there', () => {
		expect(schemaOf({ type: ['object'], properties: {} })).toEqual({
			type: 'object',
			properties: {},
		});
	});
});

describe('messages', () => {
	const call = (id: string, name: string, args: string) => ({
		id,
		type: 'function' as const,
		function: { name, arguments: args },
	});

	it('names each result after the call it answers, in the latest turn when made-up ids repeat', () => {
		const { body } = build({
			tools: [weather, echo],
			messages: [
				{
					role: 'assistant',
					content: null,
					tool_calls: [call('call_0', 'weather.get', '{"city":"Oslo"}')],
				},
				{ role: 'tool', tool_call_id: 'call_0', content: '3 °C' },
				{ role: 'assistant', content: null, tool_calls: [call('call_0', 'echo', '{"text":"hi"}')] },
				{ role: 'tool', tool_call_id: 'call_0', content: 'hi' },
			],
		});
		expect(body.messages.filter((message) => message.role === 'tool')).toEqual([
			{ role: 'tool', content: '3 °C', tool_name: 'weather_get', tool_call_id: 'call_0' },
			{ role: 'tool', content: 'hi', tool_name: 'echo', tool_call_id: 'call_0' },
		]);
	});

	it("falls back to a result's own name when no call matches its id, and sends none without", () => {
		const { body } = build({
			tools: [],
			messages: [
				{ role: 'tool', tool_call_id: 'lost', content: 'x', name: 'weather.get' },
				{ role: 'tool', tool_call_id: 'lost', content: 'y' },
			],
		});
		expect(body.messages).toEqual([
			{ role: 'tool', content: 'x', tool_name: 'weather_get', tool_call_id: 'lost' },
			{ role: 'tool', content: 'y', tool_call_id: 'lost' },
		]);
	});

	it('sends arguments as objects, {} for text that is no JSON object, and the position of each call as index', () => {
		const { body } = build({
			tools: [echo],
			messages: [
				{
					role: 'assistant',
					content: 'Calling.',
					tool_calls: [
						call('a', 'echo', '{"text":"hi"}'),
						call('b', 'echo', '[1]'),
						call('c', 'echo', "{'text':1}"),
						call('d', 'echo', '  '),
					],
				},
			],
		});
		expect(body.messages[0]).toEqual({
			role: 'assistant',
			content: 'Calling.',
			tool_calls: [
				{ id: 'a', function: { index: 0, name: 'echo', arguments: { text: 'hi' } } },
				{ id: 'b', function: { index: 1, name: 'echo', arguments: {} } },
				{ id: 'c', function: { index: 2, name: 'echo', arguments: {} } },
				{ id: 'd', function: { index: 3, name: 'echo', arguments: {} } },
			],
		});
	});

	it('sends content "" for no text and leaves out an empty call list', () => {
		const { body } = build({
			tools: [],
			messages: [{ role: 'assistant', content: null, tool_calls: [] }],
		});
		expect(body.messages).toEqual([{ role: 'assistant', content: '' }]);
	});

	it('sends back the thinking this dialect kept, and none from a vendorTurn without it', () => {
		const { body } = build({
			tools: [],
			messages: [
				{
					role: 'assistant',
					content: 'A',
					vendorTurn: { dialect: 'ollama', content: [{ thinking: 'Because.' }] },
				},
				{
					role: 'assistant',
					content: 'C',
					vendorTurn: { dialect: 'ollama', content: [{ other: 1 }] },
				},
			],
		});
		expect(body.messages).toEqual([
			{ role: 'assistant', content: 'A', thinking: 'Because.' },
			{ role: 'assistant', content: 'C' },
		]);
	});
});

describe('parseResponse', () => {
	const names = ollamaToolNames(['weather.get', 'echo']);
	const usage = { prompt_eval_count: 20, eval_count: 5 };
	const answered = {
		model: 'qwen3:8b',
		usage,
		tokens: { input: 20, output: 5, cacheRead: null, cacheWrite: null, reasoning: null },
	};

	it('refuses a call that is no object, naming it', () => {
		const body = ollamaResponse({
			tool_calls: [{ id: 'call_a', function: { name: 'echo', arguments: {} } }, null],
		});
		expect(() => ollamaDialect.parseResponse(body, names)).toThrow(
			'The model API sent a tool call without a name (call 2 of 2), which no tool can answer: null',
		);
	});

	it('does not guess calls out of text: a call written as JSON content stays text', () => {
		const content = '{"name": "weather_get", "parameters": {"city": "Oslo"}}';
		expect(ollamaDialect.parseResponse(ollamaResponse({ content }), names)).toEqual({
			message: { role: 'assistant', content },
			toolCalls: [],
			finish: 'stop',
			finishReason: 'stop',
			...answered,
		});
	});

	it('keeps no vendorTurn when the thinking is empty', () => {
		const turn = ollamaDialect.parseResponse(
			ollamaResponse({
				content: 'Let me check.',
				thinking: '',
				tool_calls: [{ function: { name: 'echo', arguments: {} } }],
			}),
			names,
		);
		expect(turn.message).toEqual({
			role: 'assistant',
			content: 'Let me check.',
			tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'echo', arguments: '{}' } }],
		});
	});

	it.each([
		['load', 'other'],
		['unload', 'other'],
		['length', 'length'],
		['something_new', 'other'],
	])('maps done_reason %s to %s', (reason, finish) => {
		expect(
			ollamaDialect.parseResponse(ollamaResponse({ content: 'x' }, { done_reason: reason }), names),
		).toMatchObject({
			finish,
			finishReason: reason,
		});
	});

	it('leaves out usage when the body has no counts, and ignores a tool_calls that is no list', () => {
		const body = {
			message: { role: 'assistant', content: 'x', tool_calls: { name: 'echo' } },
			done: true,
		} as unknown as OllamaChatResponse;
		expect(ollamaDialect.parseResponse(body, names)).toEqual({
			message: { role: 'assistant', content: 'x' },
			toolCalls: [],
			finish: 'other',
			finishReason: null,
			tokens: NO_TOKENS,
		});
	});

	it.each<[string, unknown, string]>([
		[
			'the error of a call the model broke',
			{
				error: 'error parsing tool call: raw=\'{"city":"Oslo"\', err=unexpected end of JSON input',
			},
			'The model API returned an error: error parsing tool call: raw=\'{"city":"Oslo"\', err=unexpected end of JSON input',
		],
	])('throws a clear error for %s', (_label, body, message) => {
		expect(() => ollamaDialect.parseResponse(body as OllamaChatResponse, names)).toThrow(
			new Error(message),
		);
	});
});

function assemble(lines: unknown[]) {
	const assembler = ollamaDialect.createStreamAssembler();
	for (const line of lines) assembler.push(line as OllamaChatResponse);
	return assembler;
}

describe('createStreamAssembler', () => {
	const names = ollamaToolNames(['weather.get', 'echo']);
	const piece = (message: Record<string, unknown>) => ({
		model: 'qwen3:8b',
		created_at: '2026-03-02T10:00:00Z',
		message: { role: 'assistant', content: '', ...message },
		done: false,
	});
	const last = {
		model: 'qwen3:8b',
		created_at: '2026-03-02T10:00:01Z',
		message: { role: 'assistant', content: '' },
		done: true,
		done_reason: 'stop',
		eval_count: 5,
	};

	it('folds the lines into the body Ollama returns when not streaming', () => {
		const assembler = assemble([
			piece({ thinking: 'Hm' }),
			piece({ thinking: 'm.' }),
			piece({ tool_calls: [{ id: 'a', function: { index: 0, name: 'echo', arguments: {} } }] }),
			piece({
				content: 'Done',
				tool_calls: [
					{ id: 'b', function: { index: 1, name: 'weather_get', arguments: { city: 'Oslo' } } },
				],
			}),
			last,
		]);
		expect(assembler.finished()).toBe(true);
		expect(assembler.result()).toEqual({
			...last,
			message: {
				role: 'assistant',
				content: 'Done',
				thinking: 'Hmm.',
				tool_calls: [
					{ id: 'a', function: { index: 0, name: 'echo', arguments: {} } },
					{ id: 'b', function: { index: 1, name: 'weather_get', arguments: { city: 'Oslo' } } },
				],
			},
		});
	});

	it('reports a line that is no JSON object as an error', () => {
		const assembler = assemble([piece({ content: 'Hel' }), 42, last]);
		expect(() => ollamaDialect.parseResponse(assembler.result(), names)).toThrow(
			'The model API returned an error: not a JSON object: 42',
		);
	});
});

describe('http', () => {
	const endpoint = { baseUrl: OLLAMA_BASE_URL, headers: {} };

	it('calls /api/chat and lists models at /api/tags, local Ollama by default', () => {
		expect(OLLAMA_BASE_URL).toBe('http://localhost:11434');
		expect(ollamaDialect.http.url(endpoint, 'qwen3:8b', true)).toBe(
			'http://localhost:11434/api/chat',
		);
		expect(
			ollamaDialect.http.url({ baseUrl: 'https://ollama.com', headers: {} }, 'gpt-oss:120b', false),
		).toBe('https://ollama.com/api/chat');
		expect(ollamaDialect.http.modelsUrl(endpoint)).toBe('http://localhost:11434/api/tags');
	});

	it('sends no auth without a key, a bearer token with one, and the extra headers', () => {
		expect(ollamaDialect.http.headers(endpoint)).toEqual({});
		expect(
			ollamaDialect.http.headers({
				baseUrl: 'https://ollama.com',
				apiKey: 'k-1',
				headers: { 'x-team': 'a' },
			}),
		).toEqual({
			authorization: 'Bearer k-1',
			'x-team': 'a',
		});
	});

	it('reads streams as one JSON object per line', () => {
		expect(ollamaDialect.http.streamFraming).toBe('ndjson');
	});

	it("reads Ollama's error bodies", () => {
		expect(ollamaDialect.http.errorMessage({ error: 'model is required' })).toBe(
			'model is required',
		);
	});

	it('reads the model names from /api/tags', () => {
		const body = {
			models: [
				{
					name: 'qwen3:8b',
					model: 'qwen3:8b',
					modified_at: '2026-02-01T10:00:00Z',
					size: 5225388164,
					digest: 'abc',
					details: { family: 'qwen3' },
				},
				{ model: 'llama3.2:latest' },
				{ name: '' },
				'junk',
			],
		};
		expect(ollamaDialect.http.parseModels(body)).toEqual(['qwen3:8b', 'llama3.2:latest']);
	});
});

describe('ollamaDialect round trip', () => {
	it('sends the calls back under vendor names with their ids, and the thinking beside them', () => {
		const { names } = build({ tools: [weather], messages: [user] });
		const turn = ollamaDialect.parseResponse(
			ollamaResponse({
				thinking: 'Need the weather.',
				tool_calls: [
					{
						id: 'call_x1',
						function: { index: 0, name: 'weather_get', arguments: { city: 'Oslo' } },
					},
				],
			}),
			names,
		);
		const next = build({
			tools: [weather],
			messages: [user, turn.message, { role: 'tool', tool_call_id: 'call_x1', content: '3 °C' }],
		});
		expect(next.body.messages.slice(1)).toEqual([
			{
				role: 'assistant',
				content: '',
				thinking: 'Need the weather.',
				tool_calls: [
					{
						id: 'call_x1',
						function: { index: 0, name: 'weather_get', arguments: { city: 'Oslo' } },
					},
				],
			},
			{ role: 'tool', content: '3 °C', tool_name: 'weather_get', tool_call_id: 'call_x1' },
		]);
	});
});
