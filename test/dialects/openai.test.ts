import type { Conversation } from '../../lib/conversation/types';
import { NO_TOKENS } from '../../lib/dialects/usage';
import { createOpenAIDialect, openaiDialect } from '../../lib/dialects/openai';
import { openaiToolNames } from '../../lib/dialects/openai/names';
import type { OpenAIChunk, OpenAICompletion } from '../../lib/dialects/openai/wire';
import type { ModelSettings } from '../../lib/dialects/types';
import { echoWithoutSchema, loose, weatherWithUnit } from '../support/dialectTools';
import { chatChunk, chatCompletion } from '../support/vendorBodies';

// The vendor bodies here and in ../support/vendorBodies.ts are written by hand in the shape of
// openai 7.59's type definitions (ChatCompletion, ChatCompletionChunk) and the notes in the
// wire-format reference; none is a capture.

const [weather, echo] = [weatherWithUnit, echoWithoutSchema];

const settings: ModelSettings = { model: 'gpt-test', toolChoice: 'auto', stream: false };

const conversation: Pick<Conversation, 'messages' | 'tools'> = {
	tools: [weather, echo],
	messages: [
		{ role: 'system', content: 'Be brief.' },
		{ role: 'user', content: 'Weather in Oslo?' },
		{
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
		},
		{
			role: 'tool',
			tool_call_id: 'call_a',
			content: '{"temp":3}',
			name: 'weather.get',
			structuredContent: { temp: 3 },
			attachments: [{ binaryProperty: 'data', kind: 'image', mimeType: 'image/png' }],
		},
		{
			role: 'tool',
			tool_call_id: 'call_b',
			content: 'Error: echo timed out after 5 s',
			isError: true,
			name: 'echo',
		},
		{ role: 'assistant', content: 'Checking.', tool_calls: [] },
	],
};

describe('buildRequest', () => {
	it('sends 128 tools, the limit of Chat Completions, and refuses more before sending, naming the limit', () => {
		const tools = (count: number) =>
			Array.from({ length: count }, (_, i) => ({ ...echo, name: `echo_${i}` }));
		const messages = [{ role: 'user' as const, content: 'x' }];
		expect(
			openaiDialect.buildRequest({ messages, tools: tools(128) }, settings).body.tools,
		).toHaveLength(128);
		expect(() => openaiDialect.buildRequest({ messages, tools: tools(129) }, settings)).toThrow(
			/at most 128 tools .* this conversation has 129\. Send fewer/,
		);
	});

	it('builds the Chat Completions body, our keys stripped and names mapped', () => {
		const { body, names, notStrict } = openaiDialect.buildRequest(conversation, {
			...settings,
			toolChoice: { name: 'weather.get' },
			parallelToolCalls: false,
			temperature: 0.2,
			maxTokens: 500,
		});
		expect(body).toEqual({
			model: 'gpt-test',
			stream: false,
			messages: [
				{ role: 'system', content: 'Be brief.' },
				{ role: 'user', content: 'Weather in Oslo?' },
				{
					role: 'assistant',
					content: null,
					tool_calls: [
						{
							id: 'call_a',
							type: 'function',
							function: { name: 'weather_get', arguments: '{"city":"Oslo"}' },
						},
						{ id: 'call_b', type: 'function', function: { name: 'echo', arguments: '{}' } },
					],
				},
				{ role: 'tool', tool_call_id: 'call_a', content: '{"temp":3}' },
				{ role: 'tool', tool_call_id: 'call_b', content: 'Error: echo timed out after 5 s' },
				{ role: 'assistant', content: 'Checking.' },
			],
			tools: [
				{
					type: 'function',
					function: {
						name: 'weather_get',
						description: 'Current weather',
						parameters: weather.inputSchema,
					},
				},
				{
					type: 'function',
					function: {
						name: 'echo',
						description: 'Echo back',
						parameters: { type: 'object', properties: {} },
					},
				},
			],
			tool_choice: { type: 'function', function: { name: 'weather_get' } },
			parallel_tool_calls: false,
			temperature: 0.2,
			max_completion_tokens: 500,
		});
		expect(names.fromVendor('weather_get')).toBe('weather.get');
		expect(notStrict).toEqual([]);
	});

	it('leaves out parallel_tool_calls when the setting is not given', () => {
		expect(openaiDialect.buildRequest(conversation, settings).body).not.toHaveProperty(
			'parallel_tool_calls',
		);
	});

	it('asks for usage when streaming', () => {
		const { body } = openaiDialect.buildRequest(
			{ tools: [], messages: [] },
			{ ...settings, stream: true },
		);
		expect(body).toEqual({
			model: 'gpt-test',
			messages: [],
			stream: true,
			stream_options: { include_usage: true },
		});
	});

	it('can put the token limit in max_tokens for servers that only read that', () => {
		const dialect = createOpenAIDialect({ maxTokensField: 'max_tokens' });
		const { body } = dialect.buildRequest(
			{ tools: [], messages: [] },
			{ ...settings, maxTokens: 64 },
		);
		expect(body).toEqual({ model: 'gpt-test', messages: [], stream: false, max_tokens: 64 });
	});

	it('sends strict schemas where it can, and names the tools it cannot make strict', () => {
		const { body, notStrict } = openaiDialect.buildRequest(
			{ tools: [weather, echo, loose], messages: [] },
			{ ...settings, strict: true },
		);
		expect(body.tools).toEqual([
			{
				type: 'function',
				function: {
					name: 'weather_get',
					description: 'Current weather',
					strict: true,
					parameters: {
						type: 'object',
						properties: {
							city: { type: 'string' },
							unit: { type: ['string', 'null'], enum: ['C', 'F', null] },
						},
						required: ['city', 'unit'],
						additionalProperties: false,
					},
				},
			},
			{
				type: 'function',
				function: {
					name: 'echo',
					description: 'Echo back',
					strict: true,
					parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
				},
			},
			{ type: 'function', function: { name: 'loose', parameters: loose.inputSchema } },
		]);
		expect(notStrict).toEqual([
			{ name: 'loose', reason: 'additionalProperties must be false, got true (at /)' },
		]);
	});
});

