import { reply, startStandIn } from '../support/standIn/index';
import { standInForEachTest } from '../support/standInPerTest';
import { json, post, scriptedCalls, sseEvents } from './readWire';

const api = standInForEachTest('gemini');
const key = { 'x-goog-api-key': 'gm-test-key' };
const question = { role: 'user', parts: [{ text: 'Weather in Paris, and news about "Café"?' }] };
const request = { contents: [question] };

const generate = (body: unknown, method = 'generateContent', query = '') =>
	post(`${api.baseURL}/models/gemini-3-pro-preview:${method}${query}`, body, key);
const streamed = async (body: unknown) =>
	sseEvents(await (await generate(body, 'streamGenerateContent', '?alt=sse')).text(), '\r\n\r\n');

it('serves functionCall parts whole, signed on the first, and streams the same parts', async () => {
	const turn = reply.toolCalls(scriptedCalls, { content: 'Let me look.' });
	api.script(turn, turn);

	const whole = await json(await generate(request));
	const chunks = (await streamed(request)).map((e) => e.data);

	expect(api.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1beta$/);
	const [candidate] = whole.candidates;
	expect(candidate).toEqual({
		content: {
			role: 'model',
			parts: [
				{ text: 'Let me look.' },
				{
					functionCall: { name: 'get_weather', args: { city: 'Paris' } },
					thoughtSignature: expect.any(String),
				},
				{ functionCall: { name: 'search', args: { q: 'say "Café" 😀', limit: 3 } } },
			],
		},
		finishReason: 'STOP',
		index: 0,
	});
	expect(whole).toMatchObject({
		usageMetadata: { promptTokenCount: 21, candidatesTokenCount: 9, totalTokenCount: 30 },
		modelVersion: 'gemini-3-pro-preview',
		responseId: expect.any(String),
	});

	const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
	const text = parts.map((p: any) => p.text ?? '').join('');
	const calls = parts.filter((p: any) => p.functionCall);
	expect(text).toBe('Let me look.');
	expect(calls.map((p: any) => p.functionCall)).toEqual(
		candidate.content.parts.slice(1).map((p: any) => p.functionCall),
	);
	expect(calls.map((p: any) => typeof p.thoughtSignature)).toEqual(['string', 'undefined']);
	// Text in pieces, both calls whole in one chunk, then empty text with the finish reason.
	const callChunk = chunks.findIndex((c) => c.candidates[0].content.parts[0].functionCall);
	expect(callChunk).toBeGreaterThan(2);
	expect(chunks[callChunk].candidates[0].content.parts).toHaveLength(2);
	expect(chunks.at(-1)?.candidates[0]).toEqual({
		content: { parts: [{ text: '' }], role: 'model' },
		finishReason: 'STOP',
		index: 0,
	});
	expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
	expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1);
});

