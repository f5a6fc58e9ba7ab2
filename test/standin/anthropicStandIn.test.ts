import { reply, startStandIn } from '../support/standIn/index';
import { standInForEachTest } from '../support/standInPerTest';
import { json, post, scriptedCalls, sseEvents } from './readWire';

const api = standInForEachTest('anthropic');
const headers = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
const messages = [{ role: 'user', content: 'Weather in Paris, and news about "Café"?' }];
const request = { model: 'claude-sonnet-4-5-20250929', max_tokens: 1024, messages };

const send = (body: unknown, extra: Record<string, string> = headers) =>
	post(`${api.baseURL}/v1/messages`, body, extra);

/** The content a client ends up with from a stream: text joined, tool input parsed at content_block_stop. */
function assemble(events: Array<{ event?: string; data: any }>) {
	const blocks: any[] = [];
	const json: string[] = [];
	for (const { data } of events) {
		if (data.type === 'content_block_start') blocks[data.index] = { ...data.content_block };
		if (data.type === 'content_block_delta' && data.delta.type === 'text_delta')
			blocks[data.index].text += data.delta.text;
		if (data.type === 'content_block_delta' && data.delta.type === 'input_json_delta') {
			json[data.index] = (json[data.index] ?? '') + data.delta.partial_json;
		}
		if (data.type === 'content_block_stop' && blocks[data.index].type === 'tool_use') {
			blocks[data.index].input = json[data.index] ? JSON.parse(json[data.index]) : {};
		}
	}
	return blocks;
}

