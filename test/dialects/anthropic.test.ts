import type { AssistantMessage, Conversation, Message, Tool } from '../../lib/conversation/types';
import { NO_TOKENS } from '../../lib/dialects/usage';
import { anthropicDialect } from '../../lib/dialects/anthropic';
import { anthropicFinish } from '../../lib/dialects/anthropic/finish';
import { ANTHROPIC_BASE_URL, anthropicHttp } from '../../lib/dialects/anthropic/http';
import { anthropicToolNames, anthropicToolUseIds } from '../../lib/dialects/anthropic/names';
import type { AnthropicMessage, AnthropicStreamEvent } from '../../lib/dialects/anthropic/wire';
import type { EndpointConfig, ModelSettings } from '../../lib/dialects/types';
import { echoText, weather } from '../support/dialectTools';
import { anthropicMessage } from '../support/vendorBodies';

// The vendor bodies here and in ../support/vendorBodies.ts are written by hand in the shape of
// Anthropic's Messages API reference and @anthropic-ai/sdk's type definitions (Message,
// RawMessageStreamEvent); except where a test names its source, none is a capture.

const echo = echoText;

const settings: ModelSettings = { model: 'claude-test', toolChoice: 'auto', stream: false };
const call = (id: string, name: string, args: string) => ({
	id,
	type: 'function' as const,
	function: { name, arguments: args },
});

function build(
	messages: Message[],
	tools: Tool[] = [weather, echo],
	overrides: Partial<ModelSettings> = {},
) {
	return anthropicDialect.buildRequest({ messages, tools }, { ...settings, ...overrides });
}

describe('buildRequest: tool choice', () => {
	const messages: Message[] = [{ role: 'user', content: 'Hi' }];

	it.each<[ModelSettings['toolChoice'], unknown]>([
		['auto', { type: 'auto', disable_parallel_tool_use: true }],
		['required', { type: 'any', disable_parallel_tool_use: true }],
		[{ name: 'echo' }, { type: 'tool', name: 'echo', disable_parallel_tool_use: true }],
		// "none" allows no call at all, so it has no parallel flag.
		['none', { type: 'none' }],
	])('turns parallel calls off on %j', (toolChoice, expected) => {
		expect(
			build(messages, undefined, { toolChoice, parallelToolCalls: false }).body.tool_choice,
		).toEqual(expected);
	});

	it('sends no flag when parallel calls are on or not set: they are on by default', () => {
		expect(build(messages, undefined, { parallelToolCalls: true }).body.tool_choice).toEqual({
			type: 'auto',
		});
	});
});

describe('buildRequest: settings', () => {
	it('sends max_tokens always: the given limit, else 4096', () => {
		expect(build([], [], { maxTokens: 64 }).body.max_tokens).toBe(64);
		expect(build([], []).body.max_tokens).toBe(4096);
	});

	it('passes temperature and stream through', () => {
		expect(build([], [], { temperature: 0, stream: true }).body).toEqual({
			model: 'claude-test',
			max_tokens: 4096,
			messages: [],
			temperature: 0,
			stream: true,
		});
	});
});

