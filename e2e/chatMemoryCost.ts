/**
 * What chat memory costs in n8n on its default database (SQLite): a session of many messages, each
 * answered with a tool call and its result, and for each message the time n8n recorded for our
 * Chat Memory nodes (Load, Save) and for n8n's Data table nodes that read and write the rows, read
 * from the executions' run data; and the stored row's size as the session grows. Figures are
 * printed, not asserted: they are measurements of the machine as much as of the nodes.
 */
import type { RunContext } from './context.ts';
import { executionData, type Loose } from './n8nRest.ts';
import type { RunningN8n } from './phase.ts';
import type { Stored } from './chatStream.ts';

const OURS = ['Load Conversation', 'Save Conversation'];
const TABLE_NODES = ['Read Session', 'Write Session'];

const percentile = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/**
 * Sends `messages` one after another through `send` (which answers with the message's stored
 * execution), then reports our nodes' and the Data table nodes' time per message.
 */
export async function memoryCost(
	ctx: RunContext,
	n8n: RunningN8n,
	label: string,
	messages: string[],
	send: (says: string, index: number) => Promise<Stored | undefined>,
): Promise<void> {
	const name = `${label}: a session of ${messages.length} messages, each with a tool call and its result (${messages.length * 4} messages stored)`;
	const ours: number[] = [];
	const tables: number[] = [];
	const rowBytes: number[] = [];
	for (const [index, says] of messages.entries()) {
		const execution = await send(says, index);
		if (!execution || execution.status !== 'success')
			return ctx.results.fail(
				name,
				`message ${index + 1}: execution ${execution?.id} ${execution?.status}`,
			);
		const runData: Loose = (await executionData(n8n, execution.id))?.resultData?.runData ?? {};
		const time = (nodes: string[]) =>
			nodes.reduce((sum, node) => sum + (runData[node]?.[0]?.executionTime ?? NaN), 0);
		ours.push(time(OURS));
		tables.push(time(TABLE_NODES));
		rowBytes.push(Buffer.byteLength(JSON.stringify(execution.row ?? {})));
	}
	const figures = (values: number[]) =>
		`median ${percentile(values, 50)} ms, p95 ${percentile(values, 95)} ms, at the last message ${values.at(-1)} ms`;
	const growth = rowBytes.at(-1)! / rowBytes[0];
	ctx.results.check(
		`${name}: per message, our Chat Memory nodes (Load + Save) took ${figures(ours)}; n8n's Data table nodes reading and writing the rows took ${figures(tables)}; each turn stored ${Math.min(...rowBytes)}–${Math.max(...rowBytes)} bytes`,
		ours.every(Number.isFinite) && tables.every(Number.isFinite) && growth < 1.2,
		`row sizes ${rowBytes.join(', ')}; times ${ours.join(', ')}`,
	);
}
