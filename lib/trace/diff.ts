import { canonicalJson } from '../json/canonical';
import type { RecordedEntry } from './read';
import {
	OMITTED,
	compareSteps,
	describeFacts,
	storyOf,
	type StoryFacts,
	type StoryStep,
	type StoryStepName,
} from './story';

/** One step of either story; `left` or `right` is null where that story has no such step. */
export interface DiffRow {
	step: StoryStepName;
	round: number;
	label: string;
	left: StoryFacts | null;
	right: StoryFacts | null;
	same: boolean;
}

export interface Divergence {
	/** The row where the stories part. */
	index: number;
	step: StoryStepName;
	round: number;
	/** What differs: "model choice: tools", "call 2 add result: only in the left trace". */
	what: string;
	/** The differing fact of each side, or the whole step; null for the side without the step. */
	left: string | null;
	right: string | null;
}

export interface TraceDiff {
	equal: boolean;
	firstDivergence?: Divergence;
	rows: DiffRow[];
	/** Rows that agree only on what their steps keep without payloads (sizes, statuses, names). */
	withoutPayloads: number;
}

export function diffTraces(
	left: readonly RecordedEntry[],
	right: readonly RecordedEntry[],
): TraceDiff {
	return diffStories(storyOf(left), storyOf(right));
}

/** Both stories step by step, in order: steps in the same place are compared, the others stand alone. */
export function diffStories(left: readonly StoryStep[], right: readonly StoryStep[]): TraceDiff {
	const rows: DiffRow[] = [];
	let [l, r] = [0, 0];
	while (l < left.length || r < right.length) {
		const order = l === left.length ? 1 : r === right.length ? -1 : compareSteps(left[l], right[r]);
		const leftStep = order <= 0 ? left[l++] : undefined;
		const rightStep = order >= 0 ? right[r++] : undefined;
		const { step, round, label } = (leftStep ?? rightStep)!;
		const same =
			!!leftStep && !!rightStep && canonicalJson(leftStep.facts) === canonicalJson(rightStep.facts);
		rows.push({
			step,
			round,
			label,
			left: leftStep?.facts ?? null,
			right: rightStep?.facts ?? null,
			same,
		});
	}
	const index = rows.findIndex((row) => !row.same);
	const withoutPayloads = rows.filter((row) => row.same && row.left?.payload === OMITTED).length;
	return index === -1
		? { equal: true, rows, withoutPayloads }
		: { equal: false, firstDivergence: divergenceAt(rows, index), rows, withoutPayloads };
}

function divergenceAt(rows: readonly DiffRow[], index: number): Divergence {
	const { step, round, label, left, right } = rows[index];
	const at = { index, step, round };
	if (!left || !right) {
		const side = left ? 'left' : 'right';
		return {
			...at,
			what: `${label}: only in the ${side} trace`,
			left: left && describeFacts(left),
			right: right && describeFacts(right),
		};
	}
	const differing = [...new Set([...Object.keys(left), ...Object.keys(right)])].filter(
		(name) => left[name] !== right[name],
	);
	// Facts of different kinds (tool calls against an answer) read best whole.
	if (differing.some((name) => left[name] === undefined || right[name] === undefined)) {
		return { ...at, what: label, left: describeFacts(left), right: describeFacts(right) };
	}
	const [first] = differing;
	return { ...at, what: `${label}: ${first}`, left: left[first], right: right[first] };
}