it('serves text and tool_use blocks whole, and streams the same content in named events', async () => {
	const turn = reply.toolCalls(scriptedCalls, { content: 'Let me look.' });
	api.script(turn, turn);

	const whole = await json(await send(request));
	const response = await send({ ...request, stream: true });
	const events = sseEvents(await response.text());

	expect(api.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
	expect(whole).toMatchObject({
		id: expect.stringMatching(/^msg_01[A-Za-z0-9]{22}$/),
		type: 'message',
		role: 'assistant',
		model: request.model,
		stop_reason: 'tool_use',
		stop_sequence: null,
		usage: { input_tokens: 21, output_tokens: 9 },
	});
	expect(whole.content).toEqual([
		{ type: 'text', text: 'Let me look.' },
		{
			type: 'tool_use',
			id: expect.stringMatching(/^toolu_01[A-Za-z0-9]{22}$/),
			name: 'get_weather',
			input: { city: 'Paris' },
		},
		{
			type: 'tool_use',
			id: expect.stringMatching(/^toolu_01/),
			name: 'search',
			input: { q: 'say "Café" 😀', limit: 3 },
		},
	]);
	expect(assemble(events)).toEqual(whole.content);

	expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
	expect(events.every(({ event, data }) => event === data.type)).toBe(true);
	const order = events.map((e) => e.data.type).filter((type, n, all) => type !== all[n - 1]);
	expect(order).toEqual([
		'message_start',
		...['content_block_start', 'ping', 'content_block_delta', 'content_block_stop'],
		...['content_block_start', 'content_block_delta', 'content_block_stop'],
		...['content_block_start', 'content_block_delta', 'content_block_stop'],
		'message_delta',
		'message_stop',
	]);
	expect(events[0].data.message).toMatchObject({
		content: [],
		stop_reason: null,
		usage: { output_tokens: 1 },
	});
	expect(events.at(-2)?.data).toMatchObject({
		delta: { stop_reason: 'tool_use', stop_sequence: null },
		usage: { output_tokens: 9 },
	});
});

it('streams tool input JSON in awkward pieces, an empty input as one empty piece, broken JSON as sent', async () => {
	api.script(
		reply.toolCalls([
			{ id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
			{ id: 'toolu_b', name: 'refresh', arguments: '' },
			{ id: 'toolu_c', name: 'search', arguments: '{"q":"cut' },
		]),
		reply.toolCalls([{ id: 'toolu_c', name: 'search', arguments: '{"q":"cut' }]),
	);

	const events = sseEvents(await (await send({ ...request, stream: true })).text()).map(
		(e) => e.data,
	);
	const whole = await json(await send(request));

	const pieces = (index: number) =>
		events
			.filter((e) => e.type === 'content_block_delta' && e.index === index)
			.map((e) => e.delta.partial_json);
	expect(pieces(0)).toEqual(['{', '"cit', 'y"', ':"Oslo"', '}']);
	expect(pieces(1)).toEqual(['']);
	expect(pieces(2).join('')).toBe('{"q":"cut');
	expect(events.find((e) => e.type === 'content_block_start')?.content_block).toEqual({
		type: 'tool_use',
		id: 'toolu_a',
		name: 'get_weather',
		input: {},
	});
	// Not streamed, Anthropic can only send an object.
	expect(whole.content[0].input).toEqual({});
});

it('maps finish reasons and leaves usage out when scripted so', async () => {
	api.script(reply.text('Cut sh', { finishReason: 'length', usage: null }));

	const whole = await json(await send(request));

	expect(whole.stop_reason).toBe('max_tokens');
	expect(whole).not.toHaveProperty('usage');
});

describe('request checks Anthropic makes', () => {
	const toolUse = {
		role: 'assistant',
		content: [
			{ type: 'text', text: 'Checking.' },
			{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
			{ type: 'tool_use', id: 'toolu_2', name: 'search', input: { q: 'Café' } },
		],
	};
	const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });

	it.each([
		['no max_tokens', { model: 'c', messages }, 'max_tokens: Field required'],
		[
			'no messages',
			{ model: 'c', max_tokens: 5, messages: [] },
			'messages: at least one message is required',
		],
		[
			'a tool_use left unanswered',
			{
				...request,
				messages: [...messages, toolUse, { role: 'user', content: [result('toolu_1')] }],
			},
			'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
		],
		[
			'results after text',
			{
				...request,
				messages: [
					...messages,
					toolUse,
					{
						role: 'user',
						content: [result('toolu_1'), { type: 'text', text: 'and' }, result('toolu_2')],
					},
				],
			},
			'messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.',
		],
		[
			'a result for no tool_use',
			{
				...request,
				messages: [
					...messages,
					{ role: 'assistant', content: 'Hi' },
					{ role: 'user', content: [result('toolu_9')] },
				],
			},
			'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
		],
	])('rejects %s in its error shape and keeps the scripted turn', async (_case, body, message) => {
		api.script(reply.text('Not served.'));

		const response = await send(body);

		expect(response.status).toBe(400);
		expect(await json(response)).toEqual({
			type: 'error',
			error: { type: 'invalid_request_error', message },
			request_id: expect.stringMatching(/^req_011C[A-Za-z0-9]{20}$/),
		});
		expect(api.remaining()).toBe(1);
	});

	it('accepts results that answer every call first, text after them', async () => {
		api.script(reply.text('Done.'));
		const answered = {
			role: 'user',
			content: [result('toolu_2'), result('toolu_1'), { type: 'text', text: 'Go on.' }],
		};

		const response = await send({ ...request, messages: [...messages, toolUse, answered] });

		expect(response.status).toBe(200);
		expect((await json(response)).content).toEqual([{ type: 'text', text: 'Done.' }]);
	});

	it('rejects a body that is not JSON', async () => {
		const response = await send('{"model": "c",');

		expect((await json(response)).error.message).toMatch(/^The request body is not valid JSON: /);
	});
});

describe('credentials, errors and cut streams', () => {
	it('wants a key (x-api-key, or Bearer as the SDK sends it) and anthropic-version, the configured key when given one', async () => {
		const keyed = await startStandIn('anthropic', { apiKey: 'sk-ant-right' });
		try {
			keyed.script(reply.text('Hello.'));
			const call = (extra: Record<string, string>) =>
				post(`${keyed.baseURL}/v1/messages`, request, extra);
			const [none, wrong, noVersion, bearer] = await Promise.all([
				call({ 'anthropic-version': '2023-06-01' }),
				call({ 'x-api-key': 'sk-ant-wrong', 'anthropic-version': '2023-06-01' }),
				call({ 'x-api-key': 'sk-ant-right' }),
				call({ authorization: 'Bearer sk-ant-right', 'anthropic-version': '2023-06-01' }),
			]);

			expect([none.status, wrong.status, noVersion.status, bearer.status]).toEqual([
				401, 401, 400, 200,
			]);
			expect((await json(none)).error).toEqual({
				type: 'authentication_error',
				message: 'x-api-key header is required',
			});
			expect((await json(wrong)).error).toEqual({
				type: 'authentication_error',
				message: 'invalid x-api-key',
			});
			expect((await json(noVersion)).error.message).toBe('anthropic-version: header is required');
		} finally {
			await keyed.close();
		}
	});

	it('sends Retry-After on a 429 and Anthropic error types', async () => {
		api.script(reply.rateLimited(7), reply.error(529));

		const limited = await send(request);
		const overloaded = await send(request);

		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('7');
		expect(limited.headers.get('request-id')).toMatch(/^req_011C/);
		expect((await json(limited)).error.type).toBe('rate_limit_error');
		expect((await json(overloaded)).error).toEqual({
			type: 'overloaded_error',
			message: 'Overloaded',
		});
	});

	it('drops the connection after the scripted number of events', async () => {
		api.script(reply.cutStream(3, reply.toolCalls(scriptedCalls)));

		const response = await send({ ...request, stream: true });

		expect(response.status).toBe(200);
		await expect(response.text()).rejects.toThrow('terminated');
	});

	it('lists models as Anthropic does and answers unknown paths with not_found_error', async () => {
		const models = await json(await fetch(`${api.baseURL}/v1/models`, { headers }));
		const unknown = await post(`${api.baseURL}/v1/complete`, {}, headers);

		expect(models).toEqual({
			data: [
				expect.objectContaining({
					type: 'model',
					id: 'claude-sonnet-4-5-20250929',
					display_name: 'Claude Sonnet 4.5',
				}),
				expect.objectContaining({ type: 'model', id: 'claude-haiku-4-5-20251001' }),
			],
			has_more: false,
			first_id: 'claude-sonnet-4-5-20250929',
			last_id: 'claude-haiku-4-5-20251001',
		});
		expect(unknown.status).toBe(404);
		expect((await json(unknown)).error.type).toBe('not_found_error');
	});
});