describe('buildRequest: names', () => {
	it('maps dotted MCP names to legal names and back', () => {
		const { body, names } = build([], [weather, { name: 'weather_get', inputSchema: {} }]);
		expect(body.tools?.map((tool) => tool.name)).toEqual(['weather_get_2', 'weather_get']);
		expect(names.fromVendor('weather_get_2')).toBe('weather.get');
		expect(names.fromVendor('weather_get')).toBe('weather_get');
		expect(names.fromVendor('unknown_tool')).toBe('unknown_tool');
	});

	it('keeps names of 64 characters and shortens longer ones reversibly', () => {
		const names = anthropicToolNames(['a'.repeat(64), `server.${'b'.repeat(70)}`]);
		expect(names.toVendor('a'.repeat(64))).toBe('a'.repeat(64));
		const long = names.toVendor(`server.${'b'.repeat(70)}`);
		expect(long).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
		expect(names.fromVendor(long)).toBe(`server.${'b'.repeat(70)}`);
	});

	it('makes call ids legal tool_use ids, apart from each other, and the same for call and result', () => {
		const ids = anthropicToolUseIds(['a.b', 'a_b', 'toolu_01X']);
		expect([ids.toVendor('a.b'), ids.toVendor('a_b'), ids.toVendor('toolu_01X')]).toEqual([
			'a_b_2',
			'a_b',
			'toolu_01X',
		]);
		const { body } = build([
			{
				role: 'assistant',
				content: null,
				tool_calls: [call('a.b', 'echo', '{}'), call('a_b', 'echo', '{}')],
			},
			{ role: 'tool', tool_call_id: 'a.b', content: 'one' },
			{ role: 'tool', tool_call_id: 'a_b', content: 'two' },
		]);
		expect(body.messages[1].content).toEqual([
			{ type: 'tool_result', tool_use_id: 'a_b_2', content: 'one' },
			{ type: 'tool_result', tool_use_id: 'a_b', content: 'two' },
		]);
	});
});

describe('buildRequest: tool schemas', () => {
	const schemaOf = (tool: Tool) => build([], [tool]).body.tools?.[0];

	it('sends an empty schema as an object without properties', () => {
		expect(schemaOf({ name: 'ping', inputSchema: {} })).toEqual({
			name: 'ping',
			input_schema: { type: 'object', properties: {} },
		});
	});

	it('adds the type a root schema must name, keeping every other keyword', () => {
		const tool: Tool = {
			name: 'find',
			inputSchema: { properties: { q: { type: 'string' } }, $defs: { x: { type: 'string' } } },
		};
		expect(schemaOf(tool)?.input_schema).toEqual({
			properties: { q: { type: 'string' } },
			$defs: { x: { type: 'string' } },
			type: 'object',
		});
	});

	it('moves a root oneOf or allOf into the description, which may be absent', () => {
		const tool: Tool = {
			name: 'pick',
			inputSchema: {
				type: 'object',
				properties: { a: { type: 'string' }, b: { type: 'string' } },
				oneOf: [{ required: ['a'] }, { required: ['b'] }],
				allOf: [{ minProperties: 1 }],
			},
		};
		expect(schemaOf(tool)).toEqual({
			name: 'pick',
			description:
				'The arguments must also match this JSON Schema: {"oneOf":[{"required":["a"]},{"required":["b"]}],"allOf":[{"minProperties":1}]}',
			input_schema: {
				type: 'object',
				properties: { a: { type: 'string' }, b: { type: 'string' } },
			},
		});
		// The tool keeps its own schema: the executor checks arguments against it.
		expect(tool.inputSchema.oneOf).toBeDefined();
	});

	it('keeps unions below the root, where Anthropic takes them', () => {
		const inputSchema = {
			type: 'object',
			properties: { v: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
		};
		expect(schemaOf({ name: 'v', inputSchema })?.input_schema).toEqual(inputSchema);
	});

	it('takes the title when there is no description', () => {
		expect(schemaOf({ name: 't', title: 'Titled', inputSchema: {} })?.description).toBe('Titled');
	});
});

describe('buildRequest: messages', () => {
	it('joins system messages into `system` and leaves it out when there is none', () => {
		expect(
			build([
				{ role: 'system', content: 'A' },
				{ role: 'user', content: 'Hi' },
				{ role: 'system', content: 'B' },
			]).body.system,
		).toBe('A\n\nB');
		expect(
			build([
				{ role: 'system', content: ' ' },
				{ role: 'user', content: 'Hi' },
			]).body,
		).not.toHaveProperty('system');
	});

	it('merges consecutive user messages into one turn, since roles must alternate', () => {
		expect(
			build([
				{ role: 'user', content: 'One' },
				{ role: 'user', content: 'Two' },
			]).body.messages,
		).toEqual([
			{
				role: 'user',
				content: [
					{ type: 'text', text: 'One' },
					{ type: 'text', text: 'Two' },
				],
			},
		]);
	});

	it('puts tool results before user text in a turn, as the API requires', () => {
		const { body } = build([
			{ role: 'assistant', content: null, tool_calls: [call('toolu_1', 'echo', '{"text":"x"}')] },
			{ role: 'user', content: 'Also this.' },
			{ role: 'tool', tool_call_id: 'toolu_1', content: 'x' },
		]);
		expect(body.messages[1]).toEqual({
			role: 'user',
			content: [
				{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' },
				{ type: 'text', text: 'Also this.' },
			],
		});
	});

	it('leaves out empty text, empty turns and an empty result text, which the API refuses', () => {
		const { body } = build([
			{ role: 'user', content: 'Hi' },
			{ role: 'assistant', content: '', tool_calls: [] },
			{ role: 'user', content: '  ' },
			{ role: 'assistant', content: '', tool_calls: [call('toolu_1', 'echo', '{}')] },
			{ role: 'tool', tool_call_id: 'toolu_1', content: '' },
		]);
		expect(body.messages).toEqual([
			{ role: 'user', content: 'Hi' },
			{
				role: 'assistant',
				content: [{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} }],
			},
			{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] },
		]);
	});

	it('sends an assistant text without calls as a plain string', () => {
		expect(build([{ role: 'assistant', content: 'Done.' }]).body.messages).toEqual([
			{ role: 'assistant', content: 'Done.' },
		]);
	});

	it('keeps arguments that are not a JSON object visible beside an input of {}', () => {
		const { body } = build([
			{ role: 'assistant', content: 'Sure.', tool_calls: [call('toolu_1', 'echo', '[1,2]')] },
		]);
		expect(body.messages[0].content).toEqual([
			{ type: 'text', text: 'Sure.' },
			{
				type: 'text',
				text: '[The arguments of this echo call were not a JSON object, so its input is shown as {}. They were: [1,2]]',
			},
			{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} },
		]);
	});
});

