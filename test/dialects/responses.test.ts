import type { AssistantMessage, Conversation } from '../../lib/conversation/types';
import { createResponsesDialect, responsesDialect } from '../../lib/dialects/responses';
import { responsesToolNames } from '../../lib/dialects/responses/names';
import type { EndpointConfig, ModelSettings } from '../../lib/dialects/types';
import type { ResponsesResponse, ResponsesStreamEvent } from '../../lib/dialects/responses/wire';
import { echoWithoutSchema, loose, weatherWithUnit } from '../support/dialectTools';
import {
	outputText,
	responsesBody,
	responsesEvent,
	responsesMessage,
} from '../support/vendorBodies';

// The vendor bodies here and in ../support/vendorBodies.ts are written by hand in the shape of
// openai 7.59's Responses types (Response, ResponseStreamEvent, ResponseInputItem) unless a comment
// names the capture they follow.

const [weather, echo] = [weatherWithUnit, echoWithoutSchema];

const settings: ModelSettings = { model: 'gpt-test', toolChoice: 'auto', stream: false };
const names = responsesToolNames(['weather.get', 'echo']);

function request(
	messages: Conversation['messages'],
	overrides: Partial<ModelSettings> = {},
	tools = [weather, echo],
) {
	return responsesDialect.buildRequest({ messages, tools }, { ...settings, ...overrides });
}

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

	it('writes an assistant message without text or calls as nothing', () => {
		expect(
			request([
				{ role: 'assistant', content: null },
				{ role: 'assistant', content: '', tool_calls: [] },
			]).body.input,
		).toEqual([]);
	});

	it('shortens a call_id past the 64 characters Responses takes, the same for the call and its output', () => {
		const longId = `call_${'0123456789abcdef'.repeat(5)}`;
		const { input } = request([
			{
				role: 'assistant',
				content: null,
				tool_calls: [{ id: longId, type: 'function', function: { name: 'echo', arguments: '{}' } }],
			},
			{ role: 'tool', tool_call_id: longId, content: 'done' },
		]).body;
		const [call, output] = input as Array<{ call_id: string }>;
		expect(call.call_id.length).toBeLessThanOrEqual(64);
		expect(call.call_id).not.toBe(longId);
		expect(output.call_id).toBe(call.call_id);
	});

	it('sends an echoed call with a long call_id under the id its output is sent with', () => {
		const longId = `call_${'x'.repeat(70)}`;
		const parsed = responsesDialect.parseResponse(
			responsesBody([reasoning('gAAAA'), functionCall(longId, 'echo', '{}')]),
			responsesToolNames(['echo']),
		);
		expect(parsed.message.vendorTurn).toBeDefined();
		const { input } = request([
			{ role: 'user', content: 'go' },
			parsed.message,
			{ role: 'tool', tool_call_id: longId, content: 'ok' },
		]).body;
		const items = input as Array<{ type?: string; call_id?: string }>;
		const call = items.find((item) => item.type === 'function_call');
		const output = items.find((item) => item.type === 'function_call_output');
		expect(call?.call_id).toHaveLength(64);
		expect(output?.call_id).toBe(call?.call_id);
	});

	it('asks for encrypted reasoning only when the dialect is made to', () => {
		expect(request([]).body).not.toHaveProperty('include');
		const dialect = createResponsesDialect({ encryptedReasoning: true });
		expect(dialect.buildRequest({ messages: [], tools: [] }, settings).body.include).toEqual([
			'reasoning.encrypted_content',
		]);
	});
});

