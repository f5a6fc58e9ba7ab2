/**
 * The connection layer against servers that misbehave on purpose (the fault server's --hostile
 * tools), each a real process: no hang, no healthy server killed, no dead one kept.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
	CallTimeoutError,
	ConnectionLostError,
	ConnectionPool,
	McpConnection,
	ResultTooLargeError,
	type ToolCallOptions,
	type McpServerConfig,
} from '../../lib/mcp';
import { describeCallFailure } from '../../lib/execution/failures';
import { createRedactor } from '../../lib/json/redact';
import { StderrTail } from '../../lib/mcp/stderrTail';
import {
	childEnv,
	faultStdio,
	isProcessAlive,
	listTestServerProcesses,
	RUN_ID_VARIABLE,
	stopAllServers,
} from '../support/servers';

const SECRET = 'hostile-7c2e91f04ab3';
const hostile = (name = 'hostile') => ({
	...faultStdio({ name, hostile: true }),
	env: childEnv({ CANARY_SECRET: SECRET }),
});

const pools: ConnectionPool[] = [];
const newPool = () => {
	const pool = new ConnectionPool({ maxSize: 8, idleTimeoutMs: 60_000, connectTimeoutMs: 30_000 });
	pools.push(pool);
	return pool;
};
afterAll(async () => {
	await Promise.all(pools.map((pool) => pool.closeAll()));
	await stopAllServers();
});

async function waitUntil(condition: () => boolean, what: string, ms = 15_000) {
	for (let waited = 0; !condition(); waited += 25) {
		if (waited > ms) throw new Error(`Timed out waiting until ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/** The failure of one call, with the connection it ran on. */
async function failureOf(
	pool: ConnectionPool,
	config: McpServerConfig,
	tool: string,
	args: Record<string, unknown>,
	options: ToolCallOptions,
) {
	return pool.use(config, async (connection) => {
		const error = await connection.callTool(tool, args, options).then(
			() => {
				throw new Error(`${tool} answered`);
			},
			(failure: unknown) => failure,
		);
		return { error, connection, pid: connection.pid! };
	});
}

const pidOf = (pool: ConnectionPool, config: McpServerConfig) =>
	pool.use(config, async (connection) => connection.pid!);

