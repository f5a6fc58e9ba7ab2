/**
 * What a call over HTTP does when the server's response misbehaves: the real fault server behind
 * a proxy on loopback that takes over the answer to one call (test/support/httpProxy.ts).
 */
import { once } from 'node:events';
import type http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { ConnectionPool, type McpConnection } from '../../lib/mcp';
import {
	CallTimeoutError,
	ResultTooLargeError,
	UnansweredCallError,
} from '../../lib/mcp/callErrors';
import type { HttpServerConfig } from '../../lib/mcp/config';
import { describeCallFailure } from '../../lib/execution/failures';
import { mcpProxy, type TakenCall } from '../support/httpProxy';
import { startHttpServer, stopAllServers, type HttpServerHandle } from '../support/servers';

const pool = new ConnectionPool({ maxSize: 4, idleTimeoutMs: 60_000, connectTimeoutMs: 30_000 });
let server: HttpServerHandle;
let proxy: Awaited<ReturnType<typeof mcpProxy>>;
beforeAll(async () => {
	server = await startHttpServer('fault', { hostile: true });
	proxy = await mcpProxy(server.url);
});
afterAll(async () => {
	await pool.closeAll();
	await proxy.close();
	await stopAllServers();
});

const config = (url: string, mode: HttpServerConfig['mode'] = 'streamableHttp') =>
	({ transport: 'http', url, headers: {}, mode }) satisfies HttpServerConfig;
const sessionOf = (connection: McpConnection) =>
	(connection as unknown as { connected: { transport: { sessionId?: string } } }).connected
		.transport.sessionId;
const echo = async (connection: McpConnection, text: string) =>
	(await connection.callTool('echo', { text }, { timeoutMs: 20_000 })).content;

/**
 * Runs `call` on a pooled connection through the proxy, its answer taken over by `answer`, between
 * two calls that work: what it failed with, how long it took, and whether the session stayed.
 */
async function onOneSession(
	answer: (call: TakenCall) => Promise<void> | void,
	call: (connection: McpConnection) => Promise<unknown>,
) {
	return pool.use(config(proxy.url), async (connection) => {
		await echo(connection, 'before');
		const session = sessionOf(connection);
		proxy.takeNextCall(answer);
		const started = Date.now();
		const failure = await call(connection).then(
			(result) => ({ result }),
			(error: unknown) => error,
		);
		const ms = Date.now() - started;
		const after = await echo(connection, 'after');
		return { failure, ms, after, sameSession: sessionOf(connection) === session };
	});
}

const described = (failure: unknown) =>
	describeCallFailure(failure, { tool: 'echo', stderrTail: '' });

describe('a call whose response ends without the answer', () => {
	it('fails at once when the server ends the response stream before answering, and the session stays', async () => {
		const outcome = await onOneSession(
			async ({ forward, res }) => {
				const upstream = await forward();
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				res.end();
				await upstream.body?.cancel();
			},
			(connection) => echo(connection, 'cut'),
		);
		expect(outcome.failure).toBeInstanceOf(UnansweredCallError);
		// Well before the call's 20 s timeout.
		expect(outcome.ms).toBeLessThan(10_000);
		expect(described(outcome.failure)).toEqual({
			status: 'connectionLost',
			text: "The MCP server did not answer the call to tool 'echo': it ended its response without the answer. The call has no result; the tool may or may not have run.",
		});
		expect(outcome.after).toEqual([{ type: 'text', text: 'after' }]);
		expect(outcome.sameSession).toBe(true);
	});

	it('fails at once when the connection drops mid-response, saying so', async () => {
		const outcome = await onOneSession(
			({ res }) => {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				res.write(': the answer is on its way\n\n');
				setTimeout(() => res.destroy(), 50);
			},
			(connection) => echo(connection, 'dropped'),
		);
		expect(outcome.failure).toBeInstanceOf(UnansweredCallError);
		expect(outcome.ms).toBeLessThan(10_000);
		expect(described(outcome.failure).text).toContain(
			'the connection dropped before the answer came',
		);
		expect(outcome.sameSession).toBe(true);
	});

	it('fails at once when the server accepts the request with HTTP 202 and sends nothing', async () => {
		const outcome = await onOneSession(
			({ res }) => {
				res.writeHead(202).end();
			},
			(connection) => echo(connection, 'accepted'),
		);
		expect(outcome.failure).toBeInstanceOf(UnansweredCallError);
		expect(outcome.ms).toBeLessThan(10_000);
		expect(described(outcome.failure).text).toContain(
			'it accepted it (HTTP 202) and sent no answer',
		);
		expect(outcome.sameSession).toBe(true);
	});
});

