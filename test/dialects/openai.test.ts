import type { Conversation } from '../../lib/conversation/types';
import { createOpenAIDialect, openaiDialect } from '../../lib/dialects/openai';
import { openaiToolNames } from '../../lib/dialects/openai/names';
import type {
	OpenAIChoice,
	OpenAIChunk,
	OpenAICompletion,
	OpenAIResponseMessage,
} from '../../lib/dialects/openai/wire';
import type { ModelSettings } from '../../lib/dialects/types';
import { echoWithoutSchema, loose, weatherWithUnit } from '../support/dialectTools';

// The vendor bodies below are written by hand in the shape of openai 7.59's type definitions
// (OpenAICompletion, OpenAIChunk) and the notes in the wire-format reference; none is a capture.

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

	it('sends none of our own keys', () => {
		const { body } = openaiDialect.buildRequest(conversation, settings);
		expect(JSON.stringify(body)).not.toMatch(
			/structuredContent|attachments|isError|mcpName|annotations|outputSchema/,
		);
	});

	it('passes the plain tool choices through', () => {
		for (const toolChoice of ['auto', 'required', 'none'] as const) {
			expect(
				openaiDialect.buildRequest(conversation, { ...settings, toolChoice }).body.tool_choice,
			).toBe(toolChoice);
		}
	});

	it('leaves out tools, tool_choice and parallel_tool_calls when there are no tools', () => {
		const { body } = openaiDialect.buildRequest(
			{ tools: [], messages: [{ role: 'user', content: 'Hi' }] },
			{ ...settings, toolChoice: 'required', parallelToolCalls: true },
		);
		expect(body).toEqual({
			model: 'gpt-test',
			stream: false,
			messages: [{ role: 'user', content: 'Hi' }],
		});
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

	it('maps a history call to a tool no longer offered to a legal name', () => {
		const { body, names } = openaiDialect.buildRequest(
			{
				tools: [],
				messages: [
					{
						role: 'assistant',
						content: null,
						tool_calls: [
							{ id: 'c1', type: 'function', function: { name: 'old.tool', arguments: '{}' } },
						],
					},
				],
			},
			settings,
		);
		expect(body.messages).toEqual([
			{
				role: 'assistant',
				content: null,
				tool_calls: [
					{ id: 'c1', type: 'function', function: { name: 'old_tool', arguments: '{}' } },
				],
			},
		]);
		expect(names.fromVendor('old_tool')).toBe('old.tool');
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

function completion(
	message: Partial<OpenAIResponseMessage>,
	extra: Partial<OpenAIChoice> = {},
): OpenAICompletion {
	return {
		id: 'chatcmpl-1',
		object: 'chat.completion',
		created: 1_700_000_000,
		model: 'gpt-test',
		choices: [
			{
				index: 0,
				finish_reason: 'stop',
				logprobs: null,
				message: { role: 'assistant', content: null, refusal: null, ...message },
				...extra,
			},
		],
		usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
	};
}

describe('parseResponse', () => {
	const names = openaiToolNames(['weather.get', 'echo']);

	it('reads a text answer', () => {
		expect(openaiDialect.parseResponse(completion({ content: 'It is 3 °C.' }), names)).toEqual({
			message: { role: 'assistant', content: 'It is 3 °C.' },
			toolCalls: [],
			finish: 'stop',
			finishReason: 'stop',
			usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
		});
	});

	it('reads tool calls by their presence, maps names back, keeps ids and synthesizes missing ones', () => {
		const body = completion(
			{
				tool_calls: [
					{
						id: 'call_x',
						type: 'function',
						function: { name: 'weather_get', arguments: '{"city":"Oslo"}' },
					},
					{ id: '', type: 'function', function: { name: 'echo', arguments: '' } },
					{ type: 'function', function: { name: 'nope', arguments: '{"a":1,}' } },
					{ id: 'call_x', type: 'function', function: { name: 'echo', arguments: '[1]' } },
				],
			},
			// Some servers report "stop" although the model called tools.
			{ finish_reason: 'stop' },
		);
		expect(openaiDialect.parseResponse(body, names)).toEqual({
			message: {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: 'call_x',
						type: 'function',
						function: { name: 'weather.get', arguments: '{"city":"Oslo"}' },
					},
					{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '' } },
					{ id: 'call_2', type: 'function', function: { name: 'nope', arguments: '{"a":1,}' } },
					{ id: 'call_3', type: 'function', function: { name: 'echo', arguments: '[1]' } },
				],
			},
			toolCalls: [
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
				{
					id: 'call_3',
					name: 'echo',
					arguments: null,
					rawArguments: '[1]',
					argumentsError: 'must be a JSON object, got array',
				},
			],
			finish: 'tool_calls',
			finishReason: 'stop',
			usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
		});
	});

	it('keeps arguments that a server sent as an object, as JSON text', () => {
		const body = completion({
			tool_calls: [
				{
					id: 'c',
					type: 'function',
					function: { name: 'echo', arguments: { text: 'hi' } },
				},
			],
		});
		const turn = openaiDialect.parseResponse(body, names);
		expect(turn.toolCalls).toEqual([
			{ id: 'c', name: 'echo', arguments: { text: 'hi' }, rawArguments: '{"text":"hi"}' },
		]);
	});

	it('reads missing arguments as no arguments', () => {
		const body = completion({
			tool_calls: [{ id: 'c', type: 'function', function: { name: 'echo' } }],
		});
		expect(openaiDialect.parseResponse(body, names).toolCalls).toEqual([
			{ id: 'c', name: 'echo', arguments: {}, rawArguments: '' },
		]);
	});

	it('keeps text sent beside tool calls', () => {
		const body = completion({
			content: 'Let me check.',
			tool_calls: [{ id: 'c', type: 'function', function: { name: 'echo', arguments: '{}' } }],
		});
		expect(openaiDialect.parseResponse(body, names).message.content).toBe('Let me check.');
	});

	it('ignores custom tool calls, which are never offered', () => {
		const body = completion({
			tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'x', input: 'y' } } as never],
		});
		expect(openaiDialect.parseResponse(body, names)).toMatchObject({
			message: { role: 'assistant', content: null },
			toolCalls: [],
		});
	});

	it('keeps a refusal as the answer text', () => {
		const turn = openaiDialect.parseResponse(
			completion({ refusal: 'I cannot help with that.' }),
			names,
		);
		expect(turn.message).toEqual({ role: 'assistant', content: 'I cannot help with that.' });
	});

	it('leaves out usage when the body has none and reports a missing finish reason as null', () => {
		const body = {
			...completion({ content: 'x' }, { finish_reason: undefined }),
			usage: undefined,
		};
		expect(openaiDialect.parseResponse(body, names)).toEqual({
			message: { role: 'assistant', content: 'x' },
			toolCalls: [],
			finish: 'other',
			finishReason: null,
		});
	});

	it.each<[string, unknown, string]>([
		[
			'an OpenAI error body',
			{ error: { message: 'Invalid schema for function', type: 'invalid_request_error' } },
			'The model API returned an error: Invalid schema for function',
		],
		[
			'an error string',
			{ error: 'model not found' },
			'The model API returned an error: model not found',
		],
		[
			'a vLLM error body',
			{ object: 'error', message: 'max_tokens is too large', code: 400 },
			'The model API returned an error: max_tokens is too large',
		],
		['a detail body', { detail: 'Not Found' }, 'The model API returned an error: "Not Found"'],
		[
			'no choices',
			{ id: 'x', choices: [] },
			'The model API response has no choices[0].message: {"id":"x","choices":[]}',
		],
		[
			'a choice without a message',
			{ choices: [{ index: 0 }] },
			'The model API response has no choices[0].message: {"choices":[{"index":0}]}',
		],
		[
			'not an object',
			'Bad Gateway',
			'The model API returned an error: not a JSON object: "Bad Gateway"',
		],
	])('throws a clear error for %s', (_label, body, message) => {
		expect(() => openaiDialect.parseResponse(body as OpenAICompletion, names)).toThrow(
			new Error(message),
		);
	});
});