describe('a hostile MCP server', () => {
	it('sending a -32000 JSON-RPC error gets a tool error; the connection and its process live on', async () => {
		const pool = newPool();
		const config = hostile('server-error');
		const { error, connection, pid } = await failureOf(
			pool,
			config,
			'server_error',
			{ message: 'database is down' },
			{ timeoutMs: 5_000 },
		);
		expect(error).toBeInstanceOf(McpError);
		expect(describeCallFailure(error, { tool: 'server_error', stderrTail: '' })).toEqual({
			status: 'serverError',
			text: "The MCP server refused the call to tool 'server_error': database is down (JSON-RPC error -32000).",
		});
		expect(connection.isAlive).toBe(true);
		expect(await pidOf(pool, config)).toBe(pid);
	});

	it('reporting progress forever is stopped at the total cap, cancelled at the server, and kept', async () => {
		const pool = newPool();
		const config = hostile('progress');
		// The server started first: the times below are the call's own, not the start's.
		await pidOf(pool, config);
		const started = Date.now();
		const { error, connection, pid } = await failureOf(
			pool,
			config,
			'progress_forever',
			{ interval_ms: 20 },
			{ timeoutMs: 300, maxTotalMs: 1_500 },
		);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
		expect(Date.now() - started).toBeLessThan(8_000);
		expect(error).toMatchObject({ limit: 'total', ms: 1_500, serverAnswers: true });
		expect(describeCallFailure(error, { tool: 'progress_forever', stderrTail: '' })).toMatchObject({
			status: 'timeout',
			text: expect.stringContaining(
				"Tool 'progress_forever' was still running after 1500 ms, the longest a call may take however much progress it reports",
			),
		});
		await waitUntil(
			() => connection.stderrTail().includes('progress_forever cancelled'),
			'the server hears of the cancellation',
		);
		expect(await pidOf(pool, config)).toBe(pid);
	});

	it('timing out while still answering pings is kept: a slow tool is not a dead server', async () => {
		const pool = newPool();
		const config = hostile('slow-but-alive');
		const { error, connection, pid } = await failureOf(
			pool,
			config,
			'hang',
			{},
			{ timeoutMs: 300 },
		);
		expect(error).toBeInstanceOf(CallTimeoutError);
		expect(error).toMatchObject({ limit: 'wait', ms: 300, serverAnswers: true });
		expect(connection.isAlive).toBe(true);
		expect(await pidOf(pool, config)).toBe(pid);
	});

	it('closing its stdout but running on is a lost connection at once; its process is ended', async () => {
		const pool = newPool();
		const config = hostile('deaf');
		await pidOf(pool, config);
		const started = Date.now();
		const { error, pid } = await failureOf(pool, config, 'close_stdout', {}, { timeoutMs: 30_000 });
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(error).toBeInstanceOf(ConnectionLostError);
		await waitUntil(() => !isProcessAlive(pid), 'the stubborn process is ended');
		const next = await pidOf(pool, config);
		expect(next).not.toBe(pid);
		expect(
			await pool.use(config, (connection) =>
				connection.callTool('echo', { text: 'back' }, { timeoutMs: 5_000 }),
			),
		).toMatchObject({ content: [{ type: 'text', text: 'back' }] });
	});

	it('dying while a process it started holds its stdout is a lost connection at once', async () => {
		const pool = newPool();
		const server = faultStdio({ name: 'parent' });
		// The shell leaves a sleep behind holding the server's stdout, then becomes the server.
		const marker = 'sleep 31.7';
		const config = {
			...server,
			command: '/bin/sh',
			args: [
				'-c',
				`${marker} & exec "${server.command}" ${server.args.map((arg) => `"${arg}"`).join(' ')}`,
			],
		};
		try {
			const { error, ms } = await pool.use(config, async (connection) => {
				setTimeout(() => process.kill(connection.pid!, 'SIGKILL'), 300);
				const started = Date.now();
				const failure = await connection
					.callTool('slow', { ms: 60_000 }, { timeoutMs: 30_000 })
					.catch((caught: unknown) => caught);
				return { error: failure, ms: Date.now() - started };
			});
			expect(error).toBeInstanceOf(ConnectionLostError);
			// Not the call's 30 s timeout.
			expect(ms).toBeLessThan(10_000);
			await waitUntil(() => pool.size === 0, 'the pool drops the dead connection');
		} finally {
			// pkill exits 1 when the sleep is already gone.
			spawnSync('pkill', ['-f', `^${marker}$`]);
		}
	});

	it('freezing is found by the ping after a timeout: dropped, its process killed, the next call reconnects', async () => {
		const pool = newPool();
		const config = hostile('frozen');
		const { error, connection, pid } = await failureOf(
			pool,
			config,
			'freeze',
			{},
			{ timeoutMs: 500 },
		);
		expect(error).toMatchObject({ limit: 'wait', serverAnswers: false });
		expect(describeCallFailure(error, { tool: 'freeze', stderrTail: '' }).text).toContain(
			'The server did not answer a ping either, so it was stopped; it will be started afresh for the next call.',
		);
		expect(connection.isAlive).toBe(false);
		// A stopped process ignores SIGTERM; only SIGKILL ends it.
		await waitUntil(() => !isProcessAlive(pid), 'the frozen process is killed');
		const next = await pidOf(pool, config);
		expect(next).not.toBe(pid);
	});

	it('answering with 50 MB ends that call as too large without reading it; the connection stays', async () => {
		const pool = newPool();
		const config = hostile('huge');
		const { error, connection, pid } = await failureOf(
			pool,
			config,
			'huge',
			{ mb: 50 },
			{ timeoutMs: 30_000, maxResultBytes: 1024 * 1024 },
		);
		expect(error).toBeInstanceOf(ResultTooLargeError);
		expect(describeCallFailure(error, { tool: 'huge', stderrTail: '' })).toEqual({
			status: 'resultTooLarge',
			text: expect.stringMatching(
				/^Tool 'huge' returned more than can be passed on: The result is 50\.0 MB, more than the 1\.0 MB allowed \(Max Result Size\)\. The result was dropped/,
			),
		});
		expect(connection.isAlive).toBe(true);
		expect(await pidOf(pool, config)).toBe(pid);

		// Under the transport's limit, the call's own limit still holds; above it, a larger limit reads more.
		const small = await failureOf(
			pool,
			config,
			'huge',
			{ mb: 2 },
			{ timeoutMs: 30_000, maxResultBytes: 1024 * 1024 },
		);
		expect((small.error as Error).message).toBe(
			'The result is 2.0 MB, more than the 1.0 MB allowed (Max Result Size)',
		);
		const large = await pool.use(config, (current) =>
			current.callTool('huge', { mb: 12 }, { timeoutMs: 30_000, maxResultBytes: 16 * 1024 * 1024 }),
		);
		expect((large.content[0] as { text: string }).text).toHaveLength(12 * 1024 * 1024);
	});

	it('nesting its result deeper than can be passed on ends that call, not the connection', async () => {
		const pool = newPool();
		const config = hostile('deep');
		const { error, connection } = await failureOf(
			pool,
			config,
			'deep',
			{ depth: 3_000 },
			{ timeoutMs: 10_000 },
		);
		expect(error).toBeInstanceOf(ResultTooLargeError);
		expect((error as Error).message).toBe(
			'The result nests deeper than 1000 levels, more than can be passed on',
		);
		expect(connection.isAlive).toBe(true);
		const fine = await connection.callTool('deep', { depth: 900 }, { timeoutMs: 10_000 });
		expect(fine.structuredContent).toBeDefined();
	});

	it('flooding notifications costs neither the call nor memory', async () => {
		const pool = newPool();
		const config = hostile('flood');
		await pidOf(pool, config);
		const rssBefore = process.memoryUsage().rss;
		let peak = rssBefore;
		const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
		const result = await pool
			.use(config, (connection) =>
				connection.callTool('flood', { count: 20_000 }, { timeoutMs: 60_000 }),
			)
			.finally(() => clearInterval(sampler));
		expect(result.content).toEqual([{ type: 'text', text: 'flooded 20000' }]);
		expect(peak - rssBefore).toBeLessThan(80 * 1024 * 1024);
	});

	it('listing invalid tools costs those tools only, each named with the reason', async () => {
		const connection = await McpConnection.open(
			faultStdio({ name: 'invalid', invalidTools: true }),
			30_000,
		);
		try {
			const { tools, invalid } = await connection.listing();
			expect(tools.map((tool) => tool.name)).toEqual(
				expect.arrayContaining(['echo', 'add', 'math.mul', 'headers']),
			);
			expect(tools).toHaveLength(16);
			expect(invalid).toEqual([
				{ name: 'string_schema', reason: expect.stringContaining('inputSchema.type') },
				{ name: 'no_schema', reason: expect.stringContaining('inputSchema') },
				{ name: '(tool 4 has no name)', reason: expect.stringContaining('name') },
			]);
			expect(await connection.listTools()).toEqual(tools);
		} finally {
			await connection.close();
		}
	});

	it('printing a secret on stderr before crashing shows none of it in the tail, however it is cut', async () => {
		const pool = newPool();
		const config = hostile('stderr');
		const { error, connection } = await failureOf(
			pool,
			config,
			'leak',
			{ as: 'stderr' },
			{ timeoutMs: 10_000 },
		);
		expect(error).toBeInstanceOf(ConnectionLostError);
		const tail = connection.stderrTail();
		expect(tail.length).toBeGreaterThan(1_500);
		for (let start = 0; start + 6 <= SECRET.length; start++)
			expect(tail).not.toContain(SECRET.slice(start, start + 6));
	});
});

