import { connect } from 'node:net';
import OpenAI from 'openai';
import type {
	ChatCompletionChunk,
	ChatCompletionCreateParams,
	ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import {
	reply,
	startChatCompletionsStandIn,
	type ChatCompletionsStandIn,
} from '../support/chatCompletionsStandIn';

const tools: ChatCompletionCreateParams['tools'] = [
	{
		type: 'function',
		function: {
			name: 'get_weather',
			description: 'Current weather in a city',
			parameters: {
				type: 'object',
				properties: { city: { type: 'string' } },
				required: ['city'],
				additionalProperties: false,
			},
		},
	},
	{
		type: 'function',
		function: {
			name: 'search',
			parameters: { type: 'object', properties: { q: { type: 'string' } } },
		},
	},
];
const messages: ChatCompletionCreateParams['messages'] = [
	{ role: 'system', content: 'Use the tools.' },
	{ role: 'user', content: 'Weather in Paris, and news about "Café"?' },
];
// The second call's arguments are broken on purpose: the SDK must pass them through untouched.
const scriptedCalls = [
	{ id: 'call_weather1', name: 'get_weather', arguments: '{"city":"Paris"}' },
	{ id: 'call_search22', name: 'search', arguments: '{"q":"say \\"Café\\" 😀", "limit": 3' },
];
const expectedToolCalls: ChatCompletionMessageToolCall[] = [
	{
		id: 'call_weather1',
		type: 'function',
		function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
	},
	{
		id: 'call_search22',
		type: 'function',
		function: { name: 'search', arguments: '{"q":"say \\"Café\\" 😀", "limit": 3' },
	},
];
const usage = {
	prompt_tokens: 57,
	completion_tokens: 31,
	total_tokens: 88,
};

let api: ChatCompletionsStandIn;
let client: OpenAI;

beforeEach(async () => {
	api = await startChatCompletionsStandIn();
	client = new OpenAI({ apiKey: 'sk-test-key', baseURL: api.baseURL, maxRetries: 2 });
});

afterEach(async () => {
	await api.close();
});

/** Assembles streamed tool-call fragments by index, as a client must. */
function assembleToolCalls(chunks: ChatCompletionChunk[]) {
	const calls: Array<{ id: string; type: string; function: { name: string; arguments: string } }> =
		[];
	for (const chunk of chunks) {
		for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
			calls[fragment.index] ??= { id: '', type: '', function: { name: '', arguments: '' } };
			const call = calls[fragment.index];
			if (fragment.id) call.id = fragment.id;
			if (fragment.type) call.type = fragment.type;
			if (fragment.function?.name) call.function.name += fragment.function.name;
			call.function.arguments += fragment.function?.arguments ?? '';
		}
	}
	return calls;
}

describe('non-streamed replies', () => {
	it('serves tool calls the SDK parses, and records what the client sent', async () => {
		api.script(reply.toolCalls(scriptedCalls, { usage }));

		const completion = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages,
			tools,
			tool_choice: 'required',
		});

		expect(completion.object).toBe('chat.completion');
		expect(completion.id).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
		expect(completion.model).toBe('gpt-4o-mini');
		expect(completion.system_fingerprint).toMatch(/^fp_[0-9a-f]{10}$/);
		expect(completion.choices).toHaveLength(1);
		expect(completion.choices[0].finish_reason).toBe('tool_calls');
		expect(completion.choices[0].message).toEqual({
			role: 'assistant',
			content: null,
			tool_calls: expectedToolCalls,
			refusal: null,
			annotations: [],
		});
		expect(completion.usage).toEqual(usage);

		expect(api.requests).toHaveLength(1);
		const [sent] = api.requests;
		expect(sent.method).toBe('POST');
		expect(sent.path).toBe('/v1/chat/completions');
		expect(sent.headers.authorization).toBe('Bearer sk-test-key');
		expect(sent.headers['content-type']).toBe('application/json');
		expect(sent.headers['x-stainless-lang']).toBe('js');
		expect(sent.headers['x-stainless-retry-count']).toBe('0');
		expect(sent.body).toEqual({ model: 'gpt-4o-mini', messages, tools, tool_choice: 'required' });
		expect(api.remaining()).toBe(0);
	});

	it('serves text with default usage, the requested model echoed and no tool_calls key', async () => {
		api.script(reply.text('Bonjour from Paris.'));

		const completion = await client.chat.completions.create({ model: 'gpt-4.1', messages });

		expect(completion.model).toBe('gpt-4.1');
		expect(completion.choices[0].finish_reason).toBe('stop');
		expect(completion.choices[0].message).toEqual({
			role: 'assistant',
			content: 'Bonjour from Paris.',
			refusal: null,
			annotations: [],
		});
		expect(completion.usage?.total_tokens).toBe(30);
		expect(api.requests[0].body?.stream).toBeUndefined();
	});

	it('leaves usage out and names another model when scripted so', async () => {
		api.script(
			reply.text('Truncated', { usage: null, finishReason: 'length', model: 'gpt-4o-2024-08-06' }),
		);

		const completion = await client.chat.completions.create({ model: 'gpt-4o', messages });

		expect(completion).not.toHaveProperty('usage');
		expect(completion.model).toBe('gpt-4o-2024-08-06');
		expect(completion.choices[0].finish_reason).toBe('length');
	});
});

