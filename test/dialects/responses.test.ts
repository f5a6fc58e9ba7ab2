import type { AssistantMessage, Conversation } from '../../lib/conversation/types';
import { createResponsesDialect, responsesDialect } from '../../lib/dialects/responses';
import { responsesToolNames } from '../../lib/dialects/responses/names';
import type { EndpointConfig, ModelSettings } from '../../lib/dialects/types';
import type { ResponsesResponse, ResponsesStreamEvent } from '../../lib/dialects/responses/wire';
import { echoWithoutSchema, loose, weatherWithUnit } from '../support/dialectTools';

// The vendor bodies below are written by hand in the shape of openai 7.59's Responses types
// (Response, ResponsesStreamEvent, ResponseInputItem) unless a comment names the capture they follow.

const [weather, echo] = [weatherWithUnit, echoWithoutSchema];

const settings: ModelSettings = { model: 'gpt-test', toolChoice: 'auto', stream: false };
const names = responsesToolNames(['weather.get', 'echo']);

const calls: AssistantMessage = {
	role: 'assistant',
	content: null,
	tool_calls: [
		{
			id: 'call_a',
			type: 'function',
			function: { name: 'weather.get', arguments: '{"city":"Oslo"}' },
		},
		{ id: 'call_b', type: 'function', function: { name: 'echo', arguments: '' } },
	],
};

function request(
	messages: Conversation['messages'],
	overrides: Partial<ModelSettings> = {},
	tools = [weather, echo],
) {
	return responsesDialect.buildRequest({ messages, tools }, { ...settings, ...overrides });
}

function response(output: unknown[], extra: Record<string, unknown> = {}): ResponsesResponse {
	return {
		id: 'resp_1',
		object: 'response',
		created_at: 1_767_000_000,
		status: 'completed',
		error: null,
		incomplete_details: null,
		model: 'gpt-test',
		output,
		usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
		...extra,
	};
}

const message = (...content: unknown[]) => ({
	id: 'msg_1',
	type: 'message',
	role: 'assistant',
	status: 'completed',
	content,
});
const outputText = (text: string) => ({ type: 'output_text', text, annotations: [] });
const functionCall = (
	call_id: string | undefined,
	name: string,
	args: unknown,
	id = `fc_${call_id}`,
) => ({
	id,
	type: 'function_call',
	status: 'completed',
	call_id,
	name,
	arguments: args,
});
const reasoning = (encrypted_content?: string) => ({
	id: 'rs_1',
	type: 'reasoning',
	summary: [],
	encrypted_content,
});

