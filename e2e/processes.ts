/**
 * The processes of an end-to-end run: each started in a process group of its own with its output
 * in a log file, stopped with everything it started, and every process carrying the run's marker
 * (E2E_RUN_ID) found at the end, however it escaped its group.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Process groups started, stopped at the end of the run whatever happened. */
const started = new Set<number>();

export interface StartOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
}

/** Starts a command in a process group of its own (the group's id is its pid), output to `log`. */
export function startInGroup(
	log: string,
	command: string,
	args: string[],
	options: StartOptions = {},
): ChildProcess {
	const output = openSync(log, 'w');
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		detached: true,
		stdio: ['ignore', output, output],
	});
	closeSync(output);
	if (child.pid !== undefined) started.add(child.pid);
	child.on('error', () => undefined);
	return child;
}

/** Whether a process group still has a member that is not a zombie. */
export function groupAlive(pgid: number): boolean {
	const listing = spawnSync('ps', ['-e', '-o', 'pgid=,stat='], { encoding: 'utf8' }).stdout;
	return listing.split('\n').some((line) => {
		const [group, stat] = line.trim().split(/\s+/);
		return Number(group) === pgid && !stat?.startsWith('Z');
	});
}

/** The members of a group, as `ps` shows them. */
export function groupMembers(pgid: number): string[] {
	const listing = spawnSync('ps', ['-e', '-o', 'pgid=,pid=,stat=,etimes=,args='], {
		encoding: 'utf8',
	}).stdout;
	return listing
		.split('\n')
		.filter((line) => Number(line.trim().split(/\s+/)[0]) === pgid)
		.map((line) => line.trim().slice(0, 200));
}

export interface ProcessInfo {
	pid: number;
	ppid: number;
	args: string;
}

/** Every process, as `ps` lists it: its pid, its parent's and its command line. */
export function processTable(): ProcessInfo[] {
	const listing = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' }).stdout;
	return listing
		.split('\n')
		.map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
		.filter((match) => match !== null)
		.map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args }));
}

/** The MCP server processes (by the server's entry file) started by `pid` or its children. */
export function serversUnder(table: ProcessInfo[], pid: number, entry: string): number[] {
	const below = new Set([pid]);
	for (let grew = true; grew;) {
		grew = false;
		for (const row of table) {
			if (!below.has(row.pid) && below.has(row.ppid)) {
				below.add(row.pid);
				grew = true;
			}
		}
	}
	return table
		.filter((row) => row.pid !== pid && below.has(row.pid) && row.args.includes(entry))
		.map((row) => row.pid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		// Gone already.
	}
}

/** SIGTERM to a group, `graceS` seconds to go, then SIGKILL: false when it had to be killed. */
export async function stopGroup(pgid: number | undefined, graceS = 15): Promise<boolean> {
	if (pgid === undefined || !groupAlive(pgid)) return true;
	signalGroup(pgid, 'SIGTERM');
	for (let waited = 0; groupAlive(pgid) && waited < graceS * 10; waited++) await sleep(100);
	if (!groupAlive(pgid)) return true;
	console.error(`    process group ${pgid} did not stop within ${graceS}s: killing it`);
	signalGroup(pgid, 'SIGKILL');
	return false;
}

/** Stops every group this run started. */
export async function stopAllGroups(): Promise<void> {
	for (const pgid of started) await stopGroup(pgid, 10);
}

/** The exit status of a child (124 when it ran out of time and was stopped). */
export async function exitOf(child: ChildProcess, limitMs: number): Promise<number> {
	if (child.exitCode !== null) return child.exitCode;
	if (child.signalCode !== null) return 128;
	return new Promise((resolve) => {
		const timer = setTimeout(async () => {
			await stopGroup(child.pid, 10);
			resolve(124);
		}, limitMs);
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			resolve(code ?? (signal ? 128 : 1));
		});
	});
}

export interface BoundedRun {
	status: number;
	/** What the command left running in its group 3 s after it exited (then stopped). */
	leftRunning: string[];
}

/** Runs a command with a time limit, output to `log`; whatever it leaves running is stopped and told. */
export async function runBounded(
	limitS: number,
	log: string,
	command: string,
	args: string[],
	options: StartOptions = {},
): Promise<BoundedRun> {
	const child = startInGroup(log, command, args, options);
	const status = await exitOf(child, limitS * 1000);
	if (status === 124) console.error(`    timed out after ${limitS}s: ${command} ${args.join(' ')}`);
	const pgid = child.pid!;
	// A child reading its stdin may take a moment to see it close.
	for (let ticks = 0; groupAlive(pgid) && ticks < 30; ticks++) await sleep(100);
	const leftRunning = groupAlive(pgid) ? groupMembers(pgid) : [];
	if (leftRunning.length > 0) await stopGroup(pgid, 10);
	return { status, leftRunning };
}

/** Waits up to `limitS` seconds for a file to exist and be non-empty. */
export async function waitForFile(file: string, limitS: number): Promise<boolean> {
	for (let ticks = 0; ticks < limitS * 10; ticks++) {
		if (existsSync(file) && statSync(file).size > 0) return true;
		await sleep(100);
	}
	return false;
}

/** Processes still carrying the run's marker, as "pid command" lines. */
export function runProcesses(runId: string): string[] {
	const marker = `E2E_RUN_ID=${runId}`;
	const found: string[] = [];
	for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		if (Number(pid) === process.pid) continue;
		try {
			if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker)) continue;
			const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
			found.push(`${pid} ${command.slice(0, 160)}`);
		} catch {
			// Ended meanwhile, or not ours to read.
		}
	}
	return found;
}

/** Kills processes by the "pid command" lines runProcesses gave. */
export function killProcesses(lines: string[]): void {
	for (const line of lines) {
		try {
			process.kill(Number(line.split(' ')[0]), 'SIGKILL');
		} catch {
			// Gone already.
		}
	}
}

/** The last lines of a log, on stderr. */
export function showLogTail(file: string | undefined, lines = 40): void {
	if (!file || !existsSync(file) || statSync(file).size === 0) return;
	const text = readFileSync(file, 'utf8')
		.split('\n')
		.slice(-lines - 1)
		.join('\n');
	console.error(`---- last ${lines} lines of ${file.split('/').pop()} ----\n${text}\n----`);
}