describe('streamed replies', () => {
	it('streams the same tool calls in fragments, with a usage chunk, as the SDK reads them', async () => {
		const withoutIds = scriptedCalls.map(({ name, arguments: args }) => ({
			name,
			arguments: args,
		}));
		const turn = reply.toolCalls(withoutIds, { usage });
		api.script(turn, turn);

		const whole = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
		const stream = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages,
			tools,
			stream: true,
			stream_options: { include_usage: true },
		});
		const chunks: ChatCompletionChunk[] = [];
		for await (const chunk of stream) chunks.push(chunk);

		// Generated ids are fixed per turn, so both replies name the calls alike.
		const wholeCalls = whole.choices[0].message.tool_calls;
		expect(wholeCalls?.map((c) => c.id)).toEqual([
			expect.stringMatching(/^call_[A-Za-z0-9]{24}$/),
			expect.stringMatching(/^call_[A-Za-z0-9]{24}$/),
		]);
		const assembled = assembleToolCalls(chunks);
		expect(assembled).toEqual(wholeCalls);
		expect(assembled.map((c) => c.function.arguments)).toEqual(
			scriptedCalls.map((c) => c.arguments),
		);

		const first = chunks[0];
		expect(first.object).toBe('chat.completion.chunk');
		expect(first.choices[0].delta).toMatchObject({ role: 'assistant', content: null });
		expect(chunks.slice(1).every((c) => c.choices[0]?.delta.role === undefined)).toBe(true);
		expect(new Set(chunks.map((c) => c.id)).size).toBe(1);

		for (const index of [0, 1]) {
			const fragments = chunks
				.flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
				.filter((f) => f.index === index);
			expect(fragments.length).toBeGreaterThan(3);
			expect(fragments[0]).toMatchObject({
				id: wholeCalls?.[index].id,
				type: 'function',
				function: { name: scriptedCalls[index].name, arguments: '' },
			});
			for (const later of fragments.slice(1)) {
				expect(Object.keys(later)).toEqual(['index', 'function']);
				expect(Object.keys(later.function ?? {})).toEqual(['arguments']);
			}
		}

		const [finish, last] = chunks.slice(-2);
		expect(finish.choices).toEqual([
			{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' },
		]);
		expect(finish.usage).toBeNull();
		expect(last.choices).toEqual([]);
		expect(last.usage).toEqual(usage);
		expect(
			chunks.every((c) => typeof c.obfuscation === 'string' && c.service_tier === 'default'),
		).toBe(true);

		expect(api.requests[1].body).toMatchObject({
			stream: true,
			stream_options: { include_usage: true },
			tools,
		});
	});

	it('streams text in several deltas without usage unless asked, and obfuscation only when not turned off', async () => {
		const text = 'It is 18°C and sunny in Paris — enjoy!';
		api.script(reply.text(text));

		const stream = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages,
			stream: true,
			stream_options: { include_obfuscation: false },
		});
		const chunks: ChatCompletionChunk[] = [];
		for await (const chunk of stream) chunks.push(chunk);

		expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
		const deltas = chunks.map((c) => c.choices[0].delta.content).filter((d) => d);
		expect(deltas.length).toBeGreaterThan(5);
		expect(deltas.join('')).toBe(text);
		expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');
		expect(chunks.some((c) => 'usage' in c || 'obfuscation' in c)).toBe(false);
	});

	it('streams text sent before the calls ahead of them, and an answer with no calls at all', async () => {
		api.script(
			reply.toolCalls([{ id: 'call_a', name: 'get_weather', arguments: '{}' }], {
				content: 'Checking.',
			}),
			reply.toolCalls([]),
		);
		const read = async () => {
			const chunks: ChatCompletionChunk[] = [];
			const stream = await client.chat.completions.create({
				model: 'gpt-4o-mini',
				messages,
				tools,
				stream: true,
			});
			for await (const chunk of stream) chunks.push(chunk);
			return chunks.map((c) => c.choices[0]);
		};

		const withText = await read();
		expect(withText[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
		const firstCall = withText.findIndex((c) => c.delta.tool_calls);
		expect(withText.slice(1, firstCall).map((c) => c.delta.content)).toEqual([
			'C',
			'heck',
			'in',
			'g.',
		]);
		expect(withText[firstCall].delta).toEqual({
			tool_calls: [
				{
					index: 0,
					id: 'call_a',
					type: 'function',
					function: { name: 'get_weather', arguments: '' },
				},
			],
		});

		const empty = await read();
		expect(empty).toEqual([
			{
				index: 0,
				delta: { role: 'assistant', content: null, refusal: null },
				logprobs: null,
				finish_reason: null,
			},
			{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' },
		]);
	});

	it('writes SSE frames byte for byte as OpenAI does', async () => {
		api.script(
			reply.toolCalls([{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' }], {
				usage,
			}),
		);

		const response = await fetch(`${api.baseURL}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				model: 'm',
				messages,
				tools,
				stream: true,
				stream_options: { include_usage: true },
			}),
		});
		const wire = await response.text();

		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
		expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
		expect(wire.endsWith('}\n\ndata: [DONE]\n\n')).toBe(true);
		const frames = wire.split('\n\n').slice(0, -1);
		expect(frames.every((f) => f.startsWith('data: '))).toBe(true);
		const argumentPieces = frames
			.slice(0, -1)
			.map((f) => JSON.parse(f.slice('data: '.length)) as ChatCompletionChunk)
			.flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
			.map((f) => f.function?.arguments);
		expect(argumentPieces).toEqual(['', '{', '"cit', 'y"', ':"Oslo"', '}']);
	});

	it('makes the SDK iteration throw when the stream is cut', async () => {
		api.script(reply.cutStream(3, reply.toolCalls(scriptedCalls)));

		const stream = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages,
			tools,
			stream: true,
		});
		const received: ChatCompletionChunk[] = [];
		await expect(
			(async () => {
				for await (const chunk of stream) received.push(chunk);
			})(),
		).rejects.toThrow('terminated');

		expect(received).toHaveLength(3);
		expect(received.every((c) => c.choices[0].finish_reason === null)).toBe(true);
		// A response that started cannot be retried.
		expect(api.requests).toHaveLength(1);
	});

	it('drops a non-streamed reply mid-body when cut', async () => {
		api.script(reply.cutStream(0));

		await expect(
			client.chat.completions.create({ model: 'gpt-4o-mini', messages }),
		).rejects.toThrow('terminated');
		expect(api.requests).toHaveLength(1);
	});

	it('serves a raw body, here an error event inside a stream, which the SDK raises', async () => {
		api.script(
			reply.raw(
				200,
				'data: {"error":{"message":"Upstream overloaded","type":"server_error","param":null,"code":null}}\n\n',
				{ 'content-type': 'text/event-stream' },
			),
		);

		const stream = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages,
			stream: true,
		});
		await expect(
			(async () => {
				for await (const chunk of stream) void chunk;
			})(),
		).rejects.toThrow('Upstream overloaded');
	});
});

describe('errors and retries', () => {
	it('lets the SDK wait out Retry-After on a 429 and succeed on the next turn', async () => {
		api.script(reply.rateLimited(1), reply.toolCalls(scriptedCalls));

		const started = Date.now();
		const completion = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages,
			tools,
		});

		// The SDK's own backoff would be under 600 ms: waiting a second shows it read the header.
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		expect(completion.choices[0].message.tool_calls).toEqual(expectedToolCalls);
		expect(api.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
		expect(api.requests[1].body).toEqual(api.requests[0].body);
	});

	it('retries 500s with Retry-After 0 until the script answers', async () => {
		api.script(
			reply.error(500, {}, { 'retry-after': '0' }),
			reply.error(429, { message: 'Slow down' }, { 'retry-after': '0' }),
			reply.text('Finally.'),
		);

		const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });

		expect(completion.choices[0].message.content).toBe('Finally.');
		expect(api.requests).toHaveLength(3);
	});

	it('raises RateLimitError with the vendor body once retries run out', async () => {
		api.script(reply.rateLimited(0), reply.rateLimited(0), reply.rateLimited(0));

		const failure = client.chat.completions.create({ model: 'gpt-4o-mini', messages });

		await expect(failure).rejects.toBeInstanceOf(OpenAI.RateLimitError);
		await expect(failure).rejects.toMatchObject({
			status: 429,
			code: 'rate_limit_exceeded',
			type: 'requests',
		});
		expect(api.requests).toHaveLength(3);
	});

	it("raises BadRequestError with the vendor's message, param and code, without retrying", async () => {
		api.script(
			reply.error(400, {
				message: "Invalid schema for function 'search': None is not of type 'array'.",
				param: 'tools[1].function.parameters',
				code: 'invalid_function_parameters',
			}),
		);

		const failure = client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });

		await expect(failure).rejects.toBeInstanceOf(OpenAI.BadRequestError);
		await expect(failure).rejects.toMatchObject({
			status: 400,
			message: "400 Invalid schema for function 'search': None is not of type 'array'.",
			param: 'tools[1].function.parameters',
			code: 'invalid_function_parameters',
			type: 'invalid_request_error',
		});
		expect(api.requests).toHaveLength(1);
	});

	it('raises AuthenticationError on a scripted 401', async () => {
		api.script(reply.error(401));

		await expect(
			client.chat.completions.create({ model: 'gpt-4o-mini', messages }),
		).rejects.toMatchObject({
			constructor: OpenAI.AuthenticationError,
			code: 'invalid_api_key',
		});
	});

	it('fails at once, naming the cause, when the script runs out', async () => {
		api.script(reply.text('Only one.'));
		await client.chat.completions.create({ model: 'gpt-4o-mini', messages });

		const failure = client.chat.completions.create({ model: 'gpt-4o-mini', messages });

		await expect(failure).rejects.toBeInstanceOf(OpenAI.InternalServerError);
		await expect(failure).rejects.toThrow(
			"500 The stand-in's script ran out: nothing scripted for request 2",
		);
		expect(api.requests).toHaveLength(2);
	});
});

describe('request checks OpenAI makes', () => {
	it.each([
		[
			'a tool message with no call before it',
			{ messages: [...messages, { role: 'tool', tool_call_id: 'call_x', content: '{}' }] },
			"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
			'messages.[2].role',
		],
		[
			'a tool call left unanswered',
			{
				messages: [
					...messages,
					{ role: 'assistant', content: null, tool_calls: expectedToolCalls },
					{ role: 'tool', tool_call_id: 'call_weather1', content: '{"temp":18}' },
					{ role: 'user', content: 'And?' },
				],
			},
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_search22",
			'messages.[4].role',
		],
		[
			'stream_options without stream',
			{ messages, stream_options: { include_usage: true } },
			"The 'stream_options' parameter is only allowed when 'stream' is enabled.",
			'stream_options',
		],
		[
			'tool_choice without tools',
			{ messages, tool_choice: 'auto' },
			"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
			'tool_choice',
		],
		['no messages', {}, "Missing required parameter: 'messages'.", 'messages'],
		['no model', { model: undefined, messages }, 'you must provide a model parameter', null],
	])('rejects %s with 400 and keeps the scripted turn', async (_case, fields, message, param) => {
		api.script(reply.text('Not served.'));

		const failure = client.chat.completions.create({
			model: 'gpt-4o-mini',
			...fields,
		} as ChatCompletionCreateParams);

		await expect(failure).rejects.toMatchObject({ status: 400, message: `400 ${message}`, param });
		expect(api.remaining()).toBe(1);
	});

	it('accepts a conversation whose tool calls are all answered', async () => {
		api.script(reply.text('Done.'));

		const completion = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			tools,
			messages: [
				...messages,
				{ role: 'assistant', content: null, tool_calls: expectedToolCalls },
				{ role: 'tool', tool_call_id: 'call_search22', content: 'error: bad arguments' },
				{ role: 'tool', tool_call_id: 'call_weather1', content: '{"temp":18}' },
			],
		});

		expect(completion.choices[0].message.content).toBe('Done.');
	});

	it('rejects a body that is not JSON', async () => {
		const response = await fetch(`${api.baseURL}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{"model": "gpt-4o-mini",',
		});

		expect(response.status).toBe(400);
		expect(await response.json()).toMatchObject({
			error: {
				message: expect.stringContaining('We could not parse the JSON body of your request.'),
				param: null,
			},
		});
		expect(api.requests[0].body).toBeUndefined();
	});

	it('answers unknown paths with 404 as OpenAI does', async () => {
		const response = await fetch(`${api.baseURL}/responses`, { method: 'POST', body: '{}' });

		expect(response.status).toBe(404);
		expect(await response.json()).toEqual({
			error: {
				message: 'Invalid URL (POST /v1/responses)',
				type: 'invalid_request_error',
				param: null,
				code: null,
			},
		});
	});
});

describe('models and credentials', () => {
	it('lists the default models', async () => {
		const page = await client.models.list();

		expect(page.data.map((m) => m.id)).toEqual(['gpt-4o-mini', 'gpt-4.1']);
		expect(page.data[0]).toEqual({
			id: 'gpt-4o-mini',
			object: 'model',
			created: 1715367049,
			owned_by: 'system',
		});
		expect(api.requests).toMatchObject([{ method: 'GET', path: '/v1/models', body: undefined }]);
	});

	it('lists configured models and checks the API key when given one', async () => {
		const keyed = await startChatCompletionsStandIn({
			apiKey: 'sk-right',
			models: ['llama-3.3-70b', { id: 'qwen3', object: 'model', created: 1, owned_by: 'alibaba' }],
		});
		try {
			const right = new OpenAI({ apiKey: 'sk-right', baseURL: keyed.baseURL });
			const wrong = new OpenAI({ apiKey: 'sk-wrong', baseURL: keyed.baseURL });

			const page = await right.models.list();
			expect(page.data).toEqual([
				{ id: 'llama-3.3-70b', object: 'model', created: 1715367049, owned_by: 'system' },
				{ id: 'qwen3', object: 'model', created: 1, owned_by: 'alibaba' },
			]);
			await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
			const anonymous = await fetch(`${keyed.baseURL}/models`);
			expect(anonymous.status).toBe(401);
			expect(await anonymous.json()).toMatchObject({
				error: { message: expect.stringMatching(/^You didn't provide an API key\./), code: null },
			});
			await expect(
				wrong.chat.completions.create({ model: 'qwen3', messages }),
			).rejects.toMatchObject({
				status: 401,
				code: 'invalid_api_key',
			});
			expect(keyed.requests.map((r) => r.headers.authorization)).toEqual([
				'Bearer sk-right',
				'Bearer sk-wrong',
				undefined,
				'Bearer sk-wrong',
			]);
		} finally {
			await keyed.close();
		}
	});
});

it('closes promptly while a request is still arriving', async () => {
	const own = await startChatCompletionsStandIn();
	const { port } = new URL(own.baseURL);
	const socket = connect(Number(port), '127.0.0.1');
	socket.on('error', () => undefined);
	await new Promise((resolve) => socket.once('connect', resolve));
	socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{');
	await new Promise((resolve) => setTimeout(resolve, 50));

	const started = Date.now();
	await own.close();

	expect(Date.now() - started).toBeLessThan(2_000);
	await new Promise((resolve) =>
		socket.closed ? resolve(undefined) : socket.once('close', resolve),
	);
});