function chunk(choices: unknown[], extra: Record<string, unknown> = {}): OpenAIChunk {
	return {
		id: 'chatcmpl-1',
		object: 'chat.completion.chunk',
		created: 1_700_000_000,
		model: 'gpt-test',
		choices,
		...extra,
	} as OpenAIChunk;
}

function assemble(chunks: OpenAIChunk[]): OpenAICompletion {
	const assembler = openaiDialect.createStreamAssembler();
	for (const c of chunks) assembler.push(c);
	return assembler.result();
}

describe('createStreamAssembler', () => {
	const names = openaiToolNames(['weather.get', 'echo']);
	const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

	const nonStreamed = completion(
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
		chunk(
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
		chunk([
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
		chunk([
			{
				index: 0,
				delta: { tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] },
				finish_reason: null,
			},
		]),
		// Calls may interleave; each fragment names its call by index.
		chunk([
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
		chunk(
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
		chunk([
			{
				index: 0,
				delta: { tool_calls: [{ index: 1, function: { arguments: 'xt":"hi' } }] },
				finish_reason: null,
			},
		]),
		chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
		// The usage-only chunk that include_usage adds at the end.
		chunk([], { usage }),
	];

	it('assembles fragments into the body a non-streamed call returns', () => {
		const body = assemble(streamed);
		expect(body).toEqual({
			id: 'chatcmpl-1',
			object: 'chat.completion',
			created: 1_700_000_000,
			model: 'gpt-test',
			choices: [
				{
					index: 0,
					finish_reason: 'tool_calls',
					logprobs: null,
					message: {
						role: 'assistant',
						content: '',
						refusal: null,
						tool_calls: [
							{
								id: 'call_w',
								type: 'function',
								function: { name: 'weather_get', arguments: '{"city":"Oslo","unit":"C"}' },
							},
							{
								id: 'call_e',
								type: 'function',
								function: { name: 'echo', arguments: '{"text":"hi' },
							},
						],
					},
				},
			],
			usage,
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

	it('gives the same ModelTurn for a text answer split into pieces', () => {
		const text = completion({ content: 'It is 3 °C in Oslo.' });
		const pieces = ['It ', 'is 3 ', '°C', ' in Oslo.'].map((content) =>
			chunk([{ index: 0, delta: { content }, finish_reason: null }]),
		);
		const body = assemble([
			chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
			...pieces,
			chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
			chunk([], { usage }),
		]);
		expect(openaiDialect.parseResponse(body, names)).toEqual(
			openaiDialect.parseResponse(text, names),
		);
	});

	it('synthesizes the same ids as the non-streamed path when the server sends none', () => {
		const body = assemble([
			chunk([
				{
					index: 0,
					delta: { tool_calls: [{ index: 0, function: { name: 'echo', arguments: '{}' } }] },
					finish_reason: null,
				},
			]),
			chunk([
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

	it('follows servers that leave out the fragment index or repeat the name', () => {
		const body = assemble([
			chunk([
				{
					index: 0,
					delta: { tool_calls: [{ id: 'a', function: { name: 'echo', arguments: '{"x"' } }] },
					finish_reason: null,
				},
			]),
			chunk([
				{
					index: 0,
					delta: { tool_calls: [{ function: { name: 'echo', arguments: ':1}' } }] },
					finish_reason: null,
				},
			]),
			chunk([
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

	it('ignores choices other than the first', () => {
		const body = assemble([
			chunk([
				{ index: 0, delta: { content: 'A' }, finish_reason: null },
				{ index: 1, delta: { content: 'B' }, finish_reason: null },
			]),
		]);
		expect(body.choices?.[0].message?.content).toBe('A');
	});

	it('carries a streamed error to the parser', () => {
		const body = assemble([
			chunk([{ index: 0, delta: { content: 'Hel' }, finish_reason: null }]),
			{ error: { message: 'upstream overloaded' } },
		]);
		expect(() => openaiDialect.parseResponse(body, names)).toThrow(
			'The model API returned an error: upstream overloaded',
		);
	});

	it('yields a body without choices for an empty stream, which the parser refuses', () => {
		expect(() => openaiDialect.parseResponse(assemble([]), names)).toThrow(
			/has no choices\[0\]\.message/,
		);
	});
});

describe('openaiDialect round trip', () => {
	it('maps names out in the request and back in the response', () => {
		const { names } = openaiDialect.buildRequest({ tools: [weather], messages: [] }, settings);
		const body = completion({
			tool_calls: [
				{
					id: 'c',
					type: 'function',
					function: { name: 'weather_get', arguments: '{"city":"Oslo"}' },
				},
			],
		});
		const turn = openaiDialect.parseResponse(body, names);
		expect(turn.toolCalls[0]).toEqual({
			id: 'c',
			name: 'weather.get',
			arguments: { city: 'Oslo' },
			rawArguments: '{"city":"Oslo"}',
		});
		// The next request writes the call back under the vendor's name.
		const next = openaiDialect.buildRequest(
			{ tools: [weather], messages: [turn.message] },
			settings,
		);
		expect(next.body.messages).toEqual([
			{
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: 'c',
						type: 'function',
						function: { name: 'weather_get', arguments: '{"city":"Oslo"}' },
					},
				],
			},
		]);
	});
});