describe('vendorTurn', () => {
	const items = [
		reasoning('gAAAA-secret'),
		responsesMessage(outputText('Checking.')),
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
		const parsed = responsesDialect.parseResponse(responsesBody(items), names);
		expect(parsed.message).toEqual(turn);
		expect(request([parsed.message]).body.input).toEqual(items);
	});

	it('sends an echoed call with no arguments as "{}", as a rebuilt one is sent', () => {
		const content = [items[0], functionCall('call_a', 'weather_get', '')];
		const noArguments = {
			...turn,
			content: null,
			tool_calls: [{ ...turn.tool_calls![0], function: { name: 'weather.get', arguments: '' } }],
			vendorTurn: { dialect: 'openaiResponses', content },
		};
		expect(request([noArguments]).body.input).toEqual([
			items[0],
			{ ...content[1], arguments: '{}' },
		]);
	});

	it('is not set when reasoning has no encrypted content (an id alone is refused under store:false)', () => {
		const parsed = responsesDialect.parseResponse(
			responsesBody([reasoning(), ...items.slice(1)]),
			names,
		);
		expect(parsed.message).not.toHaveProperty('vendorTurn');
	});

	it('is not set from a turn cut short, whose reasoning may lack the item it led to', () => {
		const body = responsesBody([reasoning('gAAAA-secret')], {
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

	it('is ignored when it is not a list', () => {
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
	it('joins text parts of a message, and messages as paragraphs (commentary, then the answer)', () => {
		const body = responsesBody([
			responsesMessage(outputText('First. '), outputText('Second.')),
			{ ...responsesMessage(outputText('Answer.')), phase: 'final_answer' },
		]);
		expect(responsesDialect.parseResponse(body, names).message.content).toBe(
			'First. Second.\n\nAnswer.',
		);
	});

	it('keeps a refusal as the answer text, and reads a message whose content is a plain string', () => {
		const refusal = responsesBody([
			responsesMessage({ type: 'refusal', refusal: 'I cannot help with that.' }),
		]);
		expect(responsesDialect.parseResponse(refusal, names).message.content).toBe(
			'I cannot help with that.',
		);
		const plain = responsesBody([{ type: 'message', role: 'assistant', content: 'Plain.' }]);
		expect(responsesDialect.parseResponse(plain, names).message.content).toBe('Plain.');
	});

	it('ignores output items it never asked for', () => {
		const body = responsesBody([
			{ id: 'ws_1', type: 'web_search_call', status: 'completed' },
			responsesMessage(outputText('Done.')),
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
		const turn = responsesDialect.parseResponse(
			responsesBody([responsesMessage(outputText('x'))], extra),
			names,
		);
		expect([turn.finish, turn.finishReason]).toEqual([finish, finishReason]);
	});

	it('decides tool_calls by the calls present when a server leaves out the status', () => {
		const turn = responsesDialect.parseResponse(
			responsesBody([functionCall('c', 'echo', '{}')], { status: undefined }),
			names,
		);
		expect([turn.finish, turn.finishReason]).toEqual(['tool_calls', null]);
	});

	it('leaves out usage when the body has none', () => {
		expect(
			responsesDialect.parseResponse(responsesBody([], { usage: null }), names),
		).not.toHaveProperty('usage');
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
			responsesBody([], {
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
	])('throws a clear error for %s', (_label, body, text) => {
		expect(() => responsesDialect.parseResponse(body as ResponsesResponse, names)).toThrow(
			new Error(text),
		);
	});
});

function assemble(events: ResponsesStreamEvent[]) {
	const assembler = responsesDialect.createStreamAssembler();
	for (const e of events) assembler.push(e);
	return assembler;
}

const created = responsesEvent('response.created', {
	response: responsesBody([], { status: 'in_progress', usage: null }),
});
const completed = (output: unknown[] = []) =>
	responsesEvent('response.completed', { response: responsesBody(output) });

describe('createStreamAssembler', () => {
	it('assembles interleaved calls and text by output_index, equal to the non-streamed turn', () => {
		const output = [
			responsesMessage(outputText('Checking.')),
			functionCall('call_w', 'weather_get', '{"city":"Oslo"}'),
			functionCall('call_e', 'echo', '{"text":"hi'),
		];
		const streamed = assemble([
			created,
			responsesEvent('response.output_item.added', {
				output_index: 0,
				item: { ...output[0], status: 'in_progress', content: [] },
			}),
			responsesEvent('response.output_item.added', {
				output_index: 1,
				item: { ...output[1], status: 'in_progress', arguments: '' },
			}),
			responsesEvent('response.output_item.added', {
				output_index: 2,
				item: { ...output[2], status: 'in_progress', arguments: '' },
			}),
			responsesEvent('response.function_call_arguments.delta', {
				output_index: 2,
				item_id: 'fc_call_e',
				delta: '{"te',
			}),
			responsesEvent('response.function_call_arguments.delta', {
				output_index: 1,
				item_id: 'fc_call_w',
				delta: '{"city":',
			}),
			// No content_part.added before the text: the part is made.
			responsesEvent('response.output_text.delta', {
				output_index: 0,
				content_index: 0,
				delta: 'Check',
			}),
			responsesEvent('response.function_call_arguments.delta', {
				output_index: 2,
				item_id: 'fc_call_e',
				delta: 'xt":"hi',
			}),
			responsesEvent('response.function_call_arguments.delta', {
				output_index: 1,
				item_id: 'fc_call_w',
				delta: '"Oslo"}',
			}),
			responsesEvent('response.output_text.delta', {
				output_index: 0,
				content_index: 0,
				delta: 'ing.',
			}),
			// The final response's output is not read when the items were streamed.
			completed([{ type: 'message', content: [outputText('ignored')] }]),
		]);
		expect(streamed.finished()).toBe(true);
		const turn = responsesDialect.parseResponse(streamed.result(), names);
		expect(turn).toEqual(responsesDialect.parseResponse(responsesBody(output), names));
		expect(turn.toolCalls[1]).toMatchObject({
			id: 'call_e',
			arguments: null,
			rawArguments: '{"text":"hi',
		});
	});

	it('finds items by item_id when a server leaves out output_index', () => {
		const streamed = assemble([
			responsesEvent('response.output_item.added', {
				item: { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'echo', arguments: '' },
			}),
			responsesEvent('response.output_item.added', {
				item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
			}),
			responsesEvent('response.function_call_arguments.delta', { item_id: 'fc_1', delta: '{}' }),
			responsesEvent('response.output_text.delta', { item_id: 'msg_1', delta: 'Hi' }),
			completed(),
		]);
		expect(responsesDialect.parseResponse(streamed.result(), names).message).toEqual({
			role: 'assistant',
			content: 'Hi',
			tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{}' } }],
		});
	});

	it('opens a new item on each output_item.added from a server that sends neither output_index nor ids', () => {
		const streamed = assemble([
			responsesEvent('response.output_item.added', {
				item: { type: 'message', role: 'assistant', content: [] },
			}),
			responsesEvent('response.output_text.delta', { delta: 'Checking.' }),
			responsesEvent('response.output_item.added', {
				item: { type: 'function_call', call_id: 'c1', name: 'echo', arguments: '' },
			}),
			responsesEvent('response.function_call_arguments.delta', { delta: '{}' }),
			completed(),
		]);
		expect(responsesDialect.parseResponse(streamed.result(), names).message).toEqual({
			role: 'assistant',
			content: 'Checking.',
			tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{}' } }],
		});
	});

	it('keeps the streamed arguments when output_item.done brings the item without them', () => {
		const item = { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'echo' };
		const streamed = assemble([
			responsesEvent('response.output_item.added', { output_index: 0, item }),
			responsesEvent('response.function_call_arguments.delta', {
				output_index: 0,
				delta: '{"text":"hi"}',
			}),
			responsesEvent('response.output_item.done', {
				output_index: 0,
				item: { ...item, status: 'completed' },
			}),
			completed(),
		]);
		expect(streamed.result().output).toEqual([
			{ ...item, status: 'completed', arguments: '{"text":"hi"}' },
		]);
	});

	it.each<[string, unknown]>([
		['a JSON null event', null],
		['an event that is a list', []],
	])('ignores %s and keeps the rest of the stream', (_label, malformed) => {
		const streamed = assemble([
			created,
			responsesEvent('response.output_item.added', { output_index: 0, item: responsesMessage() }),
			malformed as ResponsesStreamEvent,
			responsesEvent('response.output_text.delta', { output_index: 0, delta: 'Hi' }),
			completed(),
		]);
		expect(streamed.finished()).toBe(true);
		expect(responsesDialect.parseResponse(streamed.result(), names).message.content).toBe('Hi');
	});

	it('assembles a streamed refusal', () => {
		const streamed = assemble([
			responsesEvent('response.output_item.added', {
				output_index: 0,
				item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
			}),
			responsesEvent('response.content_part.added', {
				output_index: 0,
				content_index: 0,
				part: { type: 'refusal', refusal: '' },
			}),
			responsesEvent('response.refusal.delta', {
				output_index: 0,
				content_index: 0,
				delta: 'I cannot ',
			}),
			responsesEvent('response.refusal.delta', {
				output_index: 0,
				content_index: 0,
				delta: 'help.',
			}),
			completed(),
		]);
		expect(responsesDialect.parseResponse(streamed.result(), names).message.content).toBe(
			'I cannot help.',
		);
	});

	it('takes the output of the last response from a server that streams no item events', () => {
		const streamed = assemble([created, completed([responsesMessage(outputText('Whole.'))])]);
		expect(responsesDialect.parseResponse(streamed.result(), names).message.content).toBe('Whole.');
	});

	it('leaves the pushed events as they came', () => {
		const item = { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'echo', arguments: '' };
		const done = { ...item, arguments: '{}', status: 'completed' };
		const assembler = assemble([
			responsesEvent('response.output_item.added', { output_index: 0, item }),
			responsesEvent('response.function_call_arguments.delta', { output_index: 0, delta: '{}' }),
			responsesEvent('response.output_item.done', { output_index: 0, item: done }),
			// A late delta must not reach the done event's item either.
			responsesEvent('response.function_call_arguments.delta', { output_index: 0, delta: 'x' }),
		]);
		expect([item.arguments, done.arguments]).toEqual(['', '{}']);
		expect(assembler.result().output).toEqual([{ ...done, arguments: '{}x' }]);
	});

	it('finishes on response.incomplete, with the reason of its response', () => {
		const incomplete = responsesBody([], {
			status: 'incomplete',
			incomplete_details: { reason: 'max_output_tokens' },
		});
		const streamed = assemble([
			created,
			responsesEvent('response.incomplete', { response: incomplete }),
		]);
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
			responsesEvent('response.failed', {
				response: responsesBody([], {
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

	// OpenAI nests the error; the nested form is checked with the other dialects' streamed errors.
	it('ends the turn on an error event flat, as the SDK types have it, and carries its message', () => {
		const fields = { code: 'insufficient_quota', message: 'Quota exceeded.', param: null };
		const streamed = assemble([created, responsesEvent('error', fields)]);
		expect(streamed.finished()).toBe(true);
		expect(() => responsesDialect.parseResponse(streamed.result(), names)).toThrow(
			'The model API returned an error: Quota exceeded.',
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

	it("reads the vendor's words from error bodies", () => {
		expect(
			responsesDialect.http.errorMessage({
				error: { message: 'Invalid schema', type: 'invalid_request_error' },
			}),
		).toBe('Invalid schema');
	});
});