describe('history written by other servers', () => {
	const longId = `chatcmpl-tool-${'0123456789abcdef'.repeat(2)}`; // vLLM's form, 46 characters

	it('shortens call ids past the 40 characters Chat Completions takes, the same for the call and its result', () => {
		const { body } = openaiDialect.buildRequest(
			{
				tools: [],
				messages: [
					{ role: 'user', content: 'Weather?' },
					{
						role: 'assistant',
						content: null,
						tool_calls: [
							{ id: longId, type: 'function', function: { name: 'echo', arguments: '{}' } },
							{ id: 'call_short', type: 'function', function: { name: 'echo', arguments: '{}' } },
						],
					},
					{ role: 'tool', tool_call_id: longId, content: 'sunny' },
					{ role: 'tool', tool_call_id: 'call_short', content: 'sunny' },
				],
			},
			settings,
		);
		const [, assistant, first, second] = body.messages as Array<{
			tool_calls?: Array<{ id: string }>;
			tool_call_id?: string;
		}>;
		const [sent, kept] = assistant.tool_calls!.map((call) => call.id);
		expect(sent.length).toBeLessThanOrEqual(40);
		expect(sent).not.toBe(longId);
		expect(first.tool_call_id).toBe(sent);
		expect([kept, second.tool_call_id]).toEqual(['call_short', 'call_short']);
	});

	it('leaves out an assistant turn that said nothing and called nothing (its null content is refused)', () => {
		const { body } = openaiDialect.buildRequest(
			{
				tools: [],
				messages: [
					{ role: 'user', content: 'Hi' },
					{ role: 'assistant', content: null },
					{ role: 'user', content: 'Go on' },
					{ role: 'assistant', content: '' },
				],
			},
			settings,
		);
		expect(body.messages).toEqual([
			{ role: 'user', content: 'Hi' },
			{ role: 'user', content: 'Go on' },
		]);
	});
});