describe('buildRequest', () => {
	it('maps every tool choice, the forced one under its vendor name; none is unsupported', () => {
		for (const toolChoice of ['auto', 'required', 'none'] as const) {
			expect(request([], { toolChoice }).body.tool_choice).toBe(toolChoice);
		}
		expect(request([], { toolChoice: { name: 'weather.get' } }).body.tool_choice).toEqual({
			type: 'function',
			name: 'weather_get',
		});
	});

	it('leaves out tools, tool_choice and parallel_tool_calls when there are no tools', () => {
		const { body } = request(
			[{ role: 'user', content: 'Hi' }],
			{ toolChoice: 'required', parallelToolCalls: true },
			[],
		);
		expect(body).toEqual({
			model: 'gpt-test',
			input: [{ role: 'user', content: 'Hi' }],
			stream: false,
			store: false,
		});
	});

	it('leaves out parallel_tool_calls when the setting is not given, and sends it when it is', () => {
		expect(request([]).body).not.toHaveProperty('parallel_tool_calls');
		expect(request([], { parallelToolCalls: false }).body.parallel_tool_calls).toBe(false);
	});

	it('always says strict: false without strict mode, since Responses would make the tool strict', () => {
		expect(request([]).body.tools).toEqual([
			{
				type: 'function',
				name: 'weather_get',
				description: 'Current weather',
				parameters: weather.inputSchema,
				strict: false,
			},
			{
				type: 'function',
				name: 'echo',
				description: 'Echo back',
				parameters: { type: 'object', properties: {} },
				strict: false,
			},
		]);
	});

	it('sends strict schemas where it can, and names the tools it cannot make strict', () => {
		const { body, notStrict } = request([], { strict: true }, [echo, loose]);
		expect(body.tools).toEqual([
			{
				type: 'function',
				name: 'echo',
				description: 'Echo back',
				parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
				strict: true,
			},
			{ type: 'function', name: 'loose', parameters: loose.inputSchema, strict: false },
		]);
		expect(notStrict).toEqual([
			{ name: 'loose', reason: 'additionalProperties must be false, got true (at /)' },
		]);
	});

	it('sends none of our own keys', () => {
		const { body } = request([
			calls,
			{
				role: 'tool',
				tool_call_id: 'call_a',
				content: '{"temp":3}',
				name: 'weather.get',
				structuredContent: { temp: 3 },
				attachments: [{ binaryProperty: 'data', kind: 'image', mimeType: 'image/png' }],
			},
			{ role: 'tool', tool_call_id: 'call_b', content: 'Error: timed out', isError: true },
		]);
		expect(JSON.stringify(body)).not.toMatch(
			/structuredContent|attachments|isError|mcpName|annotations|outputSchema|readOnlyHint/,
		);
	});

	it('writes an assistant message without text or calls as nothing', () => {
		expect(
			request([
				{ role: 'assistant', content: null },
				{ role: 'assistant', content: '', tool_calls: [] },
			]).body.input,
		).toEqual([]);
	});

	it('asks for encrypted reasoning only when the dialect is made to', () => {
		expect(request([]).body).not.toHaveProperty('include');
		const dialect = createResponsesDialect({ encryptedReasoning: true });
		expect(dialect.buildRequest({ messages: [], tools: [] }, settings).body.include).toEqual([
			'reasoning.encrypted_content',
		]);
	});

	it('maps a history call to a tool no longer offered to a legal name, and back', () => {
		const { body, names: map } = request(
			[
				{
					role: 'assistant',
					content: null,
					tool_calls: [
						{ id: 'c1', type: 'function', function: { name: 'old.tool', arguments: '{}' } },
					],
				},
			],
			{},
			[],
		);
		expect(body.input).toEqual([
			{ type: 'function_call', call_id: 'c1', name: 'old_tool', arguments: '{}' },
		]);
		expect(map.fromVendor('old_tool')).toBe('old.tool');
	});
});

describe('vendorTurn', () => {
	const items = [
		reasoning('gAAAA-secret'),
		message(outputText('Checking.')),
		functionCall('call_a', 'weather_get', '{"city":"Oslo"}'),
	];
	const turn: AssistantMessage = {
		role: 'assistant',
		content: 'Checking.',
		tool_calls: [
			{
				id: 'call_a',
				type: 'function',
				function: { name: 'weather.get', arguments: '{"city":"Oslo"}' },
			},
		],
		vendorTurn: { dialect: 'openaiResponses', content: items },
	};
	const rebuilt = [
		{ role: 'assistant', content: 'Checking.' },
		{ type: 'function_call', call_id: 'call_a', name: 'weather_get', arguments: '{"city":"Oslo"}' },
	];

	it('is set from a completed output with encrypted reasoning, and sent back verbatim', () => {
		const parsed = responsesDialect.parseResponse(response(items), names);
		expect(parsed.message).toEqual(turn);
		expect(request([parsed.message]).body.input).toEqual(items);
	});

	it('is not set when reasoning has no encrypted content (an id alone is refused under store:false)', () => {
		const parsed = responsesDialect.parseResponse(
			response([reasoning(), ...items.slice(1)]),
			names,
		);
		expect(parsed.message).not.toHaveProperty('vendorTurn');
	});

	it('is not set from a turn cut short, whose reasoning may lack the item it led to', () => {
		const body = response([reasoning('gAAAA-secret')], {
			status: 'incomplete',
			incomplete_details: { reason: 'max_output_tokens' },
		});
		expect(responsesDialect.parseResponse(body, names).message).toEqual({
			role: 'assistant',
			content: null,
		});
	});

	it('is rebuilt from the neutral message once that was edited', () => {
		expect(request([{ ...turn, content: 'Edited.' }]).body.input).toEqual([
			{ ...rebuilt[0], content: 'Edited.' },
			rebuilt[1],
		]);
		const otherArguments = {
			...turn,
			tool_calls: [{ ...turn.tool_calls![0], function: { name: 'weather.get', arguments: '{}' } }],
		};
		expect(request([otherArguments]).body.input).toEqual([
			rebuilt[0],
			{ ...rebuilt[1], arguments: '{}' },
		]);
	});

	it('is rebuilt when the current name map reads its call names differently', () => {
		const content = [
			items[0],
			items[1],
			functionCall('call_a', 'weather_get_2', '{"city":"Oslo"}'),
		];
		const renamed = { ...turn, vendorTurn: { dialect: 'openaiResponses', content } };
		expect(request([renamed]).body.input).toEqual(rebuilt);
	});

	it('is ignored when another dialect wrote it, or it is not a list', () => {
		expect(
			request([{ ...turn, vendorTurn: { dialect: 'anthropic', content: [{ type: 'thinking' }] } }])
				.body.input,
		).toEqual(rebuilt);
		expect(
			request([{ ...turn, vendorTurn: { dialect: 'openaiResponses', content: 'x' as never } }]).body
				.input,
		).toEqual(rebuilt);
	});

	it('ignores key order when comparing calls', () => {
		const call = {
			function: { arguments: '{"city":"Oslo"}', name: 'weather.get' },
			type: 'function' as const,
			id: 'call_a',
		};
		const reordered = { ...turn, tool_calls: [call] };
		expect(request([reordered]).body.input).toEqual(items);
	});
});

