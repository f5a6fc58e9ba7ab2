import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { StdioServerConfig } from '../../lib/mcp/config';

/** Set by globalSetup; servers started from these helpers carry it, so a run only judges its own processes. */
export const RUN_ID_VARIABLE = 'MCP_TEST_RUN';

/**
 * The repository's root: the nearest folder up that holds test/servers/. That is two folders up
 * when Jest runs this file; the benchmark runs it compiled, from .bench/test/support/.
 */
export const REPO_ROOT = repositoryRoot(__dirname);
export const FAULT_SERVER = path.join(REPO_ROOT, 'test', 'servers', 'fault-server.mjs');
export const OAUTH_SERVER = path.join(REPO_ROOT, 'test', 'servers', 'oauth-server.mjs');
export const EVERYTHING_ENTRY = packageBin('@modelcontextprotocol/server-everything');
export const FILESYSTEM_ENTRY = packageBin('@modelcontextprotocol/server-filesystem');

export type { StdioServerConfig };

export interface FaultServerOptions {
	/** serverInfo.name (default fault-server). */
	name?: string;
	/** serverInfo.version (default 1.0.0). */
	serverVersion?: string;
	/** Put before every tool name, e.g. 'beta_' gives beta_echo. */
	toolsPrefix?: string;
	/** Also the tools of a server that attacks its client (progress forever, floods, leaks...). */
	hostile?: boolean;
	/** List tools whose definitions break the MCP schema among the valid ones. */
	invalidTools?: boolean;
	/** Start a process that never answers, not even `initialize`. */
	mute?: boolean;
	/** Answer tools/list with a JSON-RPC error quoting $CANARY_SECRET. */
	failingList?: boolean;
	/** Keep the events of its HTTP streams for clients to resume them, and add `answer_later`. */
	resumable?: boolean;
	/** Add tools that ask the client's model (sampling). */
	sampling?: boolean;
}

export interface FaultHttpOptions extends FaultServerOptions {
	/** Serve only the legacy SSE transport: the Streamable HTTP path answers 404. */
	sseOnly?: boolean;
	/** Headers every HTTP request must carry, else 401. */
	requireHeaders?: Record<string, string>;
}

export interface HttpServerHandle {
	kind: 'everything' | 'fault';
	/** Streamable HTTP endpoint. */
	url: string;
	/** Legacy SSE endpoint (fault server only); a POST to it answers 405, so it also tests a client's fallback. */
	sseUrl?: string;
	port: number;
	pid: number;
	/** Recent stdout and stderr of the server, for failure messages. */
	output(): string;
	stop(): Promise<void>;
}

export interface TestServerProcess {
	pid: number;
	command: string;
	/** Value of RUN_ID_VARIABLE in the process environment, when readable. */
	runId?: string;
}

function repositoryRoot(from: string): string {
	for (let folder = from; ; folder = path.dirname(folder)) {
		if (existsSync(path.join(folder, 'test', 'servers'))) return folder;
		if (path.dirname(folder) === folder) throw new Error(`No test/servers/ above ${from}`);
	}
}

function packageBin(name: string): string {
	const manifestPath = require.resolve(`${name}/package.json`);
	const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
		bin: string | Record<string, string>;
	};
	const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
	return path.join(path.dirname(manifestPath), bin);
}

/** Only what a server needs: PATH, the run marker, and what the test sets. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
	const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
	const runId = process.env[RUN_ID_VARIABLE];
	if (runId) env[RUN_ID_VARIABLE] = runId;
	return { ...env, ...extra };
}

export function faultServerArgs(options: FaultHttpOptions = {}): string[] {
	const args: string[] = [];
	if (options.name !== undefined) args.push('--name', options.name);
	if (options.serverVersion !== undefined) args.push('--server-version', options.serverVersion);
	if (options.toolsPrefix !== undefined) args.push('--tools-prefix', options.toolsPrefix);
	if (options.hostile) args.push('--hostile');
	if (options.invalidTools) args.push('--invalid-tools');
	if (options.mute) args.push('--mute');
	if (options.failingList) args.push('--failing-list');
	if (options.resumable) args.push('--resumable');
	if (options.sampling) args.push('--sampling');
	if (options.sseOnly) args.push('--sse-only');
	for (const [header, value] of Object.entries(options.requireHeaders ?? {})) {
		args.push('--require-header', `${header}: ${value}`);
	}
	return args;
}

export function faultStdio(options: FaultServerOptions = {}): StdioServerConfig {
	return {
		transport: 'stdio',
		command: process.execPath,
		args: [FAULT_SERVER, ...faultServerArgs(options)],
		env: childEnv(),
	};
}

export function everythingStdio(): StdioServerConfig {
	return {
		transport: 'stdio',
		command: process.execPath,
		args: [EVERYTHING_ENTRY, 'stdio'],
		env: childEnv(),
	};
}

/** server-filesystem only allows access below the given folders. */
export function filesystemStdio(...allowedFolders: string[]): StdioServerConfig {
	return {
		transport: 'stdio',
		command: process.execPath,
		args: [FILESYSTEM_ENTRY, ...allowedFolders],
		env: childEnv(),
	};
}

/** A fresh folder holding the given files (relative path → text), as a real path: server-filesystem resolves links. */
export async function createTempFolder(files: Record<string, string> = {}): Promise<string> {
	const folder = await realpath(await mkdtemp(path.join(os.tmpdir(), 'mcp-test-')));
	for (const [name, content] of Object.entries(files)) {
		const file = path.join(folder, name);
		await mkdir(path.dirname(file), { recursive: true });
		await writeFile(file, content);
	}
	return folder;
}

