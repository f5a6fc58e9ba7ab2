import { ConnectionPool } from './pool';

/**
 * The pool every MCP Client node in this n8n process shares: connections survive from one
 * execution to the next, so stateful servers keep their state and nothing restarts per call.
 */
export const sharedPool = new ConnectionPool({
	maxSize: 20,
	idleTimeoutMs: 5 * 60_000,
	connectTimeoutMs: 30_000,
});

process.once('exit', () => sharedPool.killProcesses());
