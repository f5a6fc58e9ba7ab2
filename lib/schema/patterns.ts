import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { isRecord } from '../json/value';
import { reasonOf } from '../util/errorReason';
import { mapSubschemas } from './keywords';
import { linearRegExp } from './linearRegExp';

/** What a group holds, read as far as the parser is. */
interface GroupFrame {
	start: number;
	/** The atoms inside (at any depth) repeated a varying number of times (`a+`, `\d*`, `\w{1,10}`), unquantified. */
	unbounded: string[];
	/** The group's first and last atoms, and whether a quantifier follows each. */
	first?: { source: string; quantified: boolean };
	last?: { source: string; quantified: boolean };
	/** The first atom of each alternative ('' for one still empty, '?' for one that may be left out). */
	firsts: string[];
	/** A lookahead or lookbehind: it takes no characters from the parts around it. */
	lookaround: boolean;
	/** The run (see Run) the group starts with, the one of the alternative being read, and the
	 * longest each alternative before it ended with. */
	before: Run;
	run: Run;
	ends: Run;
}

/**
 * For each SAMPLE character, how many parts repeated a varying number of times (`*`, `+`,
 * `{1,3}`; not `?`), one after the other with nothing between them that refuses the character,
 * can match it: a value of that character alone can be split among them in that many dimensions
 * of ways.
 */
type Run = number[];

/**
 * Parts in a row (a search not anchored by `^` counts as one more, as it tries every start) that
 * make a pattern slow: three cost the cube of the value's length, seconds on 3 KB (`^\s*.*\s*$`,
 * `[a-z]+[a-z0-9]*$`). Two cost its square, 60 ms on 10 KB and seconds only on 100 KB: that is
 * left to JavaScript's engine, as such patterns are common (`^[a-z]+[a-z0-9]*$`) and values that
 * long rare.
 */
const SLOW_RUN = 3;

export type BacktrackingRisk = 'exponential' | 'polynomial';

/**
 * Whether a pattern may take exponential time to fail on a value chosen badly, as JavaScript's
 * backtracking engine tries every way of splitting the value among a repeated group's parts: a
 * group repeated more than once that holds a part repeated a varying number of times (`^(a+)+$`,
 * `(\w{1,10}\s?){1,20}`), unless a separator that part cannot match starts or ends each round
 * (`^([a-z0-9-]+\.)+[a-z]{2,}$`, `(\d{1,3}\.){3}`); or a repeated group whose alternatives can
 * start alike (`^(a|aa)+$`, `(\w|\d)*`). Fixed counts (a UUID's `([0-9a-f]{4}-){3}`) run.
 */
export function backtracksExponentially(pattern: string): boolean {
	return backtrackingRisk(pattern) === 'exponential';
}

/**
 * 'exponential' as backtracksExponentially says; 'polynomial' when SLOW_RUN parts in a row can
 * match a common character (`^\w*\w*\w*!`, `^\s*.*\s*$`); undefined when neither.
 */
export function backtrackingRisk(pattern: string): BacktrackingRisk | undefined {
	return riskOf(pattern).risk;
}