export async function removeTempFolder(folder: string): Promise<void> {
	await rm(folder, { recursive: true, force: true });
}

const children = new Set<ChildProcess>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function findFreePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const probe = net.createServer();
		probe.unref();
		probe.on('error', reject);
		probe.listen(0, '127.0.0.1', () => {
			const { port } = probe.address() as net.AddressInfo;
			probe.close(() => resolve(port));
		});
	});
}

function canConnect(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port });
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
	if (hasExited(child)) return Promise.resolve(true);
	return new Promise((resolve) => {
		const timer = setTimeout(() => resolve(false), ms);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve(true);
		});
	});
}

async function killChild(child: ChildProcess): Promise<void> {
	if (!hasExited(child)) {
		child.kill('SIGTERM');
		if (!(await waitForExit(child, 3000))) {
			child.kill('SIGKILL');
			await waitForExit(child, 3000);
		}
	}
	children.delete(child);
}

function spawnServer(
	kind: HttpServerHandle['kind'],
	port: number,
	options: FaultHttpOptions,
): ChildProcess {
	const [args, env] =
		kind === 'everything'
			? [[EVERYTHING_ENTRY, 'streamableHttp'], childEnv({ PORT: String(port) })]
			: [[FAULT_SERVER, '--http', String(port), ...faultServerArgs(options)], childEnv()];
	const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
	children.add(child);
	// Unreferenced so a test file that forgets to stop its servers does not hang jest; globalTeardown reports it.
	child.unref();
	return child;
}

/** Keeps the tail of the output; reading it also stops a chatty server from blocking on a full pipe. */
function captureOutput(child: ChildProcess): () => string {
	let text = '';
	for (const stream of [child.stdout, child.stderr]) {
		if (!stream) continue;
		(stream as unknown as net.Socket).unref();
		stream.setEncoding('utf8');
		stream.on('data', (chunk: string) => {
			text = (text + chunk).slice(-16_000);
		});
	}
	return () => text;
}

async function waitUntilListening(
	child: ChildProcess,
	port: number,
	timeoutMs: number,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (hasExited(child)) throw new Error(`exited with ${child.exitCode ?? child.signalCode}`);
		// Also checking the child is alive guards against another process owning the port.
		if ((await canConnect(port)) && !hasExited(child)) return;
		await sleep(50);
	}
	throw new Error(`not listening after ${timeoutMs} ms`);
}

/**
 * Starts server-everything (Streamable HTTP at /mcp) or the fault server (Streamable HTTP at /mcp and
 * legacy SSE at /sse + /messages) on a free 127.0.0.1 port and resolves once it accepts connections.
 */
export async function startHttpServer(
	kind: HttpServerHandle['kind'],
	options: FaultHttpOptions = {},
	/** A port to take (a server started again where it was), rather than a free one. */
	onPort?: number,
): Promise<HttpServerHandle> {
	for (let attempt = 1; ; attempt++) {
		const port = onPort ?? (await findFreePort());
		const child = spawnServer(kind, port, options);
		const output = captureOutput(child);
		try {
			await waitUntilListening(child, port, 15_000);
		} catch (error) {
			await killChild(child);
			// The free port can be taken between probing and binding; try another one.
			if (onPort === undefined && attempt < 3 && /EADDRINUSE|already in use/.test(output()))
				continue;
			throw new Error(
				`${kind} server did not start on port ${port}: ${(error as Error).message}\n${output()}`,
			);
		}
		const base = `http://127.0.0.1:${port}`;
		return {
			kind,
			url: `${base}/mcp`,
			sseUrl: kind === 'fault' ? `${base}/sse` : undefined,
			port,
			pid: child.pid!,
			output,
			stop: () => killChild(child),
		};
	}
}

/** Stops every server startHttpServer started and waits for them to exit; meant for afterAll. */
export async function stopAllServers(): Promise<void> {
	await Promise.all([...children].map(killChild));
}

export function isProcessAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

const serverEntries = new Set(
	[FAULT_SERVER, OAUTH_SERVER, EVERYTHING_ENTRY, FILESYSTEM_ENTRY].map((file) =>
		realpathSync(file),
	),
);

function isServerEntry(arg: string, cwd: string): boolean {
	try {
		return serverEntries.has(realpathSync(path.resolve(cwd, arg)));
	} catch {
		return false;
	}
}

function readRunId(pid: string): string | undefined {
	try {
		const variable = readFileSync(`/proc/${pid}/environ`, 'utf8')
			.split('\0')
			.find((entry) => entry.startsWith(`${RUN_ID_VARIABLE}=`));
		return variable?.slice(RUN_ID_VARIABLE.length + 1);
	} catch {
		return undefined;
	}
}

/** Running processes of this repository's test servers, server-everything or server-filesystem (Linux /proc). */
export function listTestServerProcesses(): TestServerProcess[] {
	const found: TestServerProcess[] = [];
	for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
		if (Number(pid) === process.pid) continue;
		try {
			// Zombies and exiting processes have an empty command line, so they drop out here.
			const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
			if (args.length === 0) continue;
			const cwd = readlinkSync(`/proc/${pid}/cwd`);
			if (!args.slice(1).some((arg) => isServerEntry(arg, cwd))) continue;
			found.push({ pid: Number(pid), command: args.join(' '), runId: readRunId(pid) });
		} catch {
			// The process ended while being read, or belongs to another user.
		}
	}
	return found;
}
