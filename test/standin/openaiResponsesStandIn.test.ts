import { reply, startStandIn } from '../support/standIn/index';
import { standInForEachTest } from '../support/standInPerTest';
import { json, post, scriptedCalls, sseEvents } from './readWire';

const api = standInForEachTest('openaiResponses');
const input = [{ role: 'user', content: 'Weather in Paris, and news about "Café"?' }];
const request = { model: 'gpt-4.1', input };

const create = (body: unknown, headers: Record<string, string> = {}) =>
	post(`${api.baseURL}/responses`, body, headers);

it('serves message and function_call items whole, and streams the same items in sequenced events', async () => {
	const turn = reply.toolCalls(scriptedCalls, { content: 'Let me look.' });
	api.script(turn, turn);

	const whole = await json(await create(request));
	const response = await create({ ...request, stream: true });
	const wire = await response.text();
	const events = sseEvents(wire);

	expect(whole).toMatchObject({
		id: expect.stringMatching(/^resp_[0-9a-f]{50}$/),
		object: 'response',
		status: 'completed',
		model: 'gpt-4.1',
		usage: { input_tokens: 21, output_tokens: 9, total_tokens: 30 },
	});
	expect(whole.output).toEqual([
		{
			id: expect.stringMatching(/^msg_[0-9a-f]{50}$/),
			type: 'message',
			status: 'completed',
			content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Let me look.' }],
			role: 'assistant',
		},
		...scriptedCalls.map((c) => ({
			id: expect.stringMatching(/^fc_[0-9a-f]{50}$/),
			type: 'function_call',
			status: 'completed',
			arguments: c.arguments,
			call_id: expect.stringMatching(/^call_[A-Za-z0-9]{24}$/),
			name: c.name,
		})),
	]);

	expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
	expect(wire).not.toContain('[DONE]');
	expect(events.every(({ event, data }) => event === data.type)).toBe(true);
	expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_e, n) => n));
	const order = events.map((e) => e.data.type).filter((type, n, all) => type !== all[n - 1]);
	const callEvents = [
		'response.output_item.added',
		'response.function_call_arguments.delta',
		'response.function_call_arguments.done',
		'response.output_item.done',
	];
	expect(order).toEqual([
		'response.created',
		'response.in_progress',
		'response.output_item.added',
		'response.content_part.added',
		'response.output_text.delta',
		'response.output_text.done',
		'response.content_part.done',
		'response.output_item.done',
		...callEvents,
		...callEvents,
		'response.completed',
	]);

	const completed = events.at(-1)!.data.response;
	// Generated call ids and item ids are fixed per turn; message ids are made per reply.
	expect(completed.output.slice(1)).toEqual(whole.output.slice(1));
	const byItem = (type: string, item: string) =>
		events
			.filter((e) => e.data.type === type && e.data.item_id === item)
			.map((e) => e.data.delta)
			.join('');
	expect(byItem('response.output_text.delta', completed.output[0].id)).toBe('Let me look.');
	expect(byItem('response.function_call_arguments.delta', completed.output[2].id)).toBe(
		scriptedCalls[1].arguments,
	);
	expect(events[0].data.response).toMatchObject({ status: 'in_progress', output: [], usage: null });
	expect(events[2].data.item).toMatchObject({
		type: 'message',
		status: 'in_progress',
		content: [],
	});
});

it('ends a response cut by max_output_tokens as incomplete', async () => {
	api.script(reply.text('Cut sh', { finishReason: 'length' }));

	const events = sseEvents(await (await create({ ...request, stream: true })).text());

	expect(events.at(-1)?.data).toMatchObject({
		type: 'response.incomplete',
		response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
	});
});

describe('request checks the Responses API makes', () => {
	const call = { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{}' };
	const output = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'ok' });

	it.each([
		[
			'an output for no call',
			{ ...request, input: [...input, output('call_x')] },
			'No tool call found for function call output with call_id call_x.',
			'input',
		],
		[
			'a call left unanswered',
			{ ...request, input: [...input, call] },
			'No tool output found for function call call_a.',
			'input',
		],
		[
			'an unknown previous response',
			{ ...request, previous_response_id: 'resp_gone' },
			"Previous response with id 'resp_gone' not found.",
			'previous_response_id',
		],
		['no model', { input }, "Missing required parameter: 'model'.", 'model'],
	])('rejects %s with 400 and keeps the scripted turn', async (_case, body, message, param) => {
		api.script(reply.text('Not served.'));

		const response = await create(body);

		expect(response.status).toBe(400);
		expect((await json(response)).error).toMatchObject({
			message,
			type: 'invalid_request_error',
			param,
		});
		expect(api.remaining()).toBe(1);
	});

	it('pairs outputs with the calls of a stored previous response', async () => {
		api.script(
			reply.toolCalls([{ id: 'call_p', name: 'get_weather', arguments: '{}' }]),
			reply.text('Sunny.'),
		);
		const first = await json(await create(request));

		const unanswered = await create({
			model: 'gpt-4.1',
			previous_response_id: first.id,
			input: [{ role: 'user', content: 'And?' }],
		});
		const answered = await create({
			model: 'gpt-4.1',
			previous_response_id: first.id,
			input: [output('call_p')],
		});

		expect((await json(unanswered)).error.message).toBe(
			'No tool output found for function call call_p.',
		);
		expect((await json(answered)).output[0].content[0].text).toBe('Sunny.');
	});
});

describe('credentials, errors and cut streams', () => {
	it('checks the Bearer key when given one', async () => {
		const keyed = await startStandIn('openaiResponses', { apiKey: 'sk-right' });
		try {
			const refused = await post(`${keyed.baseURL}/responses`, request, {
				authorization: 'Bearer sk-wrong',
			});

			expect(refused.status).toBe(401);
			expect((await json(refused)).error.code).toBe('invalid_api_key');
		} finally {
			await keyed.close();
		}
	});

	it('sends Retry-After on a 429', async () => {
		api.script(reply.rateLimited(4));

		const limited = await create(request);

		expect(limited.headers.get('retry-after')).toBe('4');
		expect((await json(limited)).error.code).toBe('rate_limit_exceeded');
	});

	it('drops the connection after the scripted number of events', async () => {
		api.script(reply.cutStream(4, reply.toolCalls(scriptedCalls)));

		const response = await create({ ...request, stream: true });

		await expect(response.text()).rejects.toThrow('terminated');
	});
});
