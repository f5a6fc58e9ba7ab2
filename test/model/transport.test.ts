import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DIALECTS } from '../../lib/dialects/registry';
import { ModelApiError } from '../../lib/model/errors';
import { outboundSend } from '../../lib/model/http';
import { retryDelayMs } from '../../lib/model/retry';
import { callModel, listModels, type ModelCallOptions } from '../../lib/model/transport';

// The model transport against a local HTTP server that misbehaves as real ones and their proxies do.

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterAll(async () => {
	for (const socket of sockets) socket.destroy();
	await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server answering with `handler`; `requests` counts what reached it. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
	const server = createServer((req, res) => {
		served.requests++;
		req.resume();
		handler(req, res);
	});
	servers.push(server);
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const served = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: 0 };
	return served;
}

const options = (more: Partial<ModelCallOptions> = {}): ModelCallOptions => ({
	send: outboundSend(),
	timeoutMs: 2_000,
	maxRetries: 0,
	...more,
});

function call(
	url: string,
	more: Partial<ModelCallOptions> = {},
	{
		dialect = 'openaiChat',
		stream = false,
	}: { dialect?: keyof typeof DIALECTS; stream?: boolean } = {},
) {
	return callModel(
		DIALECTS[dialect],
		{ baseUrl: url, apiKey: 'sk-transport-secret-1', headers: {} },
		{ body: { model: 'm', messages: [] }, model: 'm', stream },
		options(more),
	);
}

const answer = JSON.stringify({
	id: 'chatcmpl-1',
	object: 'chat.completion',
	choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
});

const sse = (...events: unknown[]) =>
	events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);

const chunk = (delta: object, finish: string | null = null) => ({
	id: 'chatcmpl-1',
	object: 'chat.completion.chunk',
	choices: [{ index: 0, delta, finish_reason: finish }],
});

async function failureOf(promise: Promise<unknown>): Promise<ModelApiError> {
	const error = await promise.then(
		() => undefined,
		(thrown: unknown) => thrown,
	);
	expect(error).toBeInstanceOf(ModelApiError);
	return error as ModelApiError;
}

describe('a connection lost while the answer is read', () => {
	it('is a lost connection, retried: the whole answer, a JSON answer to a stream request, the model list', async () => {
		const cut = await serve((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
			res.write(answer.slice(0, 20));
			setTimeout(() => req.socket.destroy(), 20);
		});
		for (const made of [
			() => call(cut.url, { maxRetries: 2 }),
			() => call(cut.url, { maxRetries: 2 }, { stream: true }),
			() =>
				listModels(
					DIALECTS.openaiChat,
					{ baseUrl: cut.url, headers: {} },
					options({ maxRetries: 2 }),
				),
		]) {
			cut.requests = 0;
			const failure = await failureOf(made());
			expect(failure.failure).toBe('connection');
			expect(failure.message).toBe(
				`The connection to the model API at ${cut.url} failed while its answer was read: other side closed`,
			);
			expect(cut.requests).toBe(3);
		}
	});

	it('before the first streamed event is retried, and the retry answers; after it, the stream is cut short', async () => {
		let first = true;
		const flaky = await serve((req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			if (first) {
				first = false;
				res.flushHeaders();
				setTimeout(() => req.socket.destroy(), 20);
				return;
			}
			res.end(sse(chunk({ content: 'hi' }), chunk({}, 'stop'), '[DONE]').join(''));
		});
		const exchange = await call(flaky.url, { maxRetries: 1 }, { stream: true });
		expect(
			exchange.attempts.map((attempt) => [attempt.status, attempt.error !== undefined]),
		).toEqual([
			[200, true],
			[200, false],
		]);
		expect(JSON.stringify(exchange.response)).toContain('"content":"hi"');

		const later = await serve((req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.write(sse(chunk({ content: 'hi' }))[0]);
			setTimeout(() => req.socket.destroy(), 20);
		});
		const failure = await failureOf(call(later.url, { maxRetries: 2 }, { stream: true }));
		expect(failure.failure).toBe('incompleteStream');
		expect(failure.message).toContain('after 1 chunks');
		expect(later.requests).toBe(1);
	});
});

