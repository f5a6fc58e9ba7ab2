import { ConnectionPool, type McpConnection } from '../../lib/mcp';
import type { HttpServerConfig } from '../../lib/mcp/config';
import { describeCallFailure } from '../../lib/execution/failures';
import { mcpProxy } from '../support/httpProxy';
import { startHttpServer, stopAllServers } from '../support/servers';

const pool = new ConnectionPool({ maxSize: 4, idleTimeoutMs: 60_000, connectTimeoutMs: 30_000 });
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
	await pool.closeAll();
	await Promise.all(closers.map((close) => close()));
	await stopAllServers();
});

const configFor = (url: string): HttpServerConfig => ({
	transport: 'http',
	url,
	headers: {},
	mode: 'streamableHttp',
});
const sessionOf = (connection: McpConnection) =>
	(connection as unknown as { connected: { transport: { sessionId?: string } } }).connected
		.transport.sessionId;
const countOf = async (connection: McpConnection) =>
	(await connection.callTool('counter', {}, { timeoutMs: 10_000 })).structuredContent?.count;

describe('a Streamable HTTP session', () => {
	it('is replaced when the server forgot it (restarted), the call sent once more and run once', async () => {
		const first = await startHttpServer('fault');
		const config = configFor(first.url);
		const before = await pool.use(config, async (connection) => ({
			count: await countOf(connection),
			session: sessionOf(connection),
		}));
		expect(before.count).toBe(1);
		await first.stop();
		const again = await startHttpServer('fault', {}, first.port);
		const after = await pool.use(config, async (connection) => ({
			count: await countOf(connection),
			session: sessionOf(connection),
			alive: connection.isAlive,
		}));
		// The new process counted the call once: it was sent again after the 404, never twice.
		expect(after).toMatchObject({ count: 1, alive: true });
		expect(after.session).not.toBe(before.session);
		await again.stop();
		const listedAgain = await startHttpServer('fault', {}, first.port);
		// The first request after a restart may be the tool list (List Tools), not a call.
		await expect(
			pool.use(config, (connection) => connection.listTools({ fresh: true })),
		).resolves.toEqual(expect.arrayContaining([expect.objectContaining({ name: 'counter' })]));
		await listedAgain.stop();
	});

	it.each([429, 503])(
		'stays when the server answers one call with HTTP %i: that call fails, saying so, the next runs on the same session',
		async (status) => {
			const server = await startHttpServer('fault');
			const proxy = await refusingProxy(server.url, status);
			const config = configFor(proxy.url);
			const outcome = await pool.use(config, async (connection) => {
				const session = sessionOf(connection);
				await countOf(connection);
				proxy.refuseNextCall();
				const refused = await countOf(connection).catch((error: unknown) => error);
				return { session, refused, next: await countOf(connection), after: sessionOf(connection) };
			});
			expect(outcome.next).toBe(2);
			expect(outcome.after).toBe(outcome.session);
			const { status: callStatus, text } = describeCallFailure(outcome.refused, {
				tool: 'counter',
				stderrTail: '',
			});
			expect(callStatus).toBe('serverError');
			expect(text).toContain(`HTTP ${status}: slow down`);
			expect(text).not.toContain('Could not reach');
			await pool.closeAll();
			await server.stop();
		},
	);
});

/** Passes requests on to the server; answers the next tools/call it is told to refuse with `status`. */
async function refusingProxy(target: string, status: number) {
	const proxy = await mcpProxy(target);
	closers.push(proxy.close);
	return {
		url: proxy.url,
		refuseNextCall: () =>
			proxy.takeNextCall(({ res }) => {
				res.writeHead(status, { 'Content-Type': 'text/plain' }).end('slow down');
			}),
	};
}

describe('a server that cannot be reached between calls', () => {
	it('is described with the reason under fetch\'s "fetch failed" (refused, not found)', async () => {
		const server = await startHttpServer('fault');
		const config = configFor(server.url);
		const failure = await pool.use(config, async (connection) => {
			await countOf(connection);
			await server.stop();
			return countOf(connection).catch((error: unknown) => error);
		});
		const { status, text } = describeCallFailure(failure, { tool: 'counter', stderrTail: '' });
		expect(status).toBe('connectionLost');
		expect(text).toMatch(
			/^Could not reach the MCP server for tool 'counter': .*\((ECONNREFUSED|ECONNRESET|other side closed)\)\.$/,
		);
	});
});

describe('a legacy SSE connection', () => {
	const sseConfig = (url: string): HttpServerConfig => ({ ...configFor(url), mode: 'sse' });

	it('ends with its stream: a call in flight when the server stops fails as a lost connection, not at its timeout', async () => {
		const server = await startHttpServer('fault', { sseOnly: true });
		const started = Date.now();
		const failure = await pool.use(sseConfig(server.sseUrl!), async (connection) => {
			const call = connection
				.callTool('slow', { ms: 60_000 }, { timeoutMs: 30_000 })
				.catch((error: unknown) => error);
			await new Promise((resolve) => setTimeout(resolve, 300));
			await server.stop();
			return call;
		});
		expect(describeCallFailure(failure, { tool: 'slow', stderrTail: '' }).status).toBe(
			'connectionLost',
		);
		expect(Date.now() - started).toBeLessThan(10_000);
	});

	it('is replaced after the server restarted: the next use initializes a new session', async () => {
		const first = await startHttpServer('fault', { sseOnly: true });
		const config = sseConfig(first.sseUrl!);
		const before = await pool.use(config, async (connection) => {
			await countOf(connection);
			return connection;
		});
		await first.stop();
		const again = await startHttpServer('fault', { sseOnly: true }, first.port);
		const after = await pool.use(config, async (connection) => ({
			connection,
			count: await countOf(connection),
		}));
		// The stream that failed closed the old connection; it did not carry on unannounced.
		expect(before.isAlive).toBe(false);
		expect(after.connection).not.toBe(before);
		expect(after.count).toBe(1);
		await again.stop();
	});
});
