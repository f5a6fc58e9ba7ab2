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
	return asObject(value);
}

function asObject(value: unknown): ParsedArguments {
	if (isRecord(value)) return { ok: true, value };
	const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
	if (typeof value === 'string' && holdsObject(value)) {
		const error =
			'must be a JSON object, got a string that holds JSON (encoded twice): send the object itself';
		return { ok: false, error };
	}
	return { ok: false, error: `must be a JSON object, got ${kind}` };
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
