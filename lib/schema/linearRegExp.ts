import type { RegExpLike } from 'ajv/dist/types';
import { RE2JS } from 're2js';
import { reasonOf } from '../util/errorReason';

/**
 * The pattern compiled by RE2 (re2js), which matches in time linear in the value's length, with
 * the meaning it has in JavaScript under ajv's unicode flag; or why it cannot be.
 */
export function linearRegExp(pattern: string): { regExp: RegExpLike } | { refusal: string } {
	const count = largeGroupCount(pattern);
	if (count !== undefined)
		return {
			refusal: `it repeats a group up to ${count} times, which the linear-time engine writes out as ${count} copies and takes seconds on a long value`,
		};
	const source = unicodeSource(pattern);
	if (source === undefined)
		return { refusal: 'it is written for JavaScript without the unicode flag' };
	let compiled: RE2JS;
	try {
		compiled = RE2JS.compile(re2Source(source));
	} catch (error) {
		return { refusal: reasonOf(error) };
	}
	const regExp: RegExpLike = { test: (value) => compiled.test(value) };
	// ajv shares one compiled pattern among schemas by this text.
	return { regExp: Object.assign(regExp, { toString: () => `linear: ${pattern}` }) };
}

/** More copies of a group than this make even the linear-time engine slow: its time grows with the value's length times the pattern's size. */
const MAX_GROUP_COUNT = 100;

/** The first count above MAX_GROUP_COUNT that repeats a group (`(?:\w+\s*){1,1000}`). */
function largeGroupCount(pattern: string): number | undefined {
	for (const [, least, most] of pattern.matchAll(/\)\{(\d+)(?:,(\d*))?\}/g)) {
		const count = Math.max(Number(least), Number(most || 0));
		if (count > MAX_GROUP_COUNT) return count;
	}
	return undefined;
}

/**
 * The pattern as it compiles with the unicode flag: as written, or with escaped punctuation that
 * only JavaScript without the flag takes (Python's `\-`, `\@`, `\:`) written as the hex escape of
 * the same character.
 */
function unicodeSource(pattern: string): string | undefined {
	for (const source of [pattern, pattern.replace(/\\(.)/gsu, hexForLooseEscape)]) {
		try {
			new RegExp(source, 'u');
			return source;
		} catch {
			// The next way of reading it, if any.
		}
	}
	return undefined;
}