describe('the stderr tail', () => {
	it('reads a character cut between two chunks whole, so a secret holding it is still hidden', () => {
		const secret = 'Kennwort-ä-7Hq2xZ9pLm';
		const tail = new StderrTail(createRedactor({ secrets: [secret] }).all);
		const bytes = Buffer.from(`password ${secret}\n`);
		const cut = bytes.indexOf(Buffer.from('ä')) + 1;
		tail.append(bytes.subarray(0, cut));
		tail.append(bytes.subarray(cut));
		expect(tail.read()).toBe('password [redacted]');
	});
});

describe('a result the SDK cannot read as a tools/call result', () => {
	// A server of a few lines whose one tool answers with a content part of a type MCP has not.
	const script = `
		const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
		require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
			const { id, method, params } = JSON.parse(line);
			if (method === 'initialize')
				send({ jsonrpc: '2.0', id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1' } } });
			else if (method === 'tools/call')
				send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'useful' }, { type: 'widget' }] } });
			else if (id !== undefined) send({ jsonrpc: '2.0', id, result: {} });
		});`;
	const odd = {
		transport: 'stdio' as const,
		command: process.execPath,
		args: ['-e', script],
		env: {},
	};

	it('is a malformed answer, said so, and the connection is kept (the server is not restarted)', async () => {
		const pool = newPool();
		const pid = () => pool.use(odd, async (connection) => connection.pid);
		const before = await pid();
		const error = await pool
			.use(odd, (connection) => connection.callTool('reply', {}, { timeoutMs: 5_000 }))
			.catch((thrown: unknown) => thrown);
		expect((error as Error).name).toBe('MalformedResultError');
		expect(describeCallFailure(error, { tool: 'reply', stderrTail: '' }).text).toMatch(
			/not a tools\/call result/,
		);
		expect(await pid()).toBe(before);
	});
});