describe('an error answer that names no request', () => {
	const unnamedError = (id: null | undefined) =>
		JSON.stringify({
			jsonrpc: '2.0',
			error: { code: -32602, message: 'Invalid params: text must be short' },
			id,
		});
	it.each([
		['a JSON body', null, 'application/json', (text: string) => text],
		['a JSON body', undefined, 'application/json', (text: string) => text],
		['an event stream', null, 'text/event-stream', (text: string) => `data: ${text}\n\n`],
		['an event stream', undefined, 'text/event-stream', (text: string) => `data: ${text}\n\n`],
	])(
		"answers the call its response (%s) is for when its id is %p, with the server's words",
		async (_, id, type, body) => {
			const outcome = await onOneSession(
				({ res }) => {
					res.writeHead(200, { 'content-type': type });
					// An event stream stays open: the answer, not its end, must end the call.
					if (type === 'text/event-stream') res.write(body(unnamedError(id)));
					else res.end(body(unnamedError(id)));
				},
				(connection) => echo(connection, 'unnamed'),
			);
			expect(outcome.ms).toBeLessThan(10_000);
			expect(described(outcome.failure)).toEqual({
				status: 'serverError',
				text: "The MCP server refused the call to tool 'echo': Invalid params: text must be short (JSON-RPC error -32602).",
			});
			expect(outcome.sameSession).toBe(true);
		},
	);
});

/**
 * Writes `head`, then `piece` without end, as fast as the client reads; resolves with the bytes
 * written once it stops reading.
 */
async function endless(
	res: http.ServerResponse,
	type: string,
	head: string,
	piece = Buffer.alloc(256 * 1024, 'x'),
) {
	let written = 0;
	let closed = false;
	const close = once(res, 'close').then(() => (closed = true));
	res.writeHead(200, { 'content-type': type });
	res.write(head);
	while (!closed && written < 1024 * 1024 * 1024) {
		written += piece.length;
		if (!res.write(piece)) await Promise.race([once(res, 'drain'), close]);
	}
	res.destroy();
	return written;
}

describe('a response larger than the session reads', () => {
	it.each([
		['an event stream', 'text/event-stream', 'data: {"jsonrpc":"2.0","id":'],
		['a JSON body', 'application/json', '{"jsonrpc":"2.0","id":'],
	])(
		'ends the call at once when %s never ends, reading no further than the limit',
		async (_, type, head) => {
			let written: Promise<number> | undefined;
			const outcome = await onOneSession(
				async ({ res }) => {
					// The id is whatever the client sent: the answer's start names one, the rest never comes.
					written = endless(res, type, `${head}99,"result":{"content":[{"type":"text","text":"`);
					await written;
				},
				(connection) => echo(connection, 'endless'),
			);
			expect(outcome.failure).toBeInstanceOf(ResultTooLargeError);
			expect((outcome.failure as Error).message).toBe(
				'The result is larger than the 10.0 MB allowed (Max Result Size)',
			);
			// 10 MB read, and what the sockets held when reading stopped.
			expect(await written).toBeLessThan(64 * 1024 * 1024);
			expect(outcome.after).toEqual([{ type: 'text', text: 'after' }]);
			expect(outcome.sameSession).toBe(true);
		},
	);

	it('ends the call at once when an event never ends, its data on ever more short lines', async () => {
		let written: Promise<number> | undefined;
		const outcome = await onOneSession(
			async ({ res }) => {
				const head =
					'data: {"jsonrpc":"2.0","id":99,"result":{"content":[{"type":"text","text":"\n';
				written = endless(
					res,
					'text/event-stream',
					head,
					Buffer.from(`data: ${'x'.repeat(500)}\n`),
				);
				await written;
			},
			(connection) => echo(connection, 'endless lines'),
		);
		expect((outcome.failure as Error).message).toBe(
			'The result is larger than the 10.0 MB allowed (Max Result Size)',
		);
		expect(await written).toBeLessThan(64 * 1024 * 1024);
		expect(outcome.sameSession).toBe(true);
	});

	it('ends the call at once when a JSON body declares more than the limit, reading none of it', async () => {
		const outcome = await onOneSession(
			({ res }) => {
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20000000' });
				res.write('{"jsonrpc":"2.0"');
			},
			(connection) => echo(connection, 'declared'),
		);
		expect((outcome.failure as Error).message).toBe(
			'The result is 19.1 MB, more than the 10.0 MB allowed (Max Result Size)',
		);
	});

	it('reads past a large event of another type than message, which is no answer, to the answer', async () => {
		const outcome = await onOneSession(
			async ({ forward, res }) => {
				const upstream = await forward();
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				res.write(`event: debug-log\ndata: {"result":"${'x'.repeat(11 * 1024 * 1024)}"}\n\n`);
				for await (const chunk of upstream.body!) res.write(chunk);
				res.end();
			},
			(connection) => echo(connection, 'past the log'),
		);
		expect(outcome.failure).toEqual({ result: [{ type: 'text', text: 'past the log' }] });
		expect(outcome.sameSession).toBe(true);
	});

	it('reads a large result whole when the call allows it, and names the size of one it does not', async () => {
		const outcome = await pool.use(config(proxy.url), async (connection) => {
			const call = (maxResultBytes?: number) =>
				connection.callTool('huge', { mb: 12 }, { timeoutMs: 30_000, maxResultBytes });
			const allowed = await call(20 * 1024 * 1024);
			const refused = await call().catch((error: unknown) => error);
			return { allowed, refused, after: await echo(connection, 'after') };
		});
		expect((outcome.allowed.content[0] as { text: string }).text).toHaveLength(12 * 1024 * 1024);
		expect((outcome.refused as Error).message).toMatch(
			/^The result is (larger than|12\.0 MB, more than) the 10\.0 MB allowed/,
		);
		expect(outcome.after).toEqual([{ type: 'text', text: 'after' }]);
	});

	it('over the legacy SSE transport, skips the oversized answer on the shared stream and reads on', async () => {
		const outcome = await pool.use(config(server.sseUrl!, 'sse'), async (connection) => {
			const refused = await connection
				.callTool('huge', { mb: 12 }, { timeoutMs: 30_000 })
				.catch((error: unknown) => error);
			return { refused, after: await echo(connection, 'after'), alive: connection.isAlive };
		});
		expect(outcome.refused).toBeInstanceOf(ResultTooLargeError);
		expect((outcome.refused as Error).message).toBe(
			'The result is 12.0 MB, more than the 10.0 MB allowed (Max Result Size)',
		);
		expect(outcome).toMatchObject({ after: [{ type: 'text', text: 'after' }], alive: true });
	});
});