describe('the idle timeout of a stream', () => {
	it('is kept from firing by the keep-alive comments some gateways send while the model thinks', async () => {
		const thinking = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			const beat = setInterval(() => res.write(': PROCESSING\n\n'), 100);
			setTimeout(() => {
				clearInterval(beat);
				res.end(sse(chunk({ content: 'done thinking' }), chunk({}, 'stop'), '[DONE]').join(''));
			}, 900);
		});
		const exchange = await call(thinking.url, { timeoutMs: 400 }, { stream: true });
		expect(JSON.stringify(exchange.response)).toContain('done thinking');
	});

	it('does not lose a finished answer whose server holds the stream open: after [DONE], or after the last event', async () => {
		const holding = await serve((req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			if (req.url!.includes('/messages')) {
				res.write(
					sse(
						{
							type: 'message_start',
							message: {
								id: 'msg_1',
								type: 'message',
								role: 'assistant',
								content: [],
								model: 'm',
								usage: {},
							},
						},
						{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
						{
							type: 'content_block_delta',
							index: 0,
							delta: { type: 'text_delta', text: 'held open' },
						},
						{ type: 'content_block_stop', index: 0 },
						{
							type: 'message_delta',
							delta: { stop_reason: 'end_turn' },
							usage: { output_tokens: 2 },
						},
						{ type: 'message_stop' },
					).join(''),
				);
				return;
			}
			res.write(sse(chunk({ content: 'held open' }), chunk({}, 'stop'), '[DONE]').join(''));
		});
		const started = Date.now();
		const chat = await call(holding.url, { timeoutMs: 5_000 }, { stream: true });
		expect(JSON.stringify(chat.response)).toContain('held open');
		// [DONE] ends it at once; Anthropic's last event has no marker after it: the timeout ends the read.
		expect(Date.now() - started).toBeLessThan(4_000);
		const messages = await call(
			holding.url,
			{ timeoutMs: 300 },
			{ dialect: 'anthropic', stream: true },
		);
		expect(JSON.stringify(messages.response)).toContain('held open');
	});

	it('holds a Timeout longer than a Node timer can (about 24.8 days) instead of firing at once', async () => {
		const slow = await serve((_req, res) => {
			setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(answer), 100);
		});
		const exchange = await call(slow.url, { timeoutMs: 3_000_000_000, maxRetries: 2 });
		expect(exchange.attempts).toHaveLength(1);
		expect(JSON.stringify(exchange.response)).toContain('hello');
	});
});

describe('an error event in a stream', () => {
	it("is the vendor's error, its secrets hidden, in the Responses API's own form too", async () => {
		const events = {
			openaiChat: [
				chunk({ content: 'Hel' }),
				{ error: { message: 'key sk-transport-secret-1 refused' } },
			],
			// The openai SDK's ResponseErrorEvent: the error at the event's top, not under `error`.
			openaiResponses: [
				{ type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } },
				{
					type: 'error',
					code: 'invalid_api_key',
					message: 'Incorrect API key provided: sk-transport-secret-1',
					param: null,
					sequence_number: 1,
				},
			],
		};
		for (const [dialect, stream] of Object.entries(events)) {
			const server = await serve((_req, res) => {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				res.end(sse(...stream).join(''));
			});
			const failure = await failureOf(
				call(server.url, {}, { dialect: dialect as keyof typeof DIALECTS, stream: true }),
			);
			expect(failure.failure).toBe('http');
			expect(failure.message).toContain('[redacted]');
			expect(failure.message).not.toContain('sk-transport-secret-1');
		}
	});
});

describe("a stream's events sent as one JSON array (Gemini without alt=sse)", () => {
	const geminiEvent = (text: string, more: object = {}) => ({
		candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...more }],
	});
	const servedArray = (events: unknown[]) =>
		serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
			res.end(JSON.stringify(events));
		});

	it('are folded as the stream would be', async () => {
		const events = [geminiEvent('Hel'), geminiEvent('lo', { finishReason: 'STOP' })];
		const streamed = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.end(sse(...events).join(''));
		});
		const inOneArray = await servedArray(events);
		const [fromStream, fromArray] = await Promise.all(
			[streamed, inOneArray].map((server) =>
				call(server.url, {}, { dialect: 'gemini', stream: true }),
			),
		);
		expect(fromArray.response).toEqual(fromStream.response);
		expect(JSON.stringify(fromArray.response)).toContain('Hello');
	});

	it('are timed as a stream is: the Timeout bounds the wait for each next piece, not the whole answer', async () => {
		const text = JSON.stringify([
			geminiEvent('a'),
			geminiEvent('b'),
			geminiEvent('c', { finishReason: 'STOP' }),
		]);
		const pieces = text.match(/[\s\S]{1,40}/g)!;
		const steady = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			let next = 0;
			const writer = setInterval(() => {
				if (res.destroyed || next === pieces.length) {
					clearInterval(writer);
					res.end();
				} else res.write(pieces[next++]);
			}, 150);
		});
		// Longer in all than the Timeout, never so long between pieces.
		expect(pieces.length * 150).toBeGreaterThan(1_000);
		const exchange = await call(
			steady.url,
			{ timeoutMs: 600, maxRetries: 1 },
			{ dialect: 'gemini', stream: true },
		);
		expect(JSON.stringify(exchange.response)).toContain('abc');
		expect(steady.requests).toBe(1);
	});

	it("fail the call with the vendor's error when one is an error", async () => {
		const server = await servedArray([
			geminiEvent('Hel'),
			{ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
		]);
		const failure = await failureOf(call(server.url, {}, { dialect: 'gemini', stream: true }));
		expect(failure.failure).toBe('http');
		expect(failure.message).toContain('The model is overloaded.');
	});
});