describe('starting a server', () => {
	it('gives up after the connect timeout the use asks for, and ends the process', async () => {
		const pool = newPool();
		const mute = faultStdio({ name: 'mute', mute: true });
		const running = () =>
			listTestServerProcesses().filter(
				({ command, runId }) =>
					command.includes('--mute') && runId === process.env[RUN_ID_VARIABLE],
			);
		const started = Date.now();
		const attempt = pool.use(mute, async () => 'connected', { connectTimeoutMs: 400 });
		await waitUntil(() => running().length === 1, 'the server process runs');
		await expect(attempt).rejects.toThrow(/timed out/i);
		expect(Date.now() - started).toBeLessThan(6_000);
		expect(pool.size).toBe(0);
		await waitUntil(() => running().length === 0, 'the mute process is ended');
	});

	it('gives up after the connect timeout on an SSE stream that never names its endpoint', async () => {
		const silent = createServer((_request, response) => {
			response.writeHead(200, { 'content-type': 'text/event-stream' });
			response.write(': connected, and nothing more\n\n');
		});
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = silent.address() as AddressInfo;
			const pool = newPool();
			const config = {
				transport: 'http' as const,
				url: `http://127.0.0.1:${port}/sse`,
				headers: {},
				mode: 'sse' as const,
			};
			await expect(
				pool.use(config, async () => 'connected', { connectTimeoutMs: 400 }),
			).rejects.toThrow(/timed out after 400 ms/);
			expect(pool.size).toBe(0);
		} finally {
			silent.closeAllConnections();
			silent.close();
		}
	});

	it('gives up after one connect timeout in auto mode, whatever the Streamable HTTP refusal took', async () => {
		// Streamable HTTP refused slowly (404 after 2 s), then an SSE stream that names no endpoint.
		const slow = createServer((request, response) => {
			if (request.method === 'POST') {
				setTimeout(() => response.writeHead(404).end(), 2_000);
				return;
			}
			response.writeHead(200, { 'content-type': 'text/event-stream' });
			response.write(': connected, and nothing more\n\n');
		});
		await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = slow.address() as AddressInfo;
			const config = {
				transport: 'http' as const,
				url: `http://127.0.0.1:${port}/mcp`,
				headers: {},
				mode: 'auto' as const,
			};
			const started = Date.now();
			await expect(
				newPool().use(config, async () => 'connected', { connectTimeoutMs: 3_000 }),
			).rejects.toThrow(/timed out after 3000 ms/);
			// Two timeouts would be 5 s.
			expect(Date.now() - started).toBeLessThan(4_500);
		} finally {
			slow.closeAllConnections();
			slow.close();
		}
	});

	it('names a working directory that does not exist, not the command', async () => {
		const config = { ...faultStdio({ name: 'nowhere' }), cwd: '/no/such/folder' };
		await expect(McpConnection.open(config, 5_000)).rejects.toThrow(
			'The working directory /no/such/folder does not exist (or is not a folder)',
		);
	});

	it('refuses an environment no process can take, naming the variable and never its value', async () => {
		const base = faultStdio({ name: 'badenv' });
		const renamed = { ...base, env: { ...base.env, 'A=B': 'C' } };
		await expect(McpConnection.open(renamed, 5_000)).rejects.toThrow(
			'The environment variable name "A=B" cannot be used: a name must not be empty, nor hold "=" or a NUL character',
		);
		const withNul = { ...base, env: { ...base.env, API_KEY: 'sup3rs3cret\u0000value' } };
		const failure = McpConnection.open(withNul, 5_000);
		await expect(failure).rejects.toThrow(
			'The value of the environment variable API_KEY holds a NUL character, which no process environment can hold',
		);
		await expect(failure).rejects.not.toThrow(/sup3rs3cret/);
	});

	it('gives each scope its own process for one configuration', async () => {
		const pool = newPool();
		const config = faultStdio({ name: 'scoped' });
		const inScope = (scope: string) =>
			pool.use(config, async (connection) => connection.pid!, { scope });
		const [a, b, a2] = [
			await inScope('workflow-a'),
			await inScope('workflow-b'),
			await inScope('workflow-a'),
		];
		expect(a).not.toBe(b);
		expect(a2).toBe(a);
		expect(await pool.use(config, async (connection) => connection.pid!)).not.toBe(a);
	});
});
