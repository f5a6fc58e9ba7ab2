import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { isRecord } from '../json/value';
import { reasonOf } from '../util/errorReason';
import { mapSubschemas } from './keywords';

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
}

/**
 * Whether a pattern may take exponential time to fail on a value chosen badly, as JavaScript's
 * backtracking engine tries every way of splitting the value among a repeated group's parts: a
 * group repeated more than once that holds a part repeated a varying number of times (`^(a+)+$`,
 * `(\w{1,10}\s?){1,20}`), unless a separator that part cannot match starts or ends each round
 * (`^([a-z0-9-]+\.)+[a-z]{2,}$`, `(\d{1,3}\.){3}`); or a repeated group whose alternatives can
 * start alike (`^(a|aa)+$`, `(\w|\d)*`). Fixed counts (a UUID's `([0-9a-f]{4}-){3}`) run.
 */
export function backtracksExponentially(pattern: string): boolean {
	const groups: GroupFrame[] = [{ start: -1, unbounded: [], firsts: [''] }];
	let index = 0;
	while (index < pattern.length) {
		const frame = groups[groups.length - 1];
		const char = pattern[index];
		if (char === '(') {
			groups.push({ start: index, unbounded: [], firsts: [''] });
			index = groupBodyStart(pattern, index);
			continue;
		}
		if (char === '|') {
			frame.firsts.push('');
			frame.last = undefined;
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
		if (inner && quantifier?.repeats && isAmbiguous(inner)) return true;
		const parent = groups[groups.length - 1];
		if (inner) parent.unbounded.push(...inner.unbounded);
		if (quantifier?.varies) parent.unbounded.push(atom);
		if (!/^[\^$]$/.test(atom)) {
			parent.last = { source: atom, quantified: quantifier !== undefined };
			parent.first ??= parent.last;
			const alternative = parent.firsts.length - 1;
			if (parent.firsts[alternative] === '')
				parent.firsts[alternative] = quantifier?.optional ? MAY_BE_EMPTY : atom;
		}
		index = quantifier?.end ?? atomEnd;
	}
	return false;
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

/** Why a pattern is left out of checks instead of run; undefined when it runs. */
export function patternRefusal(pattern: string): string | undefined {
	const vetted = vettedPattern(pattern, 'u');
	return 'refusal' in vetted ? vetted.refusal : undefined;
}

/**
 * ajv's regular expressions, with a pattern refused (patternRefusal) left out: it matches every
 * string, and `onLeftOut` hears of it, so the schema's other rules are still checked.
 */
export function guardedRegExp(onLeftOut: (pattern: string, reason: string) => void): RegExpEngine {
	const engine = (pattern: string, flags: string): RegExpLike => {
		const vetted = vettedPattern(pattern, flags);
		if ('regExp' in vetted) return vetted.regExp;
		onLeftOut(pattern, vetted.refusal);
		// ajv shares one compiled pattern among schemas by this text.
		const matchesAll: RegExpLike = { test: () => true };
		return Object.assign(matchesAll, { toString: () => `left out: ${pattern}` });
	};
	return Object.assign(engine, { code: 'guardedRegExp' });
}

/**
 * The pattern compiled with ajv's flags or, failing that, without the unicode flag, under which
 * escapes that other engines take are errors (Python's `\-`, `\@`, `\:`); or why it is not run.
 */
function vettedPattern(pattern: string, flags: string): { regExp: RegExp } | { refusal: string } {
	if (backtracksExponentially(pattern))
		return {
			refusal:
				'it repeats a group that can match the same text in many ways, which can take exponential time to match',
		};
	try {
		return { regExp: new RegExp(pattern, flags) };
	} catch (error) {
		try {
			return { regExp: new RegExp(pattern, flags.replace('u', '')) };
		} catch {
			return { refusal: `it is no JavaScript regular expression: ${reasonOf(error)}` };
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