it('streams one JSON array without alt=sse, keeps scripted ids and flags arguments that are no object', async () => {
	api.script(
		reply.text('Short answer.', { finishReason: 'length' }),
		reply.toolCalls([{ id: 'fc-1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]),
		reply.toolCalls([{ name: 'search', arguments: '{"q":"cut' }]),
	);

	const response = await generate(request, 'streamGenerateContent');
	const array = JSON.parse(await response.text());
	const withId = await json(await generate(request));
	const malformed = await json(await generate(request));

	expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
	expect(array.map((c: any) => c.candidates[0].content.parts[0].text).join('')).toBe(
		'Short answer.',
	);
	expect(array.at(-1).candidates[0].finishReason).toBe('MAX_TOKENS');
	expect(withId.candidates[0].content.parts[0].functionCall).toEqual({
		name: 'get_weather',
		args: { city: 'Oslo' },
		id: 'fc-1',
	});
	expect(malformed.candidates).toEqual([
		{
			finishReason: 'MALFORMED_FUNCTION_CALL',
			index: 0,
			finishMessage: expect.stringMatching(/^Malformed function call/),
		},
	]);
});

describe('request checks Gemini makes', () => {
	const callTurn = {
		role: 'model',
		parts: [
			{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
			{ functionCall: { name: 'search', args: { q: 'x' } } },
		],
	};
	const response = (name: string) => ({ functionResponse: { name, response: { output: 'ok' } } });

	it.each([
		['no contents', {}, '* GenerateContentRequest.contents: contents is not specified\n'],
		[
			'an OpenAI role',
			{ contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] },
			'Please use a valid role: user, model.',
		],
		[
			'empty parts',
			{ contents: [question, { role: 'model', parts: [] }] },
			'* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n',
		],
		[
			'fewer responses than calls',
			{ contents: [question, callTurn, { role: 'user', parts: [response('get_weather')] }] },
			'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
		],
		[
			'a response with no call before it',
			{ contents: [question, { role: 'user', parts: [response('get_weather')] }] },
			'Please ensure that function response turn comes immediately after a function call turn.',
		],
	])(
		'rejects %s with INVALID_ARGUMENT and keeps the scripted turn',
		async (_case, body, message) => {
			api.script(reply.text('Not served.'));

			const answer = await generate(body);

			expect(answer.status).toBe(400);
			expect(await json(answer)).toEqual({
				error: { code: 400, message, status: 'INVALID_ARGUMENT' },
			});
			expect(api.remaining()).toBe(1);
		},
	);

	it('wants the thoughtSignature it sent echoed on the first functionCall part of the current turn', async () => {
		api.script(reply.toolCalls(scriptedCalls), reply.text('Both done.'));
		const modelTurn = (await json(await generate(request))).candidates[0].content;
		const answers = { role: 'user', parts: [response('get_weather'), response('search')] };
		const unsigned = {
			...modelTurn,
			parts: modelTurn.parts.map(({ functionCall }: any) => ({ functionCall })),
		};

		const refused = await generate({ contents: [question, unsigned, answers] });
		const accepted = await generate({ contents: [question, modelTurn, answers] });

		expect(refused.status).toBe(400);
		expect((await json(refused)).error.message).toBe(
			'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
		);
		expect(accepted.status).toBe(200);
		expect((await json(accepted)).candidates[0].content.parts).toEqual([{ text: 'Both done.' }]);
	});

	it('neither signs nor asks for signatures when told to act as an older model', async () => {
		const older = await startStandIn('gemini', { thoughtSignatures: false });
		try {
			older.script(reply.toolCalls(scriptedCalls), reply.text('Done.'));
			const call = (body: unknown) =>
				post(`${older.baseURL}/models/gemini-2.5-flash:generateContent`, body, key);
			const modelTurn = (await json(await call(request))).candidates[0].content;

			const next = await call({
				contents: [
					question,
					modelTurn,
					{ role: 'user', parts: [response('get_weather'), response('search')] },
				],
			});

			expect(modelTurn.parts.some((p: any) => 'thoughtSignature' in p)).toBe(false);
			expect(next.status).toBe(200);
		} finally {
			await older.close();
		}
	});
});

describe('credentials, errors and cut streams', () => {
	it('takes the key from x-goog-api-key or ?key=, refusing callers without one', async () => {
		const keyed = await startStandIn('gemini', { apiKey: 'gm-right' });
		try {
			keyed.script(reply.text('Hello.'));
			const url = `${keyed.baseURL}/models/gemini-2.5-flash:generateContent`;

			const byQuery = await post(`${url}?key=gm-right`, request);
			const none = await post(url, request);
			const wrong = await post(url, request, { 'x-goog-api-key': 'gm-wrong' });

			expect(byQuery.status).toBe(200);
			expect(await json(none)).toEqual({
				error: {
					code: 403,
					message: expect.stringMatching(/^Method doesn't allow unregistered callers/),
					status: 'PERMISSION_DENIED',
				},
			});
			expect(await json(wrong)).toMatchObject({
				error: {
					code: 400,
					message: 'API key not valid. Please pass a valid API key.',
					details: [{ reason: 'API_KEY_INVALID' }],
				},
			});
		} finally {
			await keyed.close();
		}
	});

	it('tells how long to wait in RetryInfo, not in a header', async () => {
		api.script(reply.rateLimited(3), reply.error(503));

		const limited = await generate(request);
		const overloaded = await generate(request);

		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBeNull();
		expect(await json(limited)).toMatchObject({
			error: {
				code: 429,
				status: 'RESOURCE_EXHAUSTED',
				details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }],
			},
		});
		expect((await json(overloaded)).error).toEqual({
			code: 503,
			message: 'The model is overloaded. Please try again later.',
			status: 'UNAVAILABLE',
		});
	});

	it('drops the connection after the scripted number of chunks', async () => {
		api.script(reply.cutStream(2));

		const response = await generate(request, 'streamGenerateContent', '?alt=sse');

		await expect(response.text()).rejects.toThrow('terminated');
	});

	it('lists models under models/ names', async () => {
		const list = await json(await fetch(`${api.baseURL}/models`, { headers: key }));

		expect(list.models.map((m: any) => m.name)).toEqual([
			'models/gemini-2.5-flash',
			'models/gemini-3-pro-preview',
		]);
		expect(list.models[0].supportedGenerationMethods).toContain('generateContent');
	});
});

it("refuses tools that break Gemini's documented rules, as Gemini does, before using a turn", async () => {
	const declaration = {
		name: `f${'x'.repeat(64)}`,
		parameters: { type: 'OBJECT', properties: {} },
	};
	const refused = await generate({ ...request, tools: [{ functionDeclarations: [declaration] }] });
	expect(refused.status).toBe(400);
	expect((await json(refused)).error).toMatchObject({
		code: 400,
		message: expect.stringMatching(/^Invalid tools: .*name "fx+".*FunctionDeclaration/),
	});
	expect(api.requests).toHaveLength(1);
});