describe('buildRequest: a history of calls without tools', () => {
	it('declares the tools called earlier, none to be called now, as Anthropic refuses tool_use blocks in a request without tools', () => {
		const { body } = build(
			[
				{ role: 'user', content: 'Weather in Oslo?' },
				{ role: 'assistant', content: null, tool_calls: [call('toolu_1', 'weather.get', '{}')] },
				{ role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
				{ role: 'user', content: 'Now sum it up.' },
			],
			[],
		);
		expect(body.tools).toEqual([
			{
				name: 'weather_get',
				description: 'Called earlier in this conversation; not offered now.',
				input_schema: { type: 'object', properties: {} },
			},
		]);
		expect(body.tool_choice).toEqual({ type: 'none' });
		expect(build([{ role: 'user', content: 'Hi' }], []).body).not.toHaveProperty('tools');
	});
});

describe('buildRequest: vendorTurn', () => {
	const thinking = { type: 'thinking', thinking: 'Use the tool.', signature: 'sig==' };
	const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'weather_get', input: { city: 'Oslo' } };
	const turn = (content: unknown[], callId = 'toolu_1'): AssistantMessage => ({
		role: 'assistant',
		content: null,
		tool_calls: [call(callId, 'weather.get', '{"city":"Oslo"}')],
		vendorTurn: { dialect: 'anthropic', content },
	});

	it('echoes Anthropic blocks verbatim, redacted thinking included', () => {
		const redacted = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' };
		expect(build([turn([thinking, redacted, toolUse])]).body.messages).toEqual([
			{ role: 'assistant', content: [thinking, redacted, toolUse] },
		]);
	});

	it('leaves out a blank text block streamed before the call, which the API refuses', () => {
		const blank = { type: 'text', text: '' };
		const cited = { type: 'text', text: '', citations: [{ type: 'char_location' }] };
		expect(build([turn([thinking, blank, toolUse])]).body.messages).toEqual([
			{ role: 'assistant', content: [thinking, toolUse] },
		]);
		expect(build([turn([thinking, cited, toolUse])]).body.messages[0].content).toEqual([
			thinking,
			cited,
			toolUse,
		]);
	});

	it('rebuilds the turn when its calls no longer match the message (edited between nodes)', () => {
		expect(build([turn([thinking, toolUse], 'toolu_other')]).body.messages).toEqual([
			{
				role: 'assistant',
				content: [
					{ type: 'tool_use', id: 'toolu_other', name: 'weather_get', input: { city: 'Oslo' } },
				],
			},
		]);
	});

	it('rebuilds the turn when its text was edited between nodes, rather than send the text it had', () => {
		const said = { type: 'text', text: 'It is sunny.' };
		const edited = { ...turn([thinking, said, toolUse]), content: 'It is raining.' };
		expect(build([edited]).body.messages[0].content).toEqual([
			{ type: 'text', text: 'It is raining.' },
			toolUse,
		]);
	});

	it('gives an echoed call whose input is cut-off text an input of {}, the text kept before it', () => {
		const cut = { ...toolUse, input: '{"city":"Os' };
		expect(build([turn([thinking, cut])]).body.messages[0].content).toEqual([
			thinking,
			{
				type: 'text',
				text: '[The arguments of this weather_get call were not a JSON object, so its input is shown as {}. They were: {"city":"Os]',
			},
			{ ...toolUse, input: {} },
		]);
	});
});

