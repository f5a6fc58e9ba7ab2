import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const isWindows = process.platform === 'win32';

/**
 * Whether a server is spawned as the leader of a process group of its own. A server started
 * through a wrapper (`npx`, `npm exec`, `sh -c`, `uv run`) runs as the wrapper's child: signalling
 * the wrapper alone would leave the server running. Windows has no groups; its tree is ended instead.
 */
export const SPAWN_IN_OWN_GROUP = !isWindows;

/** Sends `signal` to the process `pid` and to every process it started. */
export function signalProcessTree(pid: number, signal: NodeJS.Signals): void {
	if (isWindows) {
		// No signals on Windows: a kill is always forced, and /T takes the children along.
		spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true });
		return;
	}
	try {
		process.kill(-pid, signal);
	} catch {
		// The whole group is gone already.
	}
}

/**
 * Whether a process of the group `pid` leads still runs (never known on Windows). A group this
 * process may not signal counts as gone: nothing more can be done about it.
 */
export function processGroupAlive(pid: number): boolean {
	if (isWindows) return false;
	try {
		process.kill(-pid, 0);
	} catch {
		return false;
	}
	return hasRunningMember(pid);
}

/** A cell to wait on: Atomics.wait is the one way to pause without an event loop. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
const EXIT_POLL_MS = 20;

/**
 * Ends process groups before this process exits, when nothing asynchronous runs any more:
 * SIGTERM, up to `graceMs` for them to end by themselves, then SIGKILL for those that did not.
 */
export function endProcessTreesNow(pids: readonly number[], graceMs: number): void {
	for (const pid of pids) signalProcessTree(pid, 'SIGTERM');
	const deadline = Date.now() + graceMs;
	let alive = pids.filter(processGroupAlive);
	while (alive.length > 0 && Date.now() < deadline) {
		Atomics.wait(PAUSE, 0, 0, EXIT_POLL_MS);
		alive = alive.filter(processGroupAlive);
	}
	for (const pid of alive) signalProcessTree(pid, 'SIGKILL');
}

/**
 * On Linux, whether the group has a member that is not a zombie: where nothing reaps orphans (n8n
 * as PID 1 in a container without an init), a group of zombies would otherwise look alive until
 * every signal had been tried in vain. Elsewhere the signal's answer stands.
 */
function hasRunningMember(group: number): boolean {
	let entries: string[];
	try {
		entries = readdirSync('/proc');
	} catch {
		return true;
	}
	for (const entry of entries) {
		if (!/^\d+$/.test(entry)) continue;
		let stat: string;
		try {
			stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
		} catch {
			continue;
		}
		// "pid (command) state ppid pgrp …": the command may hold spaces and parentheses.
		const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (Number(pgrp) === group && state !== 'Z') return true;
	}
	return false;
}
