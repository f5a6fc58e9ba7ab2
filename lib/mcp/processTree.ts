import { spawnSync } from 'node:child_process';

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

/** Whether any process of the group `pid` leads is still running (never known on Windows). */
export function processGroupAlive(pid: number): boolean {
	if (isWindows) return false;
	try {
		process.kill(-pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}
