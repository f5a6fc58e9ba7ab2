import { reply, startStandIn } from '../support/standIn/index';
import { standInForEachTest } from '../support/standInPerTest';
import { json, ndjsonLines, post, scriptedCalls } from './readWire';

const api = standInForEachTest('ollama');
const messages = [{ role: 'user', content: 'Weather in Paris, and news about "Café"?' }];
const request = { model: 'llama3.2', messages };

const chat = (body: unknown, headers: Record<string, string> = {}) =>
	post(`${api.baseURL}/api/chat`, body, headers);

it('streams NDJSON unless told not to, calls whole with object arguments, the same content either way', async () => {
	const turn = reply.toolCalls(scriptedCalls, { content: 'Let me look.' });
	api.script(turn, turn);

	const response = await chat(request);
	const lines = ndjsonLines(await response.text());
	const whole = await json(await chat({ ...request, stream: false }));

	expect(api.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
	expect(response.headers.get('content-type')).toBe('application/x-ndjson');
	expect(whole).toMatchObject({
		model: 'llama3.2',
		created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
		message: { role: 'assistant', content: 'Let me look.' },
		done_reason: 'stop',
		done: true,
		prompt_eval_count: 21,
		eval_count: 9,
	});
	expect(whole.message.tool_calls).toEqual([
		{
			id: expect.stringMatching(/^call_[a-z0-9]{8}$/),
			function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } },
		},
		{
			id: expect.stringMatching(/^call_[a-z0-9]{8}$/),
			function: { index: 1, name: 'search', arguments: { q: 'say "Café" 😀', limit: 3 } },
		},
	]);

	expect(lines.map((l) => l.message.content).join('')).toBe('Let me look.');
	expect(lines.flatMap((l) => l.message.tool_calls ?? [])).toEqual(whole.message.tool_calls);
	expect(lines.slice(0, -1).every((l) => l.done === false && !('done_reason' in l))).toBe(true);
	expect(lines.at(-1)).toMatchObject({
		message: { role: 'assistant', content: '' },
		done_reason: 'stop',
		done: true,
		eval_count: 9,
	});
});

it('answers arguments that are no object with the parser error: 500 whole, an error line in a stream', async () => {
	const broken = reply.toolCalls([{ name: 'search', arguments: '{"q":"cut' }]);
	api.script(broken, broken, reply.text('Cut', { finishReason: 'length', usage: null }));

	const whole = await chat({ ...request, stream: false });
	const lines = ndjsonLines(await (await chat(request)).text());
	const truncated = await json(await chat({ ...request, stream: false }));

	expect(whole.status).toBe(500);
	expect(await json(whole)).toEqual({
		error: `error parsing tool call: raw='{"q":"cut', err=unexpected end of JSON input`,
	});
	expect(lines).toEqual([{ error: expect.stringMatching(/^error parsing tool call/) }]);
	expect(truncated.done_reason).toBe('length');
	expect(truncated).not.toHaveProperty('eval_count');
});

describe('request checks Ollama makes', () => {
	it.each([
		[
			'tool results as parts',
			{
				...request,
				messages: [
					...messages,
					{ role: 'tool', tool_name: 'search', content: [{ type: 'text', text: 'ok' }] },
				],
			},
			'json: cannot unmarshal array into Go struct field ChatRequest.messages.content of type string',
		],
		['no model', { messages }, 'model is required'],
		['no body', '', 'missing request body'],
	])('rejects %s with 400 and keeps the scripted turn', async (_case, body, error) => {
		api.script(reply.text('Not served.'));

		const response = await chat(body);

		expect(response.status).toBe(400);
		expect(await json(response)).toEqual({ error });
		expect(api.remaining()).toBe(1);
	});

	it('accepts tool results as strings named by tool_name', async () => {
		api.script(reply.text('Done.'));
		const history = [
			...messages,
			{
				role: 'assistant',
				content: '',
				tool_calls: [{ function: { name: 'search', arguments: { q: 'x' } } }],
			},
			{ role: 'tool', tool_name: 'search', content: '{"hits":1}' },
		];

		const response = await chat({ ...request, messages: history, stream: false });

		expect((await json(response)).message.content).toBe('Done.');
	});
});

describe('credentials, errors and cut streams', () => {
	it('checks a Bearer key only when given one', async () => {
		const keyed = await startStandIn('ollama', { apiKey: 'ol-right' });
		try {
			const refused = await post(`${keyed.baseURL}/api/chat`, request, {
				authorization: 'Bearer ol-wrong',
			});

			expect(refused.status).toBe(401);
			expect(await json(refused)).toEqual({ error: 'unauthorized' });
		} finally {
			await keyed.close();
		}
	});

	it('sends errors as {error} with Retry-After on a 429', async () => {
		api.script(reply.rateLimited(2), reply.error(404, "model 'llama9' not found"));

		const limited = await chat(request);
		const missing = await chat(request);

		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('2');
		expect(await json(missing)).toEqual({ error: "model 'llama9' not found" });
	});

	it('drops the connection after the scripted number of lines', async () => {
		api.script(reply.cutStream(2));

		const response = await chat(request);

		await expect(response.text()).rejects.toThrow('terminated');
	});

	it('lists pulled models at /api/tags and answers unknown paths as Go does', async () => {
		const tags = await json(await fetch(`${api.baseURL}/api/tags`));
		const unknown = await post(`${api.baseURL}/v1/messages`, {});

		expect(tags.models.map((m: any) => m.name)).toEqual(['llama3.2:latest', 'qwen3:8b']);
		expect(tags.models[0].details).toMatchObject({ format: 'gguf', family: 'llama' });
		expect(unknown.status).toBe(404);
		expect(await unknown.text()).toBe('404 page not found');
	});
});
