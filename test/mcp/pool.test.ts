import { readFileSync } from 'node:fs';
import { ConnectionPool } from '../../lib/mcp';
import type { StdioServerConfig } from '../../lib/mcp/config';
import {
	childEnv,
	FAULT_SERVER,
	faultServerArgs,
	faultStdio,
	isProcessAlive,
	listTestServerProcesses,
	startHttpServer,
	stopAllServers,
} from '../support/servers';

const pools: ConnectionPool[] = [];
const poolWith = (options: Partial<ConstructorParameters<typeof ConnectionPool>[0]>) => {
	const pool = new ConnectionPool({
		maxSize: 4,
		idleTimeoutMs: 60_000,
		connectTimeoutMs: 30_000,
		...options,
	});
	pools.push(pool);
	return pool;
};
afterAll(async () => {
	await Promise.all(pools.map((pool) => pool.closeAll()));
	await stopAllServers();
});

const pidOf = (pool: ConnectionPool, config: ReturnType<typeof faultStdio>) =>
	pool.use(config, async (connection) => connection.pid!);

async function waitUntil(condition: () => boolean, what: string) {
	for (let waited = 0; !condition(); waited += 25) {
		if (waited > 10_000) throw new Error(`Timed out waiting until ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

describe('ConnectionPool', () => {
	it('shares one connection per configuration, even when first asked for concurrently', async () => {
		const pool = poolWith({});
		const config = faultStdio();
		const pids = await Promise.all(Array.from({ length: 10 }, () => pidOf(pool, config)));
		expect(new Set(pids).size).toBe(1);
		expect(pool.size).toBe(1);
		expect(await pidOf(pool, faultStdio({ name: 'other' }))).not.toBe(pids[0]);
		expect(pool.size).toBe(2);
	});

	it('closes the least recently used idle connection past its size, and ends its process', async () => {
		const pool = poolWith({ maxSize: 1 });
		const first = await pidOf(pool, faultStdio({ name: 'first' }));
		const second = await pidOf(pool, faultStdio({ name: 'second' }));
		expect(pool.size).toBe(1);
		await waitUntil(() => !isProcessAlive(first), 'the evicted server is gone');
		expect(isProcessAlive(second)).toBe(true);
	});

	it('never cuts off a connection in use to make room', async () => {
		const pool = poolWith({ maxSize: 1 });
		const busy = faultStdio({ name: 'busy' });
		const slowCall = pool.use(busy, (connection) =>
			connection.callTool('slow', { ms: 300 }, { timeoutMs: 5_000 }),
		);
		await pidOf(pool, faultStdio({ name: 'newcomer' }));
		expect(await slowCall).toMatchObject({ content: [{ type: 'text', text: 'waited 300 ms' }] });
	});

	it('keeps an idle connection a caller is about to use, while a new one makes room', async () => {
		const pool = poolWith({ maxSize: 1 });
		const reused = faultStdio({ name: 'reused' });
		const pid = await pidOf(pool, reused);
		// In one tick: the idle connection is asked for again, and another server's start evicts.
		const [again, newcomer] = await Promise.all([
			pool.use(reused, async (connection) => {
				await new Promise((resolve) => setTimeout(resolve, 50));
				return { pid: connection.pid, tools: (await connection.listTools()).length };
			}),
			pidOf(pool, faultStdio({ name: 'evicting' })),
		]);
		expect(again.pid).toBe(pid);
		expect(again.tools).toBeGreaterThan(0);
		expect(isProcessAlive(newcomer)).toBe(true);
	});

	it('fails every caller that waited on a start that failed with its error, starting the server once', async () => {
		const pool = poolWith({ connectTimeoutMs: 500 });
		const mute = faultStdio({ name: 'mute-once', mute: true });
		const attempts = await Promise.allSettled(
			Array.from({ length: 5 }, () => pool.use(mute, async () => 'connected')),
		);
		expect(attempts.map((attempt) => attempt.status)).toEqual(Array(5).fill('rejected'));
		// The one start's error: no caller started the server again (and waited its timeout again).
		const reasons = attempts.map((attempt) => (attempt as PromiseRejectedResult).reason);
		expect(new Set(reasons).size).toBe(1);
		expect(reasons[0].message).toMatch(/timed out/i);
		expect(pool.size).toBe(0);
	});

	it('closes a connection left idle, and reconnects on the next use', async () => {
		const pool = poolWith({ idleTimeoutMs: 150 });
		const config = faultStdio({ name: 'idle' });
		const pid = await pidOf(pool, config);
		await waitUntil(() => !isProcessAlive(pid), 'the idle server is gone');
		expect(pool.size).toBe(0);
		const next = await pidOf(pool, config);
		expect(next).not.toBe(pid);
		expect(isProcessAlive(next)).toBe(true);
	});

	it('drops a dead connection and reconnects; a server that cannot start fails every waiting caller', async () => {
		const pool = poolWith({});
		const config = faultStdio({ name: 'mortal' });
		const pid = await pidOf(pool, config);
		process.kill(pid, 'SIGKILL');
		await waitUntil(() => pool.size === 0, 'the pool notices the death');
		expect(await pidOf(pool, config)).not.toBe(pid);

		const broken = { ...config, command: 'no-such-mcp-server' };
		const attempts = await Promise.allSettled(Array.from({ length: 5 }, () => pidOf(pool, broken)));
		expect(attempts.map((attempt) => attempt.status)).toEqual(Array(5).fill('rejected'));
		expect((attempts[0] as PromiseRejectedResult).reason.message).toContain('ENOENT');
	});

	it('kills every server process synchronously, for process exit', async () => {
		const pool = poolWith({});
		const pids = await Promise.all([
			pidOf(pool, faultStdio({ name: 'a' })),
			pidOf(pool, faultStdio({ name: 'b' })),
		]);
		pool.killProcesses();
		await waitUntil(() => pids.every((pid) => !isProcessAlive(pid)), 'both servers are gone');
	});

	it('kills a server still starting too, for process exit', async () => {
		const pool = poolWith({});
		const mute = faultStdio({ name: 'still-starting', mute: true });
		const attempt = pool.use(mute, async () => 'connected').catch((error: Error) => error);
		const running = () =>
			listTestServerProcesses().filter(({ command }) => command.includes('still-starting'));
		await waitUntil(() => running().length === 1, 'the server process runs');
		const [{ pid }] = running();
		pool.killProcesses();
		await waitUntil(() => !isProcessAlive(pid), 'the starting server is gone');
		expect(await attempt).toBeInstanceOf(Error);
	});

	it('holds timeouts longer than a Node timer can (about 24.8 days) instead of firing at once', async () => {
		const forever = 3_000_000_000;
		const pool = poolWith({ connectTimeoutMs: forever });
		const result = await pool.use(faultStdio({ name: 'patient' }), (connection) =>
			connection.callTool(
				'slow',
				{ ms: 300, progress: true },
				{ timeoutMs: forever, maxTotalMs: forever },
			),
		);
		expect(result.content).toEqual([{ type: 'text', text: 'waited 300 ms' }]);
	});

	it('ends a Streamable HTTP session on the server when it closes the connection', async () => {
		const server = await startHttpServer('fault');
		const pool = poolWith({});
		const config = {
			transport: 'http' as const,
			url: server.url,
			headers: {},
			mode: 'streamableHttp' as const,
		};
		const sessionId = await pool.use(config, async (connection) => {
			await connection.listTools();
			return (connection as unknown as { connected: { transport: { sessionId: string } } })
				.connected.transport.sessionId;
		});
		expect(server.output()).not.toContain(`session ${sessionId} ended`);
		await pool.closeAll();
		await waitUntil(
			() => server.output().includes(`session ${sessionId} ended`),
			'the server ends the session',
		);
	});
});

describe('a server started through a wrapper (sh -c, as npx or uv run start theirs)', () => {
	// The shell stays as the server's parent: it has a command left to run after the server.
	const wrapped = (name: string, before = ''): StdioServerConfig => ({
		transport: 'stdio',
		command: 'sh',
		args: [
			'-c',
			`${before}"$0" "$@"; echo "wrapper: server exited" >&2`,
			process.execPath,
			FAULT_SERVER,
			...faultServerArgs({ name, hostile: true }),
		],
		env: childEnv(),
	});

	/** The wrapper's pid (the one spawned) and the server's (its child). */
	const pidsOf = (pool: ConnectionPool, config: StdioServerConfig) =>
		pool.use(config, async (connection) => {
			const result = await connection.callTool('pid', {}, { timeoutMs: 10_000 });
			const { pid } = result.structuredContent as { pid: number };
			return { wrapper: connection.pid!, server: pid };
		});

	it('kills the server, not only its wrapper, when the server stops answering', async () => {
		const pool = poolWith({});
		const config = wrapped('wrapped-frozen');
		const { wrapper, server } = await pidsOf(pool, config);
		expect(server).not.toBe(wrapper);
		const frozen = await pool.use(config, (connection) =>
			connection.callTool('freeze', {}, { timeoutMs: 500 }).catch((error: Error) => error),
		);
		expect(frozen).toBeInstanceOf(Error);
		await waitUntil(() => !isProcessAlive(server), 'the frozen server is killed');
		expect(isProcessAlive(wrapper)).toBe(false);
	});

	it('ends the server on close when it will not stop by itself', async () => {
		const pool = poolWith({});
		const config = wrapped('wrapped-closed');
		const { wrapper, server } = await pidsOf(pool, config);
		// Frozen mid-call: stdin closed and SIGTERM reach nothing, SIGKILL must reach the server.
		const call = pool
			.use(config, (connection) => connection.callTool('freeze', {}, { timeoutMs: 60_000 }))
			.catch((error: Error) => error);
		await waitUntil(() => processState(server) === 'T', 'the server has stopped itself');
		await pool.closeAll();
		// Killed by then; reaped a moment later by whoever adopted it.
		expect(['Z', undefined]).toContain(processState(server));
		await waitUntil(() => !isProcessAlive(server), 'the server is reaped');
		await waitUntil(() => !isProcessAlive(wrapper), 'the wrapper is reaped');
		expect(await call).toBeInstanceOf(Error);
	});

	it('kills a server deaf to SIGTERM when the host process exits, after a moment to end by itself', async () => {
		const pool = poolWith({});
		const config = wrapped('wrapped-deaf', 'trap "" TERM; ');
		const { server } = await pidsOf(pool, config);
		await pool.use(config, (connection) =>
			connection.callTool('ignore_sigterm', {}, { timeoutMs: 10_000 }),
		);
		pool.killProcesses();
		// SIGKILL sent before killProcesses returns (an exit handler cannot wait after it): it ends
		// the server (a zombie until its parent is gone too) within moments.
		await waitUntil(() => [undefined, 'Z'].includes(processState(server)), 'the server is killed');
	});

	it('signals the server too when the host process exits', async () => {
		const pool = poolWith({});
		// A wrapper deaf to SIGTERM lives until the server is gone: only the signal can end the server.
		const config = wrapped('wrapped-exit', 'trap "" TERM; ');
		const { server } = await pidsOf(pool, config);
		const connection = await pool.use(config, async (current) => current);
		pool.killProcesses();
		await waitUntil(() => !isProcessAlive(server), 'the server is gone');
		await waitUntil(
			() => connection.stderrTail().includes('fault-server: SIGTERM'),
			'the server tells it got SIGTERM',
		);
	});
});

/** The state letter of a process on Linux (R, S, T for stopped…). */
function processState(pid: number): string | undefined {
	try {
		return /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
	} catch {
		return undefined;
	}
}