describe('parseResponse', () => {
	const names = anthropicToolNames(['weather.get', 'echo']);

	it('joins text blocks as they are: Anthropic splits one answer around citations', () => {
		const body = anthropicMessage([
			{ type: 'text', text: 'Oslo is ' },
			{ type: 'text', text: 'cold', citations: [{ type: 'char_location', cited_text: 'cold' }] },
			{ type: 'text', text: '.' },
		]);
		expect(anthropicDialect.parseResponse(body, names).message).toEqual({
			role: 'assistant',
			content: 'Oslo is cold.',
		});
	});

	it('keeps server tool blocks as vendorTurn, and reads only client tool_use blocks as calls', () => {
		const content = [
			{
				type: 'server_tool_use',
				id: 'srvtoolu_1',
				name: 'web_search',
				input: { query: 'Oslo weather' },
			},
			{ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
			{ type: 'text', text: 'Checking.' },
			{ type: 'tool_use', id: 'toolu_1', name: 'weather_get', input: { city: 'Oslo' } },
		];
		const turn = anthropicDialect.parseResponse(
			anthropicMessage(content, { stop_reason: 'tool_use' }),
			names,
		);
		expect(turn.message).toEqual({
			role: 'assistant',
			content: 'Checking.',
			tool_calls: [call('toolu_1', 'weather.get', '{"city":"Oslo"}')],
			vendorTurn: { dialect: 'anthropic', content },
		});
		expect(turn.toolCalls).toEqual([
			{
				id: 'toolu_1',
				name: 'weather.get',
				arguments: { city: 'Oslo' },
				rawArguments: '{"city":"Oslo"}',
			},
		]);
	});

	it('leaves out usage when the body has none and skips blocks that are not objects', () => {
		const body = { ...anthropicMessage(['junk', { type: 'text', text: 'Hi' }]), usage: undefined };
		expect(anthropicDialect.parseResponse(body, names)).toEqual({
			message: { role: 'assistant', content: 'Hi' },
			toolCalls: [],
			finish: 'stop',
			finishReason: 'end_turn',
			model: 'claude-test',
			tokens: NO_TOKENS,
		});
	});

	it.each<[string, unknown, string]>([
		[
			'an Anthropic error body',
			{
				type: 'error',
				error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
				request_id: 'req_1',
			},
			'The model API returned an error: max_tokens: Field required (invalid_request_error)',
		],
	])('throws a clear error for %s', (_label, body, text) => {
		expect(() => anthropicDialect.parseResponse(body as AnthropicMessage, names)).toThrow(
			new Error(text),
		);
	});
});

describe('finish', () => {
	it.each<[string | null, boolean, string]>([
		['tool_use', true, 'tool_calls'],
		['end_turn', false, 'stop'],
		['end_turn', true, 'tool_calls'],
		['stop_sequence', false, 'stop'],
		['max_tokens', false, 'length'],
		['max_tokens', true, 'length'],
		['model_context_window_exceeded', false, 'length'],
		['refusal', false, 'content_filter'],
		['pause_turn', false, 'other'],
		['a_new_reason', false, 'other'],
		[null, false, 'other'],
	])('%s (calls: %s) is %s', (reason, hasCalls, finish) => {
		expect(anthropicFinish(reason, hasCalls)).toBe(finish);
	});
});

function assemble(events: unknown[]) {
	const assembler = anthropicDialect.createStreamAssembler();
	for (const event of events) assembler.push(event as AnthropicStreamEvent);
	return assembler;
}

const start = (
	usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 },
	content: unknown[] = [],
) => ({
	type: 'message_start',
	message: {
		id: 'msg_1',
		type: 'message',
		role: 'assistant',
		model: 'claude-test',
		content,
		stop_reason: null,
		stop_sequence: null,
		usage,
	},
});
const blockStart = (index: number, block: Record<string, unknown>) => ({
	type: 'content_block_start',
	index,
	content_block: block,
});
const delta = (index: number, value: Record<string, unknown>) => ({
	type: 'content_block_delta',
	index,
	delta: value,
});
const end = (stopReason: string, usage: Record<string, unknown> = { output_tokens: 5 }) => [
	{ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage },
	{ type: 'message_stop' },
];