describe('parseResponse', () => {
	it('reads a text answer', () => {
		expect(
			responsesDialect.parseResponse(response([message(outputText('It is 3 °C.'))]), names),
		).toEqual({
			message: { role: 'assistant', content: 'It is 3 °C.' },
			toolCalls: [],
			finish: 'stop',
			finishReason: 'completed',
			usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
		});
	});

	it('joins text parts of a message, and messages as paragraphs (commentary, then the answer)', () => {
		const body = response([
			message(outputText('First. '), outputText('Second.')),
			{ ...message(outputText('Answer.')), phase: 'final_answer' },
		]);
		expect(responsesDialect.parseResponse(body, names).message.content).toBe(
			'First. Second.\n\nAnswer.',
		);
	});

	it('keeps a refusal as the answer text, and reads a message whose content is a plain string', () => {
		const refusal = response([message({ type: 'refusal', refusal: 'I cannot help with that.' })]);
		expect(responsesDialect.parseResponse(refusal, names).message.content).toBe(
			'I cannot help with that.',
		);
		const plain = response([{ type: 'message', role: 'assistant', content: 'Plain.' }]);
		expect(responsesDialect.parseResponse(plain, names).message.content).toBe('Plain.');
	});

	it('maps names back, keeps call_ids, makes missing or repeated ones, and guards the arguments', () => {
		const body = response([
			functionCall('call_x', 'weather_get', '{"city":"Oslo"}'),
			functionCall(undefined, 'echo', undefined),
			functionCall('call_x', 'nope', '{"a":1,}'),
		]);
		expect(responsesDialect.parseResponse(body, names).toolCalls).toEqual([
			{
				id: 'call_x',
				name: 'weather.get',
				arguments: { city: 'Oslo' },
				rawArguments: '{"city":"Oslo"}',
			},
			{ id: 'call_1', name: 'echo', arguments: {}, rawArguments: '' },
			{
				id: 'call_2',
				name: 'nope',
				arguments: null,
				rawArguments: '{"a":1,}',
				argumentsError: 'not valid JSON: trailing comma at position 6',
			},
		]);
	});

	it('ignores output items it never asked for', () => {
		const body = response([
			{ id: 'ws_1', type: 'web_search_call', status: 'completed' },
			message(outputText('Done.')),
		]);
		expect(responsesDialect.parseResponse(body, names).message).toEqual({
			role: 'assistant',
			content: 'Done.',
		});
	});

	it.each<[string, Record<string, unknown>, string, string | null]>([
		[
			'incomplete by max_output_tokens',
			{ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
			'length',
			'max_output_tokens',
		],
		[
			'incomplete by content_filter',
			{ status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
			'content_filter',
			'content_filter',
		],
		['incomplete without a reason', { status: 'incomplete' }, 'other', 'incomplete'],
		['still in progress (a cut stream)', { status: 'in_progress' }, 'other', 'in_progress'],
		['without a status', { status: undefined }, 'other', null],
	])('reports a turn %s', (_label, extra, finish, finishReason) => {
		const turn = responsesDialect.parseResponse(response([message(outputText('x'))], extra), names);
		expect([turn.finish, turn.finishReason]).toEqual([finish, finishReason]);
	});

	it('decides tool_calls by the calls present when a server leaves out the status', () => {
		const turn = responsesDialect.parseResponse(
			response([functionCall('c', 'echo', '{}')], { status: undefined }),
			names,
		);
		expect([turn.finish, turn.finishReason]).toEqual(['tool_calls', null]);
	});

	it('leaves out usage when the body has none', () => {
		expect(responsesDialect.parseResponse(response([], { usage: null }), names)).not.toHaveProperty(
			'usage',
		);
	});

	it.each<[string, unknown, string]>([
		[
			// As openai-error.1.json in vercel/ai's Responses fixtures, the message shortened.
			'an OpenAI error body',
			{
				error: {
					message: 'You exceeded your current quota.',
					type: 'insufficient_quota',
					param: null,
					code: 'insufficient_quota',
				},
			},
			'The model API returned an error: You exceeded your current quota.',
		],
		[
			// As the response in openai-response-failed-only.1.chunks.txt of the same fixtures, shortened.
			'a failed response',
			response([], {
				status: 'failed',
				error: { code: 'rate_limit_exceeded', message: 'Request too large for gpt-4o-mini.' },
			}),
			'The model API returned an error: Request too large for gpt-4o-mini.',
		],
		[
			'a failed response without an error',
			{ id: 'r', status: 'failed', error: null, output: [] },
			'The model API returned an error: the response failed without saying why: {"id":"r","status":"failed","error":null,"output":[]}',
		],
		[
			'a vLLM error body',
			{ object: 'error', message: 'model not found', code: 404 },
			'The model API returned an error: model not found',
		],
		[
			'no output',
			{ id: 'r', status: 'completed' },
			'The model API response has no output array: {"id":"r","status":"completed"}',
		],
		[
			'not an object',
			'Bad Gateway',
			'The model API returned an error: not a JSON object: "Bad Gateway"',
		],
	])('throws a clear error for %s', (_label, body, text) => {
		expect(() => responsesDialect.parseResponse(body as ResponsesResponse, names)).toThrow(
			new Error(text),
		);
	});
});

function event(type: string, fields: Record<string, unknown> = {}): ResponsesStreamEvent {
	return { type, ...fields };
}

function assemble(events: ResponsesStreamEvent[]) {
	const assembler = responsesDialect.createStreamAssembler();
	for (const e of events) assembler.push(e);
	return assembler;
}

const created = event('response.created', {
	response: response([], { status: 'in_progress', usage: null }),
});
const completed = (output: unknown[] = []) =>
	event('response.completed', { response: response(output) });

describe('createStreamAssembler', () => {
	it('assembles interleaved calls and text by output_index, equal to the non-streamed turn', () => {
		const output = [
			message(outputText('Checking.')),
			functionCall('call_w', 'weather_get', '{"city":"Oslo"}'),
			functionCall('call_e', 'echo', '{"text":"hi'),
		];
		const streamed = assemble([
			created,
			event('response.output_item.added', {
				output_index: 0,
				item: { ...output[0], status: 'in_progress', content: [] },
			}),
			event('response.output_item.added', {
				output_index: 1,
				item: { ...output[1], status: 'in_progress', arguments: '' },
			}),
			event('response.output_item.added', {
				output_index: 2,
				item: { ...output[2], status: 'in_progress', arguments: '' },
			}),
			event('response.function_call_arguments.delta', {
				output_index: 2,
				item_id: 'fc_call_e',
				delta: '{"te',
			}),
			event('response.function_call_arguments.delta', {
				output_index: 1,
				item_id: 'fc_call_w',
				delta: '{"city":',
			}),
			// No content_part.added before the text: the part is made.
			event('response.output_text.delta', { output_index: 0, content_index: 0, delta: 'Check' }),
			event('response.function_call_arguments.delta', {
				output_index: 2,
				item_id: 'fc_call_e',
				delta: 'xt":"hi',
			}),
			event('response.function_call_arguments.delta', {
				output_index: 1,
				item_id: 'fc_call_w',
				delta: '"Oslo"}',
			}),
			event('response.output_text.delta', { output_index: 0, content_index: 0, delta: 'ing.' }),
			// The final response's output is not read when the items were streamed.
			completed([{ type: 'message', content: [outputText('ignored')] }]),
		]);
		expect(streamed.finished()).toBe(true);
		const turn = responsesDialect.parseResponse(streamed.result(), names);
		expect(turn).toEqual(responsesDialect.parseResponse(response(output), names));
		expect(turn.toolCalls[1]).toMatchObject({
			id: 'call_e',
			arguments: null,
			rawArguments: '{"text":"hi',
		});
	});

	it('finds items by item_id when a server leaves out output_index', () => {
		const streamed = assemble([
			event('response.output_item.added', {
				item: { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'echo', arguments: '' },
			}),
			event('response.output_item.added', {
				item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
			}),
			event('response.function_call_arguments.delta', { item_id: 'fc_1', delta: '{}' }),
			event('response.output_text.delta', { item_id: 'msg_1', delta: 'Hi' }),
			completed(),
		]);
		expect(responsesDialect.parseResponse(streamed.result(), names).message).toEqual({
			role: 'assistant',
			content: 'Hi',
			tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{}' } }],
		});
	});

	it('assembles a streamed refusal', () => {
		const streamed = assemble([
			event('response.output_item.added', {
				output_index: 0,
				item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
			}),
			event('response.content_part.added', {
				output_index: 0,
				content_index: 0,
				part: { type: 'refusal', refusal: '' },
			}),
			event('response.refusal.delta', { output_index: 0, content_index: 0, delta: 'I cannot ' }),
			event('response.refusal.delta', { output_index: 0, content_index: 0, delta: 'help.' }),
			completed(),
		]);
		expect(responsesDialect.parseResponse(streamed.result(), names).message.content).toBe(
			'I cannot help.',
		);
	});

	it('takes the output of the last response from a server that streams no item events', () => {
		const streamed = assemble([created, completed([message(outputText('Whole.'))])]);
		expect(responsesDialect.parseResponse(streamed.result(), names).message.content).toBe('Whole.');
	});

	it('leaves the pushed events as they came', () => {
		const item = { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'echo', arguments: '' };
		const done = { ...item, arguments: '{}', status: 'completed' };
		const assembler = assemble([
			event('response.output_item.added', { output_index: 0, item }),
			event('response.function_call_arguments.delta', { output_index: 0, delta: '{}' }),
			event('response.output_item.done', { output_index: 0, item: done }),
			// A late delta must not reach the done event's item either.
			event('response.function_call_arguments.delta', { output_index: 0, delta: 'x' }),
		]);
		expect([item.arguments, done.arguments]).toEqual(['', '{}']);
		expect(assembler.result().output).toEqual([{ ...done, arguments: '{}x' }]);
	});

	it('is not finished when the stream is cut before its end event, and says where it stood', () => {
		const cut = assemble([
			created,
			event('response.output_item.added', {
				output_index: 0,
				item: { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'echo', arguments: '' },
			}),
			event('response.function_call_arguments.delta', { output_index: 0, delta: '{"te' }),
		]);
		expect(cut.finished()).toBe(false);
		expect(responsesDialect.parseResponse(cut.result(), names)).toMatchObject({
			finish: 'other',
			finishReason: 'in_progress',
		});
	});

	it('finishes on response.incomplete, with the reason of its response', () => {
		const incomplete = response([], {
			status: 'incomplete',
			incomplete_details: { reason: 'max_output_tokens' },
		});
		const streamed = assemble([created, event('response.incomplete', { response: incomplete })]);
		expect(streamed.finished()).toBe(true);
		expect(responsesDialect.parseResponse(streamed.result(), names)).toMatchObject({
			finish: 'length',
			finishReason: 'max_output_tokens',
		});
	});

	it('finishes on response.failed and carries its error to the parser', () => {
		// The events of openai-response-failed-only.1.chunks.txt in vercel/ai's Responses fixtures, shortened.
		const streamed = assemble([
			created,
			event('response.failed', {
				response: response([], {
					status: 'failed',
					error: { code: 'rate_limit_exceeded', message: 'Request too large.' },
				}),
			}),
		]);
		expect(streamed.finished()).toBe(true);
		expect(() => responsesDialect.parseResponse(streamed.result(), names)).toThrow(
			'The model API returned an error: Request too large.',
		);
	});

	it.each<[string, Record<string, unknown>]>([
		// openai-error.1.chunks.txt in vercel/ai's Responses fixtures nests the error (message shortened here).
		[
			'nested, as OpenAI sends it',
			{
				error: {
					type: 'insufficient_quota',
					code: 'insufficient_quota',
					message: 'Quota exceeded.',
				},
			},
		],
		[
			'flat, as the SDK types have it',
			{ code: 'insufficient_quota', message: 'Quota exceeded.', param: null },
		],
	])('ends the turn on an error event %s and carries its message', (_label, fields) => {
		const streamed = assemble([created, event('error', fields)]);
		expect(streamed.finished()).toBe(true);
		expect(() => responsesDialect.parseResponse(streamed.result(), names)).toThrow(
			'The model API returned an error: Quota exceeded.',
		);
	});

	it('yields a body without output for an empty stream, which the parser refuses', () => {
		const empty = assemble([]);
		expect(empty.finished()).toBe(false);
		expect(() => responsesDialect.parseResponse(empty.result(), names)).toThrow(
			/has no output array/,
		);
	});
});

describe('http', () => {
	const endpoint: EndpointConfig = {
		baseUrl: 'https://api.openai.com/v1',
		apiKey: 'sk-test',
		organization: 'org-1',
		headers: { 'x-extra': '1' },
	};

	it('posts to /responses with bearer and organization headers', () => {
		expect(responsesDialect.http.url(endpoint, 'gpt-test', true)).toBe(
			'https://api.openai.com/v1/responses',
		);
		expect(responsesDialect.http.headers(endpoint)).toEqual({
			'x-extra': '1',
			authorization: 'Bearer sk-test',
			'openai-organization': 'org-1',
		});
		expect(
			responsesDialect.http.headers({ baseUrl: 'http://localhost:8000/v1', headers: {} }),
		).toEqual({});
		expect(responsesDialect.http.streamFraming).toBe('sse');
	});

	it('lists models from /models', () => {
		expect(responsesDialect.http.modelsUrl(endpoint)).toBe('https://api.openai.com/v1/models');
		expect(
			responsesDialect.http.parseModels({
				object: 'list',
				data: [{ id: 'gpt-4.1' }, { id: 'o3' }, 'junk'],
			}),
		).toEqual(['gpt-4.1', 'o3']);
	});

	it("reads the vendor's words from error bodies only", () => {
		expect(
			responsesDialect.http.errorMessage({
				error: { message: 'Invalid schema', type: 'invalid_request_error' },
			}),
		).toBe('Invalid schema');
		expect(responsesDialect.http.errorMessage(response([]))).toBeUndefined();
	});
});

describe('responsesDialect round trip', () => {
	it('maps a dotted MCP name out in the request and back in the response, then out again', () => {
		const { body, names: map } = request([], {}, [weather]);
		expect(body.tools).toEqual([expect.objectContaining({ name: 'weather_get' })]);
		const turn = responsesDialect.parseResponse(
			response([functionCall('c', 'weather_get', '{"city":"Oslo"}')]),
			map,
		);
		expect(turn.toolCalls[0]).toEqual({
			id: 'c',
			name: 'weather.get',
			arguments: { city: 'Oslo' },
			rawArguments: '{"city":"Oslo"}',
		});
		const next = request([turn.message, { role: 'tool', tool_call_id: 'c', content: '3 °C' }], {}, [
			weather,
		]);
		expect(next.body.input).toEqual([
			{ type: 'function_call', call_id: 'c', name: 'weather_get', arguments: '{"city":"Oslo"}' },
			{ type: 'function_call_output', call_id: 'c', output: '3 °C' },
		]);
	});
});
