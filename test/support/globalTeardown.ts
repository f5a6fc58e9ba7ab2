import { readFileSync } from 'node:fs';
import type { ServerProcessState } from './globalSetup';
import { listTestServerProcesses, RUN_ID_VARIABLE, type TestServerProcess } from './servers';

const GRACE_MS = 3000;

function parentPid(pid: number): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The command name in parentheses may hold spaces; the parent pid is the second field after it.
		return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
	} catch {
		return undefined;
	}
}

function descendsFrom(pid: number, ancestor: number): boolean {
	for (
		let current = parentPid(pid);
		current !== undefined && current > 1;
		current = parentPid(current)
	) {
		if (current === ancestor) return true;
	}
	return false;
}

/** Servers this run started: they carry its marker, or carry none and still hang below jest. */
function leftovers(before: Set<number>): TestServerProcess[] {
	const runId = process.env[RUN_ID_VARIABLE];
	return listTestServerProcesses().filter(
		({ pid, runId: marker }) =>
			!before.has(pid) &&
			(marker === runId || (marker === undefined && descendsFrom(pid, process.pid))),
	);
}

/** Fails the run when a test server started during it outlives the tests, and kills it. */
export default async function globalTeardown(): Promise<void> {
	const before = new Set((globalThis as ServerProcessState).mcpTestServersBefore ?? []);
	const deadline = Date.now() + GRACE_MS;
	let alive = leftovers(before);
	while (alive.length > 0 && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 100));
		alive = leftovers(before);
	}
	if (alive.length === 0) return;
	for (const { pid } of alive) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
	const list = alive.map(({ pid, command }) => `  ${pid} ${command}`).join('\n');
	console.error(`Test server processes left running after the suite (now killed):\n${list}`);
	throw new Error(`${alive.length} test server process(es) left running after the suite`);
}