describe('createStreamAssembler', () => {
	const names = anthropicToolNames(['weather.get', 'echo']);

	it('is finished only after message_stop, so a cut stream is detected', () => {
		const events = [
			start(),
			blockStart(0, { type: 'text', text: '' }),
			delta(0, { type: 'text_delta', text: 'Hi' }),
			...end('end_turn'),
		];
		expect(assemble(events.slice(0, -2)).finished()).toBe(false);
		// message_delta carries the stop reason, but the turn is over only at message_stop.
		expect(assemble(events.slice(0, -1)).finished()).toBe(false);
		expect(assemble(events).finished()).toBe(true);
		const cut = anthropicDialect.parseResponse(assemble(events.slice(0, -2)).result(), names);
		expect(cut).toMatchObject({ message: { content: 'Hi' }, finish: 'other', finishReason: null });
	});

	it('assembles thinking and its signature into the same turn as the non-streamed body', () => {
		const thinking = {
			type: 'thinking',
			thinking: 'Use the weather tool.',
			signature: 'EqQBCgIYAhIM1gbcDa9GJwZA==',
		};
		const toolUse = {
			type: 'tool_use',
			id: 'toolu_1',
			name: 'weather_get',
			input: { city: 'Oslo' },
		};
		const streamed = assemble([
			start(),
			blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
			delta(0, { type: 'thinking_delta', thinking: 'Use the weather' }),
			delta(0, { type: 'thinking_delta', thinking: ' tool.' }),
			delta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA==' }),
			{ type: 'content_block_stop', index: 0 },
			blockStart(1, { ...toolUse, input: {} }),
			delta(1, { type: 'input_json_delta', partial_json: '{"city": "Oslo"}' }),
			{ type: 'content_block_stop', index: 1 },
			...end('tool_use', { output_tokens: 5 }),
		]);
		const nonStreamed = anthropicMessage([thinking, toolUse], {
			stop_reason: 'tool_use',
			usage: { input_tokens: 10, output_tokens: 5 },
		});
		expect(streamed.result().content).toEqual([thinking, toolUse]);
		expect(anthropicDialect.parseResponse(streamed.result(), names)).toEqual(
			anthropicDialect.parseResponse(nonStreamed, names),
		);
	});

	it('appends only text to a block: a delta without its text, or with something else there, adds nothing', () => {
		const body = assemble([
			start(),
			blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
			delta(0, { type: 'thinking_delta', thinking: 'Hm.' }),
			delta(0, { type: 'thinking_delta' }),
			delta(0, { type: 'signature_delta', signature: 'EqQB' }),
			delta(0, { type: 'signature_delta', signature: null }),
			blockStart(1, { type: 'text', text: '' }),
			delta(1, { type: 'text_delta', text: 'Hi' }),
			delta(1, { type: 'text_delta' }),
			delta(1, { type: 'text_delta', text: 3 }),
			blockStart(2, { type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} }),
			delta(2, { type: 'input_json_delta', partial_json: '{"text":' }),
			delta(2, { type: 'input_json_delta' }),
			delta(2, { type: 'input_json_delta', partial_json: { x: 1 } }),
			delta(2, { type: 'input_json_delta', partial_json: '"hi"}' }),
			...end('tool_use'),
		]).result();
		expect(body.content).toEqual([
			{ type: 'thinking', thinking: 'Hm.', signature: 'EqQB' },
			{ type: 'text', text: 'Hi' },
			{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } },
		]);
	});

	it('appends citations to their text block', () => {
		const citation = {
			type: 'char_location',
			cited_text: 'cold',
			document_index: 0,
			start_char_index: 0,
			end_char_index: 4,
		};
		const body = assemble([
			start(),
			blockStart(0, { type: 'text', text: '' }),
			delta(0, { type: 'citations_delta', citation }),
			delta(0, { type: 'text_delta', text: 'It is cold.' }),
			...end('end_turn'),
		]).result();
		expect(body.content).toEqual([{ type: 'text', text: 'It is cold.', citations: [citation] }]);
	});

	it('keeps tool input that is not a JSON object as text, for the guard to report', () => {
		const body = assemble([
			start(),
			blockStart(0, { type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} }),
			delta(0, { type: 'input_json_delta', partial_json: '[1, 2]' }),
			...end('tool_use'),
		]).result();
		expect(anthropicDialect.parseResponse(body, names).toolCalls).toEqual([
			{
				id: 'toolu_1',
				name: 'echo',
				arguments: null,
				rawArguments: '[1, 2]',
				argumentsError: 'must be a JSON object, got array',
			},
		]);
	});

	it('keeps the input a tool_use block started with when no JSON follows', () => {
		const body = assemble([
			start(),
			blockStart(0, { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } }),
			...end('tool_use'),
		]).result();
		expect(body.content).toEqual([
			{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } },
		]);
	});

	it('reads blocks a message_start already holds (as in the vercel/ai capture message-start-prepopulated-content)', () => {
		const toolUse = {
			type: 'tool_use',
			id: 'toolu_followup',
			name: 'lookup_customer',
			input: { id: 'customer_123' },
		};
		const opening = start({ input_tokens: 0, output_tokens: 0 }, [toolUse]);
		const body = assemble([
			{ ...opening, message: { ...opening.message, stop_reason: 'tool_use' } },
			{ type: 'message_stop' },
		]).result();
		const turn = anthropicDialect.parseResponse(body, anthropicToolNames(['lookup_customer']));
		expect(turn.toolCalls).toEqual([
			{
				id: 'toolu_followup',
				name: 'lookup_customer',
				arguments: { id: 'customer_123' },
				rawArguments: '{"id":"customer_123"}',
			},
		]);
		expect(turn.finishReason).toBe('tool_use');
	});

	it('takes the first of repeated message_start events and keeps counts message_delta reports as null', () => {
		const body = assemble([
			start({ input_tokens: 10, cache_read_input_tokens: 4, output_tokens: 1 }),
			start({ input_tokens: 99, output_tokens: 1 }),
			...end('end_turn', { input_tokens: null, cache_read_input_tokens: null, output_tokens: 7 }),
		]).result();
		expect(body.usage).toEqual({ input_tokens: 10, cache_read_input_tokens: 4, output_tokens: 7 });
	});

	it('ignores pings, unknown events and deltas, deltas without a block, and events that are not objects', () => {
		const body = assemble([
			start(),
			'not an event',
			{ type: 'ping' },
			{ type: 'a_future_event', index: 0 },
			delta(3, { type: 'text_delta', text: 'lost' }),
			blockStart(0, { type: 'text', text: '' }),
			delta(0, { type: 'a_future_delta', value: 1 }),
			delta(0, { type: 'text_delta', text: 'Hi' }),
			...end('end_turn'),
		]).result();
		expect(body.content).toEqual([{ type: 'text', text: 'Hi' }]);
	});
});