/** The risk, and the most parts in a row that can match a common character (the degree of a polynomial). */
function riskOf(pattern: string): { risk?: BacktrackingRisk; parts: number } {
	// A search tries the pattern at each start: a part before it that takes any character.
	const searchStart = SAMPLE.map(() => 1);
	const groups: GroupFrame[] = [frameAt(-1, searchStart, false)];
	let parts = 0;
	let index = 0;
	while (index < pattern.length) {
		const frame = groups[groups.length - 1];
		const char = pattern[index];
		if (char === '(') {
			groups.push(frameAt(index, frame.run, /^\(\?<?[=!]/.test(pattern.slice(index, index + 4))));
			index = groupBodyStart(pattern, index);
			continue;
		}
		if (char === '|') {
			frame.firsts.push('');
			frame.last = undefined;
			frame.ends = longest(frame.ends, frame.run);
			frame.run = frame.before;
			index++;
			continue;
		}
		let atomEnd = index + 1;
		if (char === '\\') atomEnd = escapeEnd(pattern, index);
		if (char === '[') atomEnd = classEnd(pattern, index);
		let atom = pattern.slice(index, atomEnd);
		let inner: GroupFrame | undefined;
		if (char === ')' && groups.length > 1) {
			inner = groups.pop()!;
			atom = pattern.slice(inner.start, atomEnd);
		}
		const quantifier = quantifierAt(pattern, atomEnd);
		if (inner && quantifier?.repeats && isAmbiguous(inner)) return { risk: 'exponential', parts };
		const parent = groups[groups.length - 1];
		if (inner) parent.unbounded.push(...inner.unbounded);
		if (quantifier?.varies) parent.unbounded.push(atom);
		parent.run = runAfter(parent.run, atom, inner, quantifier);
		parts = Math.max(parts, ...parent.run);
		if (!/^[\^$]$/.test(atom)) {
			parent.last = { source: atom, quantified: quantifier !== undefined };
			parent.first ??= parent.last;
			const alternative = parent.firsts.length - 1;
			if (parent.firsts[alternative] === '')
				parent.firsts[alternative] = quantifier?.optional ? MAY_BE_EMPTY : atom;
		}
		index = quantifier?.end ?? atomEnd;
	}
	return parts >= SLOW_RUN ? { risk: 'polynomial', parts } : { parts };
}

function frameAt(start: number, run: Run, lookaround: boolean): GroupFrame {
	return {
		start,
		unbounded: [],
		firsts: [''],
		lookaround,
		before: run,
		run,
		ends: run.map(() => 0),
	};
}

/** Atoms that take no character: `^` ends every run (nothing comes before the start), the others let it go on. */
const ZERO_WIDTH = new Set(['$', '\\b', '\\B']);

/**
 * The run after an atom (`inner` when it is a group): what it can take of each character goes on
 * the run, it counts as a part of it where it repeats a varying number of times, and a character
 * it refuses ends the run unless the atom may be left out.
 */
function runAfter(
	run: Run,
	atom: string,
	inner: GroupFrame | undefined,
	quantifier: ReturnType<typeof quantifierAt>,
): Run {
	if (atom === '^') return run.map(() => 0);
	if (ZERO_WIDTH.has(atom) || inner?.lookaround) return run;
	const part = quantifier?.repeats === true && quantifier.varies;
	// A group's run was read inside it: what it matches is asked only when it repeats.
	const matcher = inner && !part ? undefined : matcherOf(atom, '$');
	const takes = (at: number) => matcher?.test(SAMPLE[at]) === true;
	const through = inner
		? longest(inner.ends, inner.run)
		: run.map((count, at) => (takes(at) ? count : 0));
	const after = quantifier?.optional ? longest(run, through) : through;
	return part ? after.map((count, at) => (takes(at) ? count + 1 : count)) : after;
}

function longest(one: Run, other: Run): Run {
	return one.map((count, at) => Math.max(count, other[at]));
}

/** Whether a repeated group can split a value among its rounds in many ways. */
function isAmbiguous(group: GroupFrame): boolean {
	if (group.unbounded.length > 0 && !endsEachRound(group)) return true;
	return group.firsts.length > 1 && alternativesOverlap(group.firsts);
}

/**
 * Whether each round of the group starts or ends with one character that none of its varying parts
 * (single characters or classes) can match, so a value splits among the rounds one way only.
 */
function endsEachRound(group: GroupFrame): boolean {
	if (group.firsts.length > 1 || group.unbounded.some((part) => part.startsWith('('))) return false;
	const parts = group.unbounded.map((part) => matcherOf(part, ''));
	const separates = (atom: GroupFrame['last']) => {
		const separator = atom && !atom.quantified ? matcherOf(atom.source, '$') : undefined;
		// A separator takes one character: a lookaround, a boundary or an empty group takes none.
		return (
			separator !== undefined &&
			!separator.test('') &&
			SAMPLE.some((char) => separator.test(char)) &&
			SAMPLE.every(
				(char) =>
					!separator.test(char) || parts.every((part) => part !== undefined && !part.test(char)),
			)
		);
	};
	return separates(group.first) || separates(group.last);
}

/**
 * Whether two alternatives can start with the same character. One that may be empty, or starts with
 * a group, is taken to start like any other.
 */
function alternativesOverlap(firsts: string[]): boolean {
	if (firsts.some((first) => first === '' || first === MAY_BE_EMPTY || first.startsWith('(')))
		return true;
	const starts = firsts.map((first) => matcherOf(first, ''));
	if (starts.some((start) => start === undefined)) return true;
	return SAMPLE.some((char) => starts.filter((start) => start!.test(char)).length > 1);
}

/** An alternative whose first atom may be left out (`a*b`, `c?d`). */
const MAY_BE_EMPTY = '?';

/** The characters an overlap is looked for among: printable ASCII, a line end, letters beyond ASCII. */
const SAMPLE = [
	...Array.from({ length: 95 }, (_, code) => String.fromCharCode(32 + code)),
	'\n',
	'\t',
	'é',
	'ж',
];

/** A test of one character against an atom's start (`end` '$': the atom as a whole). */
function matcherOf(atom: string, end: string): RegExp | undefined {
	for (const flags of ['u', '']) {
		try {
			return new RegExp(`^(?:${atom})${end}`, flags);
		} catch {
			// Tried without the unicode flag next, as the check itself does.
		}
	}
	return undefined;
}

/** Where a group's body starts: past `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!` or `(?<name>`. */
function groupBodyStart(pattern: string, index: number): number {
	if (pattern[index + 1] !== '?') return index + 1;
	const named = /^\(\?<[A-Za-z_$][\w$]*>/.exec(pattern.slice(index, index + 64));
	if (named) return index + named[0].length;
	return index + (pattern[index + 2] === '<' ? 4 : 3);
}

/** The index just past the escape at `index` (`\d`, `\u00e9`, `\u{1F600}`, `\x41`, `\p{L}`, `\cA`). */
function escapeEnd(pattern: string, index: number): number {
	const rest = pattern.slice(index, index + 16);
	const long =
		/^\\(?:u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[pP]\{[^}]*\}|c[A-Za-z])/.exec(rest);
	return index + (long ? long[0].length : 2);
}

/** Sticky: read where a quantifier may start, without copying the rest of the pattern. */
const BRACES = /\{(\d+)(,(\d*))?\}/y;

/**
 * The quantifier at `index` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy), if one is
 * there: whether it repeats (more than once), whether a varying number of times, and whether it
 * may match none.
 */
function quantifierAt(
	pattern: string,
	index: number,
): { repeats: boolean; varies: boolean; optional: boolean; end: number } | undefined {
	const char = pattern[index];
	let least: number;
	let most: number;
	let end: number;
	if (char === '*' || char === '+' || char === '?') {
		least = char === '+' ? 1 : 0;
		most = char === '?' ? 1 : Infinity;
		end = index + 1;
	} else {
		BRACES.lastIndex = index;
		const braces = BRACES.exec(pattern);
		if (!braces) return undefined;
		least = Number(braces[1]);
		most = braces[2] === undefined ? least : Number(braces[3] || Infinity);
		end = index + braces[0].length;
	}
	return {
		repeats: most > 1,
		varies: most > least,
		optional: least === 0,
		end: pattern[end] === '?' ? end + 1 : end,
	};
}

/** The index just past the character class that opens at `index`. */
function classEnd(pattern: string, index: number): number {
	let at = index + 1;
	while (at < pattern.length && pattern[at] !== ']') at += pattern[at] === '\\' ? 2 : 1;
	return at + 1;
}

/** Why a pattern is left out of checks instead of run; undefined when it runs (in either engine). */
export function patternRefusal(pattern: string): string | undefined {
	const vetted = vettedPattern(pattern, 'u');
	return 'refusal' in vetted ? vetted.refusal : undefined;
}

/**
 * The longest value JavaScript's engine checks against a pattern that may take it polynomial time
 * and that the linear-time engine cannot run: one of `parts` parts in a row tries about
 * length^parts / parts! splits of a value that fails, and this keeps them to some 20 million, a
 * few hundredths of a second (493 characters for three parts, 148 for four, 75 for five).
 */
export function longestValueFor(parts: number): number {
	let splits = 2e7;
	for (let factor = 2; factor <= parts; factor++) splits *= factor;
	return Math.floor(splits ** (1 / parts));
}

/**
 * ajv's regular expressions (vettedPattern), with a pattern refused (patternRefusal) left out: it
 * matches every string, and `onLeftOut` hears of it, so the schema's other rules are still checked.
 * A pattern run in JavaScript's engine though it may take polynomial time is left out of the
 * values longer than it can take (longestValueFor) alone, and `onValueLeftOut` hears of each.
 */
export function guardedRegExp(
	onLeftOut: (pattern: string, reason: string) => void,
	onValueLeftOut: (pattern: string, reason: string) => void,
): RegExpEngine {
	const engine = (pattern: string, flags: string): RegExpLike => {
		const vetted = vettedPattern(pattern, flags);
		if ('refusal' in vetted) {
			onLeftOut(pattern, vetted.refusal);
			// ajv shares one compiled pattern among schemas by this text.
			const matchesAll: RegExpLike = { test: () => true };
			return Object.assign(matchesAll, { toString: () => `left out: ${pattern}` });
		}
		const { regExp, slowOnLongValues } = vetted;
		if (slowOnLongValues === undefined) return regExp;
		const { why, longest } = slowOnLongValues;
		const reason = `${why}; it is checked on values of up to ${longest} characters`;
		const capped: RegExpLike = {
			test: (value) => {
				if (value.length <= longest) return regExp.test(value);
				onValueLeftOut(pattern, reason);
				return true;
			},
		};
		return Object.assign(capped, { toString: () => `capped: ${pattern}` });
	};
	return Object.assign(engine, { code: 'guardedRegExp' });
}

/** Why JavaScript's engine may take too long on a pattern, by the risk found. */
const SLOWNESS: Record<BacktrackingRisk, string> = {
	exponential:
		'it repeats a group that can match the same text in many ways, which can take exponential time to match',
	polynomial:
		'it has three or more parts in a row that repeat and can match the same characters, which can take polynomial time (seconds on a few thousand characters) to match',
};

/**
 * The pattern compiled for JavaScript's engine with ajv's flags or, failing that, without the
 * unicode flag, under which escapes that other engines take are errors (Python's `\-`, `\@`,
 * `\:`); for a pattern that engine may take too long on, compiled for a linear-time one instead;
 * or why it is not run.
 */
function vettedPattern(
	pattern: string,
	flags: string,
):
	| { regExp: RegExpLike; slowOnLongValues?: { why: string; longest: number } }
	| { refusal: string } {
	let regExp: RegExp;
	try {
		regExp = nativeRegExp(pattern, flags);
	} catch (error) {
		return { refusal: `it is no JavaScript regular expression: ${reasonOf(error)}` };
	}
	const { risk, parts } = riskOf(pattern);
	if (risk === undefined) return { regExp };
	const linear = linearRegExp(pattern);
	if ('regExp' in linear) return linear;
	const why = `${SLOWNESS[risk]}, and the linear-time engine cannot run it: ${linear.refusal}`;
	// Slow only on long values: the short ones are checked as JavaScript checks them.
	if (risk === 'polynomial')
		return { regExp, slowOnLongValues: { why, longest: longestValueFor(parts) } };
	return { refusal: why };
}

/** Throws the error of the pattern with ajv's flags when it compiles neither way. */
function nativeRegExp(pattern: string, flags: string): RegExp {
	try {
		return new RegExp(pattern, flags);
	} catch (error) {
		try {
			return new RegExp(pattern, flags.replace('u', ''));
		} catch {
			throw error;
		}
	}
}

/**
 * The schema with the subschema of each refused `patternProperties` key made `true`: the key
 * matches every name (guardedRegExp) and asks nothing of its value, so no property is failed
 * for a pattern left out, nor counted as additional.
 */
export function refusedPatternPropertiesOpened(node: unknown): unknown {
	if (!isRecord(node)) return node;
	const schema = mapSubschemas(node, refusedPatternPropertiesOpened);
	if (!isRecord(schema.patternProperties)) return schema;
	const entries = Object.entries(schema.patternProperties).map(([pattern, inner]) => [
		pattern,
		patternRefusal(pattern) === undefined ? inner : true,
	]);
	return { ...schema, patternProperties: Object.fromEntries(entries) };
}