function hexForLooseEscape(escape: string, char: string): string {
	if (!/[!-/:-@[-`{-~]/.test(char) || SYNTAX_CHARACTERS.includes(char)) return escape;
	return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

const SYNTAX_CHARACTERS = '^$\\.*+?()[]{}|/';

type Ranges = Array<[number, number]>;

/** ECMAScript's `\s` (WhiteSpace and LineTerminator); RE2's holds the ASCII ones but `\v`. */
const WHITE_SPACE: Ranges = [
	[0x9, 0xd],
	[0x20, 0x20],
	[0xa0, 0xa0],
	[0x1680, 0x1680],
	[0x2000, 0x200a],
	[0x2028, 0x2029],
	[0x202f, 0x202f],
	[0x205f, 0x205f],
	[0x3000, 0x3000],
	[0xfeff, 0xfeff],
];

/** What ECMAScript's `.` does not match; RE2's stops at `\n` only. */
const LINE_TERMINATORS: Ranges = [
	[0xa, 0xa],
	[0xd, 0xd],
	[0x2028, 0x2029],
];

const LAST_CODE_POINT = 0x10ffff;

function complement(ranges: Ranges): Ranges {
	const gaps: Ranges = [];
	let next = 0;
	for (const [low, high] of ranges) {
		if (low > next) gaps.push([next, low - 1]);
		next = high + 1;
	}
	if (next <= LAST_CODE_POINT) gaps.push([next, LAST_CODE_POINT]);
	return gaps;
}

/** Ranges as the inside of an RE2 class. */
function classBody(ranges: Ranges): string {
	const code = (point: number) => `\\x{${point.toString(16)}}`;
	return ranges
		.map(([low, high]) => (low === high ? code(low) : `${code(low)}-${code(high)}`))
		.join('');
}

/** What `\s` and `\S` stand for inside a class. */
const CLASS_ESCAPES: Record<string, string> = {
	s: classBody(WHITE_SPACE),
	S: classBody(complement(WHITE_SPACE)),
	// Backspace in an ECMAScript class; RE2 has no such escape.
	b: classBody([[0x8, 0x8]]),
};

const DOT = `[${classBody(complement(LINE_TERMINATORS))}]`;
const EMPTY_CLASS = `[^${classBody([[0, LAST_CODE_POINT]])}]`;
const ANY_CLASS = `[${classBody([[0, LAST_CODE_POINT]])}]`;

/**
 * RE2's text for a pattern that compiles in JavaScript with the unicode flag: where the two read
 * alike it is copied; `\s`, `.`, `\uXXXX`, `\cX`, `[]`, `[^]`, a `[` inside a class (RE2's `[:alpha:]`)
 * and property names are written as RE2 reads them; names of groups go (only whether it matches
 * is asked); lookarounds and back references cannot be run.
 */
export function re2Source(pattern: string): string {
	let out = '';
	let inClass = false;
	let index = 0;
	while (index < pattern.length) {
		const char = pattern[index];
		if (char === '\\') {
			const escape = translatedEscape(pattern, index, inClass);
			out += escape.text;
			index = escape.end;
		} else if (inClass) {
			if (char === ']') inClass = false;
			out += char === '[' ? '\\[' : char;
			index++;
		} else if (pattern.startsWith('[]', index)) {
			out += EMPTY_CLASS;
			index += 2;
		} else if (pattern.startsWith('[^]', index)) {
			out += ANY_CLASS;
			index += 3;
		} else if (char === '[') {
			inClass = true;
			out += pattern.startsWith('[^', index) ? '[^' : '[';
			index += pattern.startsWith('[^', index) ? 2 : 1;
		} else if (char === '.') {
			out += DOT;
			index++;
		} else if (char === '(' && pattern[index + 1] === '?') {
			const opening = /^\(\?(?::|<[^=!][^>]*>)/.exec(pattern.slice(index));
			if (!opening)
				throw new Error(
					/^\(\?<?[=!]/.test(pattern.slice(index, index + 4))
						? 'it looks ahead or behind'
						: 'it sets flags for a group',
				);
			out += opening[0] === '(?:' ? '(?:' : '(';
			index += opening[0].length;
		} else {
			out += char;
			index++;
		}
	}
	return out;
}

function translatedEscape(
	pattern: string,
	index: number,
	inClass: boolean,
): { text: string; end: number } {
	const next = pattern[index + 1];
	const codePoint = escapedCodePoint(pattern, index);
	if (codePoint) return { text: `\\x{${codePoint.value.toString(16)}}`, end: codePoint.end };
	if (/[1-9k]/.test(next)) throw new Error('it refers back to a group');
	if (next === 's' || next === 'S' || (next === 'b' && inClass)) {
		const body = CLASS_ESCAPES[next];
		return { text: inClass ? body : `[${body}]`, end: index + 2 };
	}
	if (next === 'p' || next === 'P') {
		const end = pattern.indexOf('}', index) + 1;
		return { text: `\\${next}{${re2PropertyName(pattern.slice(index + 3, end - 1))}}`, end };
	}
	// `\d`, `\w`, `\b`, `\f`, `\n`, `\t`, escaped punctuation: alike in both.
	return { text: pattern.slice(index, index + 2), end: index + 2 };
}

/**
 * RE2 knows general categories and scripts by bare name (`L`, `Greek`), ECMAScript as `gc=`
 * or `sc=` too; one RE2 does not know (a long category name, `scx=`) makes it refuse the pattern.
 */
function re2PropertyName(property: string): string {
	const name = property.replace(/^(?:General_Category|gc|Script|sc)=/, '');
	return GENERAL_CATEGORY_ALIASES[name] ?? name;
}

/** ECMAScript's long names of the General Categories, by RE2's short ones. */
const GENERAL_CATEGORY_ALIASES: Record<string, string> = {
	Letter: 'L',
	Cased_Letter: 'LC',
	Uppercase_Letter: 'Lu',
	Lowercase_Letter: 'Ll',
	Titlecase_Letter: 'Lt',
	Modifier_Letter: 'Lm',
	Other_Letter: 'Lo',
	Mark: 'M',
	Combining_Mark: 'M',
	Nonspacing_Mark: 'Mn',
	Spacing_Mark: 'Mc',
	Enclosing_Mark: 'Me',
	Number: 'N',
	Decimal_Number: 'Nd',
	digit: 'Nd',
	Letter_Number: 'Nl',
	Other_Number: 'No',
	Punctuation: 'P',
	punct: 'P',
	Connector_Punctuation: 'Pc',
	Dash_Punctuation: 'Pd',
	Open_Punctuation: 'Ps',
	Close_Punctuation: 'Pe',
	Initial_Punctuation: 'Pi',
	Final_Punctuation: 'Pf',
	Other_Punctuation: 'Po',
	Symbol: 'S',
	Math_Symbol: 'Sm',
	Currency_Symbol: 'Sc',
	Modifier_Symbol: 'Sk',
	Other_Symbol: 'So',
	Separator: 'Z',
	Space_Separator: 'Zs',
	Line_Separator: 'Zl',
	Paragraph_Separator: 'Zp',
	Other: 'C',
	Control: 'Cc',
	cntrl: 'Cc',
	Format: 'Cf',
	Surrogate: 'Cs',
	Private_Use: 'Co',
	Unassigned: 'Cn',
};

/** The code point an escape stands for (`\u00e9`, a surrogate pair of them, `\u{1F600}`, `\x41`, `\cA`, `\0`). */
function escapedCodePoint(
	pattern: string,
	index: number,
): { value: number; end: number } | undefined {
	const rest = pattern.slice(index, index + 14);
	const pair = /^\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/i.exec(rest);
	if (pair) {
		const value =
			0x10000 + ((parseInt(pair[1], 16) - 0xd800) << 10) + parseInt(pair[2], 16) - 0xdc00;
		return { value, end: index + pair[0].length };
	}
	const hex = /^\\(?:u\{([0-9a-f]+)\}|u([0-9a-f]{4})|x([0-9a-f]{2}))/i.exec(rest);
	if (hex) return { value: parseInt(hex[1] ?? hex[2] ?? hex[3], 16), end: index + hex[0].length };
	const control = /^\\c([a-z])/i.exec(rest);
	if (control) return { value: control[1].charCodeAt(0) % 32, end: index + 3 };
	if (rest.startsWith('\\0')) return { value: 0, end: index + 2 };
	return undefined;
}
