import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import spawn from 'cross-spawn';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineReader, type SkippedLine } from './lineReader';
import {
	DEFAULT_MAX_MESSAGE_BYTES,
	isRequestOrNotification,
	LocalAnswers,
	messageId,
	type MessageReader,
} from './localAnswers';
import { processGroupAlive, signalProcessTree, SPAWN_IN_OWN_GROUP } from './processTree';
import { StderrTail } from './stderrTail';

export interface StdioProcess {
	command: string;
	args: string[];
	/** The child's whole environment. */
	env: Record<string, string>;
	cwd?: string;
}

/** A server process, once spawned: for a host that must end it even before it connects. */
export interface SpawnedProcess {
	pid: number;
	/** Settles when the process has exited. */
	exited: Promise<void>;
}

/** How long what an exited server wrote may still take to be read, before the connection is closed. */
const EXIT_DRAIN_MS = 200;

/** How long closing waits for the server to exit by itself, then after SIGTERM, before SIGKILL. */
const EXIT_GRACE_MS = 2_000;

/** How often closing looks whether the processes a server started have exited too. */
const GROUP_POLL_MS = 50;

/**
 * MCP over a child process's stdin and stdout, one JSON-RPC message per line. Unlike the SDK's
 * transport it reads a line of any length without holding it (an oversized response is answered
 * with an error for its request, an oversized request of the server's refused, the connection
 * kept), takes a closed stdout for a closed connection even while the process runs on, and ends a
 * process that ignores SIGTERM, with every process it started (the server itself, when a wrapper
 * such as `npx` started it).
 */
export class StdioTransport implements Transport, MessageReader {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
	/** Marks the errors this transport makes up, so they are never taken for the server's. */
	readonly answers = new LocalAnswers();

	private child?: ChildProcess;
	private closed = false;
	/** The first close or kill; later ones wait for it (its pid may since name another process). */
	private ending?: Promise<void>;
	constructor(
		private readonly server: StdioProcess,
		readonly stderr: StderrTail,
		private readonly onSpawned?: (process: SpawnedProcess) => void,
	) {}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	start(): Promise<void> {
		if (this.child) throw new Error('The server process was already started');
		// Spawning in a missing folder fails as ENOENT naming the command, which does exist.
		const { cwd } = this.server;
		if (cwd !== undefined && !isDirectory(cwd))
			return Promise.reject(
				new Error(`The working directory ${cwd} does not exist (or is not a folder)`),
			);
		// Node would pass `A=B` on as the variable A, and quote a value with a NUL in its error.
		const unusable = unusableVariable(this.server.env);
		if (unusable) return Promise.reject(new Error(unusable));
		return new Promise((resolve, reject) => {
			const child = spawn(this.server.command, this.server.args, {
				env: this.server.env,
				cwd: this.server.cwd,
				stdio: ['pipe', 'pipe', 'pipe'],
				detached: SPAWN_IN_OWN_GROUP,
				windowsHide: true,
			});
			this.child = child;
			if (child.pid !== undefined) {
				const exited = new Promise<void>((done) => child.once('exit', () => done()));
				this.onSpawned?.({ pid: child.pid, exited });
			}
			const reader = new LineReader(
				() => this.maxMessageBytes,
				(line) => this.receive(line),
				(skipped) => this.answerSkipped(skipped),
			);
			child.once('spawn', () => resolve());
			child.once('error', (error) => {
				reject(error);
				this.onerror?.(error);
				this.markClosed();
			});
			child.stdout!.on('data', (chunk: Buffer) => reader.push(chunk));
			// A server whose stdout ended can answer nothing more, whether or not its process runs on;
			// nor can one that exited while a process it started holds its stdout open.
			child.stdout!.once('close', () => void this.close());
			child.once('exit', () => setTimeout(() => void this.close(), EXIT_DRAIN_MS).unref());
			child.stderr!.on('data', (chunk: Buffer) => this.stderr.append(chunk));
			child.stdin!.on('error', (error) => this.onerror?.(error));
		});
	}

