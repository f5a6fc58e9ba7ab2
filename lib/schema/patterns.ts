import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { isRecord } from '../json/value';
import { reasonOf } from '../util/errorReason';
import { mapSubschemas } from './keywords';

/**
 * Whether a repeated group holds a quantifier of its own (star height above 1, as `^(a+)+$` or
 * `(\d*,?){5}`): JavaScript's backtracking engine may try every way of splitting a value that does
 * not match between the two, which takes exponential time in the value's length.
 */
export function nestsQuantifiers(pattern: string): boolean {
	// One entry per open group: whether something inside it is quantified.
	const groups: boolean[] = [false];
	let index = 0;
	while (index < pattern.length) {
		const char = pattern[index];
		if (char === '(') {
			groups.push(false);
			index++;
			continue;
		}
		let atomEnd = index + 1;
		if (char === '\\') atomEnd = index + 2;
		if (char === '[') atomEnd = classEnd(pattern, index);
		if (char === ')' && groups.length > 1 && groups.pop()) {
			if (quantifierAt(pattern, atomEnd)?.repeats) return true;
			groups[groups.length - 1] = true;
		}
		const quantifier = quantifierAt(pattern, atomEnd);
		if (quantifier) groups[groups.length - 1] = true;
		index = quantifier?.end ?? atomEnd;
	}
	return false;
}

/** Sticky: read where a quantifier may start, without copying the rest of the pattern. */
const BRACES = /\{(\d+)(,(\d*))?\}/y;

/** The quantifier at `index` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy), if one is there. */
function quantifierAt(
	pattern: string,
	index: number,
): { repeats: boolean; end: number } | undefined {
	const char = pattern[index];
	let repeats: boolean;
	let end: number;
	if (char === '*' || char === '+' || char === '?') {
		repeats = char !== '?';
		end = index + 1;
	} else {
		BRACES.lastIndex = index;
		const braces = BRACES.exec(pattern);
		if (!braces) return undefined;
		const most = braces[2] === undefined ? Number(braces[1]) : Number(braces[3] || Infinity);
		repeats = most > 1;
		end = index + braces[0].length;
	}
	return { repeats, end: pattern[end] === '?' ? end + 1 : end };
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
	if (nestsQuantifiers(pattern))
		return {
			refusal:
				'it repeats a group that holds a quantifier, which can take exponential time to match',
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