describe('a response stream the server can resume', () => {
	it('is resumed when the server closes it before answering (it gave event ids), and the call gets its answer', async () => {
		const resumable = await startHttpServer('fault', { resumable: true });
		const outcome = await pool.use(config(resumable.url), async (connection) => ({
			result: await connection.callTool('answer_later', { ms: 300 }, { timeoutMs: 20_000 }),
			after: await echo(connection, 'after'),
		}));
		expect(outcome.result.content).toEqual([{ type: 'text', text: 'answered after 300 ms' }]);
		expect(outcome.after).toEqual([{ type: 'text', text: 'after' }]);
		await pool.closeAll();
		await resumable.stop();
	});

	it('fails the call at once, not at its timeout, when the server is gone and cannot resume it', async () => {
		const resumable = await startHttpServer('fault', { resumable: true });
		const failure = await pool.use(config(resumable.url), async (connection) => {
			const call = connection
				.callTool('slow', { ms: 60_000 }, { timeoutMs: 30_000 })
				.catch((error: unknown) => error);
			await delay(300);
			await resumable.stop();
			return call;
		});
		expect(failure).toBeInstanceOf(UnansweredCallError);
		expect(described(failure).text).toMatch(/its stream could not be resumed \(fetch failed/);
		await pool.closeAll();
	});

	it.each([
		['a passing 503, retried as the SDK retries it', 503, { 'retry-after': '1' }],
		["a redirect within the server's origin, followed", 307, { location: '/mcp/' }],
	])('resumes a stream whose first resumption met %s', async (_what, status, headers) => {
		const resumable = await startHttpServer('fault', { resumable: true });
		const proxy = await mcpProxy(resumable.url);
		proxy.answerNextResume(status, headers);
		const result = await pool.use(config(proxy.url), (connection) =>
			connection.callTool('answer_later', { ms: 300 }, { timeoutMs: 20_000 }),
		);
		expect(result.content).toEqual([{ type: 'text', text: 'answered after 300 ms' }]);
		expect(proxy.resumed.length).toBeGreaterThanOrEqual(2);
		await pool.closeAll();
		await proxy.close();
		await resumable.stop();
	});

	it('fails the call at once when its resumption is sent to another origin, where the SDK does not follow', async () => {
		const resumable = await startHttpServer('fault', { resumable: true });
		const proxy = await mcpProxy(resumable.url);
		proxy.answerNextResume(307, { location: 'http://localhost:9/mcp' });
		const failure = await pool.use(config(proxy.url), (connection) =>
			connection
				.callTool('answer_later', { ms: 300 }, { timeoutMs: 30_000 })
				.catch((error: unknown) => error),
		);
		expect(failure).toBeInstanceOf(UnansweredCallError);
		expect(described(failure).text).toContain('its stream could not be resumed (HTTP 307)');
		await pool.closeAll();
		await proxy.close();
		await resumable.stop();
	});

	it('fails the call at once, not at its timeout, when the restarted server no longer knows the session (404)', async () => {
		const first = await startHttpServer('fault', { resumable: true });
		const restartingProxy = await mcpProxy(first.url);
		let restarted: HttpServerHandle | undefined;
		const failure = await pool.use(config(restartingProxy.url), async (connection) => {
			// The stream breaks after its first events (their ids), once the server has restarted.
			restartingProxy.takeNextCall(async ({ forward, res }) => {
				const upstream = await forward();
				res.writeHead(upstream.status, { 'content-type': 'text/event-stream' });
				for await (const chunk of upstream.body!) {
					res.write(chunk);
					break;
				}
				await first.stop();
				restarted = await startHttpServer('fault', { resumable: true }, first.port);
				res.destroy();
			});
			return connection
				.callTool('slow', { ms: 60_000 }, { timeoutMs: 30_000 })
				.catch((error: unknown) => error);
		});
		expect(failure).toBeInstanceOf(UnansweredCallError);
		expect(described(failure).text).toContain('its stream could not be resumed (HTTP 404)');
		expect(restartingProxy.resumed).toHaveLength(1);
		await pool.closeAll();
		await restartingProxy.close();
		await restarted?.stop();
	});
});

describe('a response stream whose lines end in a bare CR, as SSE allows', () => {
	it('is read as any other: its event ids are seen, so that the server resumes it when it closes it early', async () => {
		const resumable = await startHttpServer('fault', { resumable: true });
		const crProxy = await mcpProxy(resumable.url);
		const outcome = await pool.use(config(crProxy.url), async (connection) => {
			crProxy.takeNextCall(async ({ forward, res }) => {
				const upstream = await forward();
				res.writeHead(upstream.status, { 'content-type': 'text/event-stream' });
				for await (const chunk of upstream.body!)
					res.write(
						Buffer.from(chunk as Uint8Array)
							.toString()
							.replaceAll('\n', '\r'),
					);
				// A keep-alive comment: the CR that ended what came before ends its line once more comes.
				res.end(': keep-alive\r');
			});
			return connection.callTool('answer_later', { ms: 300 }, { timeoutMs: 20_000 });
		});
		expect(outcome.content).toEqual([{ type: 'text', text: 'answered after 300 ms' }]);
		expect(crProxy.resumed).toHaveLength(1);
		await pool.closeAll();
		await crProxy.close();
		await resumable.stop();
	});
});

describe('a call that timed out', () => {
	it('closes its response stream rather than keep it open until the server answers', async () => {
		let streamClosed: Promise<number> | undefined;
		const outcome = await onOneSession(
			async ({ forward, relay, res }) => {
				const closed = once(res, 'close').then(() => Date.now());
				streamClosed = closed;
				await relay(await forward()).catch(() => undefined);
			},
			(connection) => connection.callTool('slow', { ms: 8_000 }, { timeoutMs: 300 }),
		);
		expect(outcome.failure).toBeInstanceOf(CallTimeoutError);
		const closedAt = await Promise.race([streamClosed!, delay(5_000, undefined, { ref: false })]);
		// The server answers after 8 s; the stream closed within moments of the timeout.
		expect(closedAt).toBeDefined();
		expect(outcome.sameSession).toBe(true);
	});

	it('does not have the server resume its stream, which would stay open until the tool ends', async () => {
		const resumable = await startHttpServer('fault', { resumable: true });
		const resumableProxy = await mcpProxy(resumable.url);
		const outcome = await pool.use(config(resumableProxy.url), async (connection) => {
			const failure = await connection
				.callTool('slow', { ms: 4_000 }, { timeoutMs: 300 })
				.catch((error: unknown) => error);
			// The SDK asks to resume a stream it lost 100 ms after (the server's retry interval).
			await delay(1_000);
			return { failure, after: await echo(connection, 'after') };
		});
		expect(outcome.failure).toBeInstanceOf(CallTimeoutError);
		expect(outcome.after).toEqual([{ type: 'text', text: 'after' }]);
		expect(resumableProxy.resumed).toEqual([]);
		await pool.closeAll();
		await resumableProxy.close();
		await resumable.stop();
	});
});