describe('parseResponse', () => {
	const names = openaiToolNames(['weather.get', 'echo']);

	it('ignores custom tool calls, which are never offered', () => {
		const body = chatCompletion({
			tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'x', input: 'y' } } as never],
		});
		expect(openaiDialect.parseResponse(body, names)).toMatchObject({
			message: { role: 'assistant', content: null },
			toolCalls: [],
		});
	});

	it('keeps a refusal as the answer text', () => {
		const turn = openaiDialect.parseResponse(
			chatCompletion({ refusal: 'I cannot help with that.' }),
			names,
		);
		expect(turn.message).toEqual({ role: 'assistant', content: 'I cannot help with that.' });
	});

	it('leaves out usage when the body has none and reports a missing finish reason as null', () => {
		const body = {
			...chatCompletion({ content: 'x' }, { finish_reason: undefined }),
			usage: undefined,
		};
		expect(openaiDialect.parseResponse(body, names)).toEqual({
			message: { role: 'assistant', content: 'x' },
			toolCalls: [],
			finish: 'other',
			finishReason: null,
			model: 'gpt-test',
			tokens: NO_TOKENS,
		});
	});

	it('reads the calls in tool_calls that are objects, and a tool_calls that is no list as none', () => {
		const call = { id: 'c', type: 'function', function: { name: 'echo', arguments: '{}' } };
		const parse = (toolCalls: unknown) =>
			openaiDialect.parseResponse(chatCompletion({ tool_calls: toolCalls as never }), names);
		expect(parse([null, call]).toolCalls).toEqual([
			{ id: 'c', name: 'echo', arguments: {}, rawArguments: '{}' },
		]);
		expect(parse({}).toolCalls).toEqual([]);
	});

	it('joins the text parts of content sent as a list of parts, as Mistral reasoning models send it', () => {
		const content = [
			{ type: 'thinking', thinking: [{ type: 'text', text: 'The user greets.' }] },
			{ type: 'text', text: 'Hel' },
			{ type: 'text', text: 'lo' },
		];
		const turn = openaiDialect.parseResponse(chatCompletion({ content: content as never }), names);
		expect(turn.message).toEqual({ role: 'assistant', content: 'Hello' });
	});

	it.each<[string, unknown, string]>([
		[
			'an OpenAI error body',
			{ error: { message: 'Invalid schema for function', type: 'invalid_request_error' } },
			'The model API returned an error: Invalid schema for function',
		],
		[
			'a vLLM error body',
			{ object: 'error', message: 'max_tokens is too large', code: 400 },
			'The model API returned an error: max_tokens is too large',
		],
		['a detail body', { detail: 'Not Found' }, 'The model API returned an error: "Not Found"'],
		[
			'a choice without a message',
			{ choices: [{ index: 0 }] },
			'The model API response has no choices[0].message: {"choices":[{"index":0}]}',
		],
	])('throws a clear error for %s', (_label, body, message) => {
		expect(() => openaiDialect.parseResponse(body as OpenAICompletion, names)).toThrow(
			new Error(message),
		);
	});
});

function assemble(chunks: OpenAIChunk[]): OpenAICompletion {
	const assembler = openaiDialect.createStreamAssembler();
	for (const c of chunks) assembler.push(c);
	return assembler.result();
}

