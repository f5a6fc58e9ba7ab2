import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/depth';
import { isRecord } from '../json/value';

/**
 * The one guard every vendor's tool-call arguments pass through. A failure is text the model can
 * act on (it is put into a tool message), so it says what is wrong without echoing big inputs.
 * Messages carry no final full stop: callers embed them in a sentence.
 */

export type ParsedArguments =
	{ ok: true; value: Record<string, unknown> } | { ok: false; error: string };

const EXCERPT_LIMIT = 200;

export function parseToolArguments(raw: unknown): ParsedArguments {
	// Missing arguments mean "no arguments": vendors omit them for tools without parameters.
	if (raw === undefined || raw === null) return { ok: true, value: {} };
	if (typeof raw !== 'string') return asObject(raw);
	const text = raw.trim();
	if (text === '') return { ok: true, value: {} };
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		return { ok: false, error: describeSyntaxError(text, (error as Error).message) };
	}
	return asObject(value, text);
}

/**
 * The arguments as they will be sent: an object of plain JSON no deeper than this package passes
 * on. A number JSON cannot carry (NaN, Infinity) is refused rather than sent as null.
 */
function asObject(value: unknown, text?: string): ParsedArguments {
	if (isRecord(value)) {
		if (nestsDeeperThan(value))
			return {
				ok: false,
				error: `the arguments nest deeper than ${MAX_JSON_DEPTH} levels, more than can be passed on: send flatter arguments`,
			};
		const inexact = text === undefined ? undefined : inexactNumber(text);
		if (inexact) return { ok: false, error: inexact };
		const { unsendable, plain } = inspect(value);
		if (unsendable) return { ok: false, error: unsendable };
		// Dates, undefined and the like become what JSON.stringify makes of them: what the server gets.
		const sent = plain ? value : JSON.parse(JSON.stringify(value));
		return { ok: true, value: sent as Record<string, unknown> };
	}
	const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
	if (typeof value === 'string' && holdsObject(value)) {
		const error =
			'must be a JSON object, got a string that holds JSON (encoded twice): send the object itself';
		return { ok: false, error };
	}
	return { ok: false, error: `must be a JSON object, got ${kind}` };
}

/**
 * Walks the arguments once (their depth is bounded by now): the first value JSON cannot carry,
 * with the JSON Pointer to it, and whether all of it is plain JSON already.
 */
function inspect(value: object): { unsendable?: string; plain: boolean } {
	let plain = true;
	const stack: Array<[unknown, string]> = [[value, '']];
	while (stack.length > 0) {
		const [current, pointer] = stack.pop()!;
		if (typeof current === 'number' && !Number.isFinite(current))
			return {
				unsendable: `'${pointer}' is ${current}, which JSON cannot carry (it would be sent as null): send a finite number`,
				plain,
			};
		if (typeof current === 'bigint')
			return { unsendable: `'${pointer}' is a BigInt, which JSON cannot carry`, plain };
		if (current === null || typeof current !== 'object') {
			if (!['string', 'number', 'boolean'].includes(typeof current) && current !== null)
				plain = false;
			continue;
		}
		const prototype = Object.getPrototypeOf(current);
		if (!Array.isArray(current) && prototype !== Object.prototype && prototype !== null)
			plain = false;
		for (const [key, inner] of Object.entries(current))
			stack.push([inner, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
	}
	return { plain };
}

type ReviverWithSource = (
	this: unknown,
	key: string,
	value: unknown,
	context: { source?: string },
) => unknown;

/**
 * A number literal the parse changed: `1e400` becomes Infinity (sent as null), and
 * `12345678901234567890` becomes 12345678901234567000. Either way the server would get another
 * value than the model wrote. Reads the literal through JSON.parse's source text access.
 */
function inexactNumber(text: string): string | undefined {
	let found: string | undefined;
	const reviver: ReviverWithSource = (key, value, context) => {
		const source = context?.source;
		if (found || typeof value !== 'number' || source === undefined) return value;
		const where = key === '' ? 'the value' : `'${key}'`;
		if (!Number.isFinite(value))
			found = `${where} is ${source}, beyond the largest number JSON carries (it would be sent as null): send a smaller number, or a string if the tool takes one`;
		else if (/^-?\d+$/.test(source) && !Number.isSafeInteger(value))
			found = `${where} is ${source}, an integer too large to pass on exactly (it would be sent as ${value}): send it as a string if the tool takes one`;
		return value;
	};
	JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]);
	return found;
}

function holdsObject(text: string): boolean {
	try {
		return isRecord(JSON.parse(text));
	} catch {
		return false;
	}
}

function describeSyntaxError(text: string, engineMessage: string): string {
	if (text.startsWith('```')) {
		return 'arguments are wrapped in a Markdown code fence: send the bare JSON object without ```';
	}
	if (!/^[{["\-\d]/.test(text)) return `not valid JSON, this is plain text: ${excerpt(text)}`;
	const slip = findSlip(text);
	if (slip?.kind === 'quote') {
		return `not valid JSON: single quotes at position ${slip.at}, JSON needs double quotes around keys and strings`;
	}
	if (slip?.kind === 'comma') return `not valid JSON: trailing comma at position ${slip.at}`;
	const position = /at position (\d+)/.exec(engineMessage);
	if (
		/Unexpected end|Unterminated string/.test(engineMessage) ||
		(position && Number(position[1]) >= text.length)
	) {
		return `not valid JSON: it ends after ${text.length} characters before the JSON is complete (truncated?)`;
	}
	return `not valid JSON: ${clip(engineMessage)}`;
}

/** The first single-quoted string or trailing comma outside double-quoted strings. */
function findSlip(text: string): { kind: 'quote' | 'comma'; at: number } | undefined {
	let inString = false;
	let previous = '';
	for (let at = 0; at < text.length; at++) {
		const char = text[at];
		if (inString) {
			if (char === '\\') at++;
			else if (char === '"') inString = false;
			continue;
		}
		if (char === '"') inString = true;
		else if (char === "'" && '{[,:'.includes(previous)) return { kind: 'quote', at };
		else if ((char === '}' || char === ']') && previous === ',')
			return { kind: 'comma', at: text.lastIndexOf(',', at) };
		if (!/\s/.test(char)) previous = char;
	}
	return undefined;
}

function clip(text: string): string {
	return text.length > EXCERPT_LIMIT ? `${text.slice(0, EXCERPT_LIMIT)}…` : text;
}

function excerpt(text: string): string {
	const quoted = JSON.stringify(clip(text));
	return text.length > EXCERPT_LIMIT ? `${quoted} (${text.length} characters)` : quoted;
}
