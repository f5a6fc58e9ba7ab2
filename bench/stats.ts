// What the in-engine benchmarks share: order statistics, and n8n's log as a production n8n keeps it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The value at `p` percent of the sorted values (nearest rank); 50 is the median. */
export function percentile(values: readonly number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (values: readonly number[]) => percentile(values, 50);

/**
 * n8n logs at its default level, info, to a file in a temporary folder (n8n-core reads these at its
 * first run), so the engine does the logging work it does in production; returns the clean-up.
 */
export function quietEngineLog(): () => void {
	const logFolder = mkdtempSync(path.join(tmpdir(), 'n8n-bench-log-'));
	process.env.N8N_LOG_LEVEL = 'info';
	process.env.N8N_LOG_OUTPUT = 'file';
	process.env.N8N_LOG_FILE_LOCATION = path.join(logFolder, 'n8n.log');
	return () => rmSync(logFolder, { recursive: true, force: true });
}