describe('http', () => {
	const endpoint: EndpointConfig = {
		baseUrl: ANTHROPIC_BASE_URL,
		apiKey: 'sk-ant-test',
		headers: { 'anthropic-beta': 'some-beta' },
	};

	it('calls /v1/messages on the base URL, streamed or not, with SSE framing', () => {
		expect(anthropicHttp.url(endpoint, 'claude-test', false)).toBe(
			'https://api.anthropic.com/v1/messages',
		);
		expect(
			anthropicHttp.url({ ...endpoint, baseUrl: 'http://gateway:4000' }, 'claude-test', true),
		).toBe('http://gateway:4000/v1/messages');
		expect(anthropicHttp.streamFraming).toBe('sse');
	});

	it('sends the key as x-api-key, the required version, and the extra headers', () => {
		expect(anthropicHttp.headers(endpoint)).toEqual({
			'anthropic-beta': 'some-beta',
			'x-api-key': 'sk-ant-test',
			'anthropic-version': '2023-06-01',
		});
		expect(
			anthropicHttp.headers({ baseUrl: 'http://gateway', version: '2024-01-01', headers: {} }),
		).toEqual({
			'anthropic-version': '2024-01-01',
		});
		expect(anthropicHttp.headers({ baseUrl: 'http://gateway', version: '', headers: {} })).toEqual({
			'anthropic-version': '2023-06-01',
		});
	});

	it('lists models from /v1/models, a page of up to 1000', () => {
		expect(anthropicHttp.modelsUrl(endpoint)).toBe(
			'https://api.anthropic.com/v1/models?limit=1000',
		);
		const body = {
			data: [
				{
					type: 'model',
					id: 'claude-sonnet-4-5-20250929',
					display_name: 'Claude Sonnet 4.5',
					created_at: '2025-09-29T00:00:00Z',
				},
				{ type: 'model', id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5' },
				{ display_name: 'no id' },
				'junk',
			],
			has_more: false,
			first_id: 'claude-sonnet-4-5-20250929',
			last_id: 'claude-haiku-4-5',
		};
		expect(anthropicHttp.parseModels(body)).toEqual([
			'claude-sonnet-4-5-20250929',
			'claude-haiku-4-5',
		]);
	});

	it.each<[unknown, string | undefined]>([
		[
			{ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
			'invalid x-api-key (authentication_error)',
		],
		[{ error: { message: 'rate limited' } }, 'rate limited'],
		[{ error: 'Bad gateway' }, 'Bad gateway'],
		[{ type: 'message_stop' }, undefined],
	])('reads the error in %j', (body, expected) => {
		expect(anthropicHttp.errorMessage(body)).toBe(expected);
	});
});

describe('anthropicDialect round trip', () => {
	it('echoes a thinking turn it parsed, and sends its result after it', () => {
		const tools = [weather];
		const { names } = anthropicDialect.buildRequest({ tools, messages: [] }, settings);
		const blocks = [
			{ type: 'thinking', thinking: 'Call it.', signature: 'sig==' },
			{ type: 'tool_use', id: 'toolu_9', name: 'weather_get', input: { city: 'Oslo' } },
		];
		const turn = anthropicDialect.parseResponse(
			anthropicMessage(blocks, { stop_reason: 'tool_use' }),
			names,
		);
		const conversation: Pick<Conversation, 'messages' | 'tools'> = {
			tools,
			messages: [
				{ role: 'user', content: 'Weather?' },
				turn.message,
				{ role: 'tool', tool_call_id: turn.toolCalls[0].id, content: '3 °C', name: 'weather.get' },
			],
		};
		expect(anthropicDialect.buildRequest(conversation, settings).body.messages).toEqual([
			{ role: 'user', content: 'Weather?' },
			{ role: 'assistant', content: blocks },
			{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: '3 °C' }] },
		]);
	});
});
