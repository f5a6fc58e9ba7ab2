import type { TokenCounts } from '../conversation/types';
import { describeUsage, usd } from '../usage/budget';
import type { TraceDiff } from './diff';
import { describeFacts, type StoryFacts, type StoryStep } from './story';
import type { RoundUsage, TraceUsage } from './usage';

const CELL_WIDTH = 48;
const MISSING = '(missing)';

/**
 * The diff as a text table, one row per step: the left trace's facts, and the right's where they
 * differ ("=" where they agree). ">" marks the first divergence, "!" the other rows that differ;
 * the first divergence is then given in full below the table.
 */
export function formatDiff(diff: TraceDiff): string {
	const header = ['', '#', 'round', 'step', 'left', 'right'];
	const rows = diff.rows.map((row, index) => [
		index === diff.firstDivergence?.index ? '>' : row.same ? '' : '!',
		String(index + 1),
		String(row.round),
		row.label,
		cell(row.left),
		row.same ? '=' : cell(row.right),
	]);
	const table = [header, ...rows];
	const widths = header.map((_, column) => widest(table.map((line) => line[column])));
	const lines = table.map((line) =>
		line
			.map((value, column) => value.padEnd(widths[column]))
			.join('  ')
			.trimEnd(),
	);
	return printable(`${[...lines, '', summary(diff)].join('\n')}\n`);
}

function cell(facts: StoryFacts | null): string {
	if (!facts) return MISSING;
	const text = describeFacts(facts).replace(/\s+/g, ' ');
	if (text.length <= CELL_WIDTH) return text;
	// Never half of a character written as two UTF-16 units (an emoji).
	const cut = text.slice(0, CELL_WIDTH - 1).replace(/[\uD800-\uDBFF]$/, '');
	return `${cut}…`;
}

function summary(diff: TraceDiff): string {
	const { firstDivergence: first, rows } = diff;
	if (!first) {
		if (rows.length === 0) return 'Equal: neither trace has a step to compare.';
		const partly =
			diff.withoutPayloads === 0
				? ''
				: ` (${diff.withoutPayloads} of them on their sizes, statuses and names only: their payloads were left out)`;
		return `Equal: the traces agree on all ${rows.length} steps${partly}.`;
	}
	const differing = rows.filter((row) => !row.same).length;
	// Multi-line values (tool output) keep their lines, indented under the label.
	const full = (value: string | null) => (value ?? MISSING).replace(/\n/g, '\n         ');
	return [
		`Diverged at row ${first.index + 1} (round ${first.round}): ${first.what}`,
		`  left:  ${full(first.left)}`,
		`  right: ${full(first.right)}`,
		`${differing} of ${rows.length} steps differ.`,
	].join('\n');
}

/**
 * A story for a reader, one line per step, round by round: the tools offered, the model's choice
 * (calls with their arguments, or the answer), each call's checked arguments and its result.
 * Schema and description hashes are left out: they are for comparing, not reading.
 */
export function formatStory(steps: readonly StoryStep[]): string {
	const labelWidth = widest(steps.map((step) => step.label));
	const lines = steps.map((step) => {
		const readable = Object.fromEntries(
			Object.entries(step.facts).filter(([name]) => !HASHES.includes(name)),
		);
		const start = `round ${step.round}  ${step.label.padEnd(labelWidth)}  `;
		// A value's further lines (tool output) are indented under it: none can pass for a step.
		const indent = `\n${' '.repeat(start.length)}`;
		return `${start}${describeFacts(readable).replace(/\n/g, indent)}`;
	});
	return printable(`${lines.join('\n')}\n`);
}

/**
 * What the conversation used, for a reader: a line per model call (the model that answered, its
 * tokens by kind, its cost), then the totals and the time. Nothing when no model was called.
 */
export function formatUsage(usage: TraceUsage): string {
	if (usage.rounds.length === 0) return '';
	const lines = usage.rounds.map(
		(call) => `round ${call.round}  usage  ${describeFacts(roundFacts(call))}`,
	);
	const priced =
		usage.priceSources.length > 0 ? `; priced by ${usage.priceSources.join(', ')}` : '';
	const unknown = usage.totals.costUnknown ? ` (${usage.totals.costUnknown})` : '';
	const time = `time: ${seconds(usage.elapsedMs)} (model ${seconds(usage.modelMs)}, tools ${seconds(usage.toolMs)})`;
	lines.push(`total    usage  ${describeUsage(usage.totals)}${unknown}${priced}; ${time}`);
	return printable(`${lines.join('\n')}\n`);
}

const KIND_NAMES: Array<[keyof TokenCounts, string]> = [
	['input', 'input'],
	['cacheRead', 'cache read'],
	['cacheWrite', 'cache write'],
	['output', 'output'],
	['reasoning', 'reasoning'],
];

function roundFacts(call: RoundUsage): StoryFacts {
	const counts = KIND_NAMES.flatMap(([kind, name]): Array<[string, string]> => {
		const count = call.tokens[kind];
		if (count !== null) return [[name, count.toLocaleString('en-US')]];
		// Input and output are always said; a kind the vendor does not count apart is left out.
		return kind === 'input' || kind === 'output' ? [[name, 'unreported']] : [];
	});
	const { cost } = call;
	return Object.fromEntries([
		...(call.model ? [['model', call.model]] : []),
		...counts,
		['cost', cost.cost === null ? `unknown (${cost.costUnknown})` : usd(cost.cost)],
	]);
}

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** Facts that are hashes: for comparing, not reading. */
const HASHES = ['schemas', 'descriptions'];

/**
 * The text with control characters (but line ends and tabs) and bidirectional overrides written
 * as escapes: a tool's output must not move the cursor, clear a line, or reorder what the reader sees.
 */
export function printable(text: string): string {
	return text.replace(
		/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
		(char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}

/** The length of the longest text; a loop, as spreading a long trace's texts overflows the stack. */
function widest(texts: readonly string[]): number {
	let width = 0;
	for (const text of texts) width = Math.max(width, text.length);
	return width;
}
