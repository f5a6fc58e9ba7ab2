/**
 * A request of the server's (elicitation, sampling) larger than the client reads: refused at once
 * with an error the server's tool can report, over every transport, against the real fault server.
 */
import {
	ConnectionPool,
	type McpConnection,
	type McpServerConfig,
	type ServerRequestEvent,
	type ToolCallOptions,
} from '../../lib/mcp';
import path from 'node:path';
import {
	childEnv,
	faultStdio,
	REPO_ROOT,
	startHttpServer,
	stopAllServers,
	type HttpServerHandle,
} from '../support/servers';

const pool = new ConnectionPool({ maxSize: 4, idleTimeoutMs: 60_000, connectTimeoutMs: 30_000 });
let server: HttpServerHandle;
beforeAll(async () => {
	server = await startHttpServer('fault', { hostile: true });
});
afterAll(async () => {
	await pool.closeAll();
	await stopAllServers();
});

const transports: Array<[string, () => McpServerConfig]> = [
	['stdio', () => faultStdio({ name: 'oversized-asks', hostile: true })],
	[
		'Streamable HTTP',
		() => ({ transport: 'http', url: server.url, headers: {}, mode: 'streamableHttp' }),
	],
	['legacy SSE', () => ({ transport: 'http', url: server.sseUrl!, headers: {}, mode: 'sse' })],
];

/** Long enough that a call left waiting for its timeout cannot pass for one that ended at once. */
const TIMEOUT_MS = 30_000;
/** Well within the timeout, with room for moving 11 MB on a loaded machine. */
const AT_ONCE_MS = 10_000;
/** Past the 10 MB a session reads unless a call in flight allows more. */
const OVER_MB = 11;

/** One call, timed, with the server's requests it was told of and what it ended with. */
async function timedCall(
	connection: McpConnection,
	tool: string,
	args: Record<string, unknown>,
	options: Partial<ToolCallOptions> = {},
) {
	const asks: ServerRequestEvent[] = [];
	const started = Date.now();
	const result = await connection.callTool(tool, args, {
		timeoutMs: TIMEOUT_MS,
		...options,
		elicitation: { onServerRequest: (event) => asks.push(event) },
	});
	return { result, asks, ms: Date.now() - started };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe.each(transports)('a server request larger than the client reads, over %s', (_, config) => {
	it.each([
		['elicitation/create', false],
		['sampling/createMessage', true],
	])(
		'%s is refused at once with an error naming the limit; the server fails its tool, the connection goes on',
		async (method, sampling) => {
			const outcome = await pool.use(config(), async (connection) => ({
				call: await timedCall(connection, 'ask_huge', { mb: OVER_MB, sampling }),
				next: await timedCall(connection, 'echo', { text: 'next' }),
				alive: connection.isAlive,
			}));
			const refusal = `The ${method} request is 11.0 MB, more than the 10.0 MB this client reads (Max Result Size); it was refused unread`;
			expect(outcome.call.ms).toBeLessThan(AT_ONCE_MS);
			expect(outcome.call.result.isError).toBe(true);
			expect(textOf(outcome.call.result)).toBe(
				`The ${method} request failed: MCP error -32600: ${refusal}`,
			);
			expect(outcome.call.asks).toEqual([
				{
					method,
					params: undefined,
					requestBytes: expect.any(Number),
					error: refusal,
					tiedBy: expect.stringMatching(/^(stream|only-call)$/),
				},
			]);
			expect(textOf(outcome.next.result)).toBe('next');
			expect(outcome.alive).toBe(true);
		},
	);

	it('is read and answered when a call in flight allows messages that large', async () => {
		const { result, asks } = await pool.use(config(), (connection) =>
			timedCall(
				connection,
				'ask_huge',
				{ mb: OVER_MB },
				{ maxResultBytes: (OVER_MB + 1) * 1024 * 1024 },
			),
		);
		expect(JSON.parse(textOf(result))).toEqual({ action: 'decline' });
		expect(asks).toEqual([expect.objectContaining({ answer: { action: 'decline' } })]);
	});

	it('a notification that large is dropped, not taken for a request: the call and the connection go on', async () => {
		const outcome = await pool.use(config(), async (connection) => ({
			call: await timedCall(connection, 'notify_huge', { mb: OVER_MB }),
			next: await timedCall(connection, 'echo', { text: 'next' }),
			alive: connection.isAlive,
		}));
		expect(textOf(outcome.call.result)).toBe('notified');
		expect(outcome.call.asks).toEqual([]);
		expect(textOf(outcome.next.result)).toBe('next');
		expect(outcome.alive).toBe(true);
	});
});

/** A server that writes its requests' keys in another order than the TypeScript SDK. */
const keyOrderServer = (order: 'java' | 'params-first'): McpServerConfig => ({
	transport: 'stdio',
	command: process.execPath,
	args: [path.join(REPO_ROOT, 'test', 'servers', 'key-order-server.mjs'), '--order', order],
	env: childEnv(),
});

describe.each([
	['jsonrpc, method, id, params (the Java SDK)', 'java'],
	["params, method, jsonrpc, id (its id the same as the call's)", 'params-first'],
] as const)('a server request written %s', (_, order) => {
	it('of a size the client reads is answered', async () => {
		const { result, asks } = await pool.use(keyOrderServer(order), (connection) =>
			timedCall(connection, 'ask', { mb: 0 }),
		);
		expect(JSON.parse(textOf(result))).toEqual({ action: 'decline' });
		expect(asks).toHaveLength(1);
	});

	it('too large to read is refused at once, naming the limit, and the call is not failed in its place', async () => {
		const { result, asks, ms } = await pool.use(keyOrderServer(order), (connection) =>
			timedCall(connection, 'ask', { mb: OVER_MB }),
		);
		const refusal =
			'The elicitation/create request is 11.0 MB, more than the 10.0 MB this client reads (Max Result Size); it was refused unread';
		expect(ms).toBeLessThan(AT_ONCE_MS);
		expect(textOf(result)).toBe(`failed: ${refusal}`);
		expect(asks).toEqual([
			expect.objectContaining({ requestBytes: expect.any(Number), error: refusal }),
		]);
	});
});