describe('createStreamAssembler', () => {
	const names = openaiToolNames(['weather.get', 'echo']);
	const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

	const nonStreamed = chatCompletion(
		{
			content: null,
			tool_calls: [
				{
					id: 'call_w',
					type: 'function',
					function: { name: 'weather_get', arguments: '{"city":"Oslo","unit":"C"}' },
				},
				{ id: 'call_e', type: 'function', function: { name: 'echo', arguments: '{"text":"hi' } },
			],
		},
		{ finish_reason: 'tool_calls' },
	);

	const streamed = [
		chatChunk(
			[
				{
					index: 0,
					delta: { role: 'assistant', content: '' },
					finish_reason: null,
					logprobs: null,
				},
			],
			{ obfuscation: 'aZ9', usage: null },
		),
		chatChunk([
			{
				index: 0,
				delta: {
					tool_calls: [
						{
							index: 0,
							id: 'call_w',
							type: 'function',
							function: { name: 'weather_get', arguments: '' },
						},
					],
				},
				finish_reason: null,
			},
		]),
		chatChunk([
			{
				index: 0,
				delta: { tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] },
				finish_reason: null,
			},
		]),
		// Calls may interleave; each fragment names its call by index.
		chatChunk([
			{
				index: 0,
				delta: {
					tool_calls: [
						{
							index: 1,
							id: 'call_e',
							type: 'function',
							function: { name: 'echo', arguments: '{"te' },
						},
						{ index: 0, function: { arguments: 'ty":"Oslo",' } },
					],
				},
				finish_reason: null,
			},
		]),
		chatChunk(
			[
				{
					index: 0,
					delta: { tool_calls: [{ index: 0, function: { arguments: '"unit":"C"}' } }] },
					finish_reason: null,
					some_new_key: 1,
				},
			],
			{
				system_fingerprint: 'fp_1',
				obfuscation: 'x',
			},
		),
		chatChunk([
			{
				index: 0,
				delta: { tool_calls: [{ index: 1, function: { arguments: 'xt":"hi' } }] },
				finish_reason: null,
			},
		]),
		chatChunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
		// The usage-only chunk that include_usage adds at the end.
		chatChunk([], { usage }),
	];

	it('assembles fragments into the body a non-streamed call returns', () => {
		const body = assemble(streamed);
		// The stream's first delta says content '' where the non-streamed body has null.
		const [choice] = nonStreamed.choices!;
		expect(body).toEqual({
			...nonStreamed,
			choices: [{ ...choice, message: { ...choice.message, content: '' } }],
		});
	});

	it('gives the same ModelTurn streamed and not streamed', () => {
		const turn = openaiDialect.parseResponse(assemble(streamed), names);
		expect(turn).toEqual(openaiDialect.parseResponse(nonStreamed, names));
		expect(turn.toolCalls).toEqual([
			{
				id: 'call_w',
				name: 'weather.get',
				arguments: { city: 'Oslo', unit: 'C' },
				rawArguments: '{"city":"Oslo","unit":"C"}',
			},
			{
				id: 'call_e',
				name: 'echo',
				arguments: null,
				rawArguments: '{"text":"hi',
				argumentsError:
					'not valid JSON: it ends after 11 characters before the JSON is complete (truncated?)',
			},
		]);
	});

	it('synthesizes the same ids as the non-streamed path when the server sends none', () => {
		const body = assemble([
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ index: 0, function: { name: 'echo', arguments: '{}' } }] },
					finish_reason: null,
				},
			]),
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ index: 1, function: { name: 'echo', arguments: '{"a":1}' } }] },
					finish_reason: 'tool_calls',
				},
			]),
		]);
		const turn = openaiDialect.parseResponse(body, names);
		expect(turn.toolCalls.map((call) => call.id)).toEqual(['call_0', 'call_1']);
		expect(turn.message.tool_calls?.map((call) => call.id)).toEqual(['call_0', 'call_1']);
		expect(turn.usage).toBeUndefined();
	});

	// The first fragment of an echo call, its arguments cut: later fragments go on with them.
	const echoOpening = chatChunk([
		{
			index: 0,
			delta: { tool_calls: [{ id: 'a', function: { name: 'echo', arguments: '{"x"' } }] },
			finish_reason: null,
		},
	]);

	it('follows servers that leave out the fragment index or repeat the name', () => {
		const body = assemble([
			echoOpening,
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ function: { name: 'echo', arguments: ':1}' } }] },
					finish_reason: null,
				},
			]),
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ id: 'b', function: { name: 'weather_get', arguments: '{}' } }] },
					finish_reason: 'tool_calls',
				},
			]),
		]);
		expect(body.choices?.[0].message?.tool_calls).toEqual([
			{ id: 'a', type: 'function', function: { name: 'echo', arguments: '{"x":1}' } },
			{ id: 'b', type: 'function', function: { name: 'weather_get', arguments: '{}' } },
		]);
	});

	it("keeps calls apart that all say index 0 but come with their own ids, as Ollama's /v1 sends them", () => {
		const whole = (id: string, name: string, args: string) =>
			chatChunk([
				{
					index: 0,
					delta: {
						tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }],
					},
					finish_reason: null,
				},
			]);
		const body = assemble([
			whole('call_a', 'weather_get', '{"city":"Paris"}'),
			whole('call_b', 'echo', '{"text":"hi"}'),
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ index: 0, function: { arguments: '' } }] },
					finish_reason: 'tool_calls',
				},
			]),
		]);
		expect(body.choices?.[0].message?.tool_calls).toEqual([
			{
				id: 'call_a',
				type: 'function',
				function: { name: 'weather_get', arguments: '{"city":"Paris"}' },
			},
			{ id: 'call_b', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } },
		]);
	});

	it('assembles one call whose later fragments each carry an id of their own but no name', () => {
		const piece = (id: string, fn: Record<string, string>, finish: string | null = null) =>
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ index: 0, id, function: fn }] },
					finish_reason: finish,
				},
			]);
		const body = assemble([
			piece('call_first', { name: 'echo', arguments: '' }),
			piece('call_second', { arguments: '{"text":' }),
			piece('call_third', { arguments: '"hi"}' }, 'tool_calls'),
		]);
		expect(body.choices?.[0].message?.tool_calls).toEqual([
			{
				id: 'call_first',
				type: 'function',
				function: { name: 'echo', arguments: '{"text":"hi"}' },
			},
		]);
	});

	it('keeps a fragment with id null or "" in the call before it when the index is left out', () => {
		const body = assemble([
			echoOpening,
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ id: null, function: { arguments: ':1' } }] },
					finish_reason: null,
				},
			]),
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ id: '', function: { arguments: '}' } }] },
					finish_reason: 'tool_calls',
				},
			]),
		]);
		expect(body.choices?.[0].message?.tool_calls).toEqual([
			{ id: 'a', type: 'function', function: { name: 'echo', arguments: '{"x":1}' } },
		]);
	});

	it('takes call arguments sent as a JSON object as their JSON text, as the non-streamed path does', () => {
		const call = {
			id: 'c',
			type: 'function',
			function: { name: 'echo', arguments: { text: 'hi' } },
		};
		const body = assemble([
			chatChunk([
				{ index: 0, delta: { tool_calls: [{ index: 0, ...call }] }, finish_reason: null },
			]),
			chatChunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
		]);
		expect(body.choices?.[0].message?.tool_calls?.[0].function?.arguments).toBe('{"text":"hi"}');
		const nonStreamed = chatCompletion(
			{ content: null, tool_calls: [call as never] },
			{ finish_reason: 'tool_calls' },
		);
		expect(openaiDialect.parseResponse(body, names).toolCalls).toEqual(
			openaiDialect.parseResponse(nonStreamed, names).toolCalls,
		);
	});

	it('joins the text parts of deltas whose content is a list of parts', () => {
		const body = assemble([
			chatChunk([
				{
					index: 0,
					delta: { content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Hm.' }] }] },
					finish_reason: null,
				},
			]),
			chatChunk([
				{ index: 0, delta: { content: [{ type: 'text', text: 'Hel' }] }, finish_reason: null },
			]),
			chatChunk([{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }]),
		]);
		expect(openaiDialect.parseResponse(body, names).message.content).toBe('Hello');
	});

	it.each<[string, unknown]>([
		['a JSON null chunk', null],
		['choices that are no list', chatChunk({} as never)],
		['a choice that is null', chatChunk([null])],
		['a delta that is null', chatChunk([{ index: 0, delta: null, finish_reason: null }])],
		['tool_calls that are no list', chatChunk([{ index: 0, delta: { tool_calls: {} } }])],
		['a call fragment that is null', chatChunk([{ index: 0, delta: { tool_calls: [null] } }])],
	])('ignores %s and keeps the rest of the stream', (_label, malformed) => {
		const fragment = { index: 0, id: 'c', function: { name: 'echo', arguments: '{}' } };
		const body = assemble([
			chatChunk([{ index: 0, delta: { content: 'Hi' }, finish_reason: null }]),
			malformed as OpenAIChunk,
			chatChunk([{ index: 0, delta: { tool_calls: [fragment] }, finish_reason: null }]),
			chatChunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
		]);
		expect(openaiDialect.parseResponse(body, names).message).toEqual({
			role: 'assistant',
			content: 'Hi',
			tool_calls: [{ id: 'c', type: 'function', function: { name: 'echo', arguments: '{}' } }],
		});
	});

	it('ignores choices other than the first', () => {
		const body = assemble([
			chatChunk([
				{ index: 0, delta: { content: 'A' }, finish_reason: null },
				{ index: 1, delta: { content: 'B' }, finish_reason: null },
			]),
		]);
		expect(body.choices?.[0].message?.content).toBe('A');
	});
});