	async send(message: JSONRPCMessage): Promise<void> {
		const stdin = this.child?.stdin;
		if (this.closed || !stdin?.writable) throw new Error('Not connected');
		if (stdin.write(`${JSON.stringify(message)}\n`)) return;
		await new Promise<void>((resolve, reject) => {
			const done = (error?: Error) => {
				stdin.off('drain', done);
				stdin.off('close', closedEarly);
				if (error) reject(error);
				else resolve();
			};
			const closedEarly = () => done(new Error('Not connected'));
			stdin.once('drain', done);
			stdin.once('close', closedEarly);
		});
	}

	/**
	 * Ends the server and what it started: stdin closed, then SIGTERM, then SIGKILL for any that
	 * will not stop.
	 */
	close(): Promise<void> {
		this.ending ??= this.end([undefined, 'SIGTERM', 'SIGKILL']);
		return this.ending;
	}

	/** Ends a server that no longer answers at once: it would not stop politely either. */
	kill(): Promise<void> {
		this.ending ??= this.end(['SIGKILL']);
		return this.ending;
	}

	private async end(steps: ReadonlyArray<NodeJS.Signals | undefined>): Promise<void> {
		const child = this.child;
		this.markClosed();
		const pid = child?.pid;
		if (!child || pid === undefined || hasEnded(child, pid)) return;
		child.stdin?.end();
		for (const signal of steps) {
			if (signal) signalProcessTree(pid, signal);
			if (await endedWithin(child, pid, EXIT_GRACE_MS)) return;
		}
	}

	private receive(line: string): void {
		let message: JSONRPCMessage;
		try {
			message = JSONRPCMessageSchema.parse(JSON.parse(line));
		} catch (error) {
			// A log line on stdout is a server's mistake, not the end of the connection.
			this.onerror?.(error as Error);
			return;
		}
		this.onmessage?.(message);
	}

	/**
	 * A response too large to read still ends its request, and a server's request too large to read
	 * is still refused: each with an error, at once. A notification is dropped.
	 */
	private answerSkipped(skipped: SkippedLine): void {
		const limit = this.maxMessageBytes;
		const id = messageId(skipped);
		let inItsPlace: JSONRPCMessage | undefined;
		if (isRequestOrNotification(skipped)) inItsPlace = this.answers.unreadRequest(skipped, limit);
		else if (id !== undefined) inItsPlace = this.answers.tooLarge(id, skipped.bytes, limit, false);
		if (inItsPlace) this.onmessage?.(inItsPlace);
		else
			this.onerror?.(
				new Error(`Skipped a ${skipped.bytes}-byte notification, or answer that names no request`),
			);
	}

	private markClosed(): void {
		if (this.closed) return;
		this.closed = true;
		this.onclose?.();
	}
}

/** Why a variable cannot be given to a process as it is, naming it and never its value; or undefined. */
function unusableVariable(env: Record<string, string>): string | undefined {
	for (const [name, value] of Object.entries(env)) {
		if (name === '' || name.includes('=') || name.includes('\0'))
			return `The environment variable name ${JSON.stringify(name)} cannot be used: a name must not be empty, nor hold "=" or a NUL character`;
		if (value.includes('\0'))
			return `The value of the environment variable ${name} holds a NUL character, which no process environment can hold`;
	}
	return undefined;
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** The server has exited, and so has every process it started that is still in its group. */
const hasEnded = (child: ChildProcess, pid: number) => hasExited(child) && !processGroupAlive(pid);

async function endedWithin(child: ChildProcess, pid: number, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	if (!(await exitWithin(child, ms))) return false;
	while (processGroupAlive(pid)) {
		if (Date.now() >= deadline) return false;
		await delay(GROUP_POLL_MS);
	}
	return true;
}

function exitWithin(child: ChildProcess, ms: number): Promise<boolean> {
	if (hasExited(child)) return Promise.resolve(true);
	return new Promise((resolve) => {
		const timer = setTimeout(() => {
			child.off('exit', exited);
			resolve(false);
		}, ms);
		timer.unref();
		const exited = () => {
			clearTimeout(timer);
			resolve(true);
		};
		child.once('exit', exited);
	});
}
