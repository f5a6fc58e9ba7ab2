import { randomUUID } from 'node:crypto';
import { listTestServerProcesses, RUN_ID_VARIABLE } from './servers';

export interface ServerProcessState {
	mcpTestServersBefore?: number[];
}

/** Marks this run (workers and the servers they start inherit the marker) and notes servers already running. */
export default async function globalSetup(): Promise<void> {
	process.env[RUN_ID_VARIABLE] = randomUUID();
	// Globals set here are seen by globalTeardown, which runs in the same process.
	(globalThis as ServerProcessState).mcpTestServersBefore = listTestServerProcesses().map(
		({ pid }) => pid,
	);
}