describe('a broken answer', () => {
	it('that never ends is cut off at 64 MB, streamed or not, failing the call with what to check', async () => {
		const mb = Buffer.alloc(1024 * 1024, 'x');
		const endless = await serve((req, res) => {
			res.writeHead(200, {
				'content-type':
					req.headers.accept === 'text/event-stream' ? 'text/event-stream' : 'application/json',
			});
			// One line without end, a megabyte at a time, until the client stops reading.
			res.write('data: ');
			const more = () => {
				while (!res.destroyed && res.write(mb));
				if (!res.destroyed) res.once('drain', more);
			};
			more();
		});
		for (const stream of [false, true]) {
			const failure = await failureOf(call(endless.url, { timeoutMs: 30_000 }, { stream }));
			expect(failure.failure).toBe('invalidResponse');
			expect(failure.message).toBe(
				"The model API's answer passed 64 MB, more than any model answer, and was not read further: check the base URL",
			);
		}
	});

	it('a redirect to something that is not a URL fails the call as an invalid answer, without sending again', async () => {
		const redirecting = await serve((_req, res) => {
			res.writeHead(302, { location: 'http://[bad' }).end();
		});
		const failure = await failureOf(call(redirecting.url, { maxRetries: 2 }));
		expect(failure.failure).toBe('invalidResponse');
		expect(failure.message).toBe(
			'The server redirected to something that is not a URL: http://[bad',
		);
		expect(redirecting.requests).toBe(1);
	});

	it('an empty Retry-After asks for nothing: the back-off is used, not an immediate retry', () => {
		for (const headers of [{ 'retry-after': '' }, { 'retry-after-ms': ' ' }]) {
			const delay = retryDelayMs(1, { status: 429, headers, body: [] });
			expect(delay).toBeGreaterThanOrEqual(375);
			expect(delay).toBeLessThanOrEqual(500);
		}
		expect(retryDelayMs(1, { status: 429, headers: { 'retry-after': '2' }, body: [] })).toBe(2_000);
	});
});

describe('the wait a rate limit asks for', () => {
	const limited = (headers: Record<string, string>, body: object) =>
		serve((_req, res) => {
			if (limited.count++ === 0) {
				res.writeHead(429, { 'content-type': 'application/json', ...headers });
				res.end(JSON.stringify(body));
			} else res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
		});
	limited.count = 0;
	beforeEach(() => {
		limited.count = 0;
	});

	it("is read from Gemini's RetryInfo in the error body, where no header gives it", async () => {
		const gemini = await limited(
			{},
			{
				error: {
					code: 429,
					message: 'Resource has been exhausted.',
					status: 'RESOURCE_EXHAUSTED',
					details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }],
				},
			},
		);
		const started = Date.now();
		const exchange = await call(gemini.url, { maxRetries: 1 }, { dialect: 'gemini' });
		expect(exchange.attempts.map((attempt) => attempt.status)).toEqual([429, 200]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
	});

	it('fails the call at once, saying so, when it is longer than a call is retried for', async () => {
		const overloaded = await limited(
			{ 'retry-after': '120' },
			{ error: { message: 'Rate limit reached', type: 'requests' } },
		);
		const failure = await failureOf(call(overloaded.url, { maxRetries: 2 }));
		expect(failure.message).toBe(
			'Rate limit reached (the API asked to wait 120 s before trying again, longer than a call is retried for)',
		);
		expect(overloaded.requests).toBe(1);
	});
});

describe("a Base URL's query", () => {
	it('is hidden, but the API version, in the timeout of a model list (no node redacts that message after)', async () => {
		const silent = await serve(() => {
			// Never answers.
		});
		const failure = await failureOf(
			listModels(
				DIALECTS.openaiChat,
				{ baseUrl: `${silent.url}/v1?api-version=2024-10-21&key=gw-query-key-123456`, headers: {} },
				options({ timeoutMs: 200 }),
			),
		);
		expect(failure.failure).toBe('timeout');
		expect(failure.message).toBe(
			`The model API at ${silent.url}/v1?api-version=2024-10-21&key=[redacted] did not answer within 200 ms`,
		);
	});
});
