/**
 * The forms a secret takes when a tool or server passes it on without meaning to: as it is, JSON
 * escaped (`\u0073`, `\"`), URL-encoded once or twice (`%73`, `%2573`, `+` for a space), in any
 * mix of those, as hex, and as base64 (or base64url) at each of the three byte alignments it can
 * start at inside longer data, broken into lines or not.
 */

/** Secrets shorter than this ("1", "true", "prod") are settings, not secrets; hiding them would garble text. */
export const MIN_SECRET_LENGTH = 6;

export interface SecretMatchers {
	/** Every form of every secret, in text (global: for replace and matchAll). */
	text: RegExp;
	/** Also the secret's bytes as UTF-8 and UTF-16, for binary data read as latin1 (not global: for test). */
	bytes: RegExp;
	/** No text shorter than this holds any form of any secret: most of a JSON item is shorter. */
	shortest: number;
}

/** One regular expression per use for all secrets; undefined when there is no secret to look for. */
export function secretMatchers(secrets: readonly string[]): SecretMatchers | undefined {
	const needles = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH))].sort(
		(a, b) => b.length - a.length,
	);
	if (needles.length === 0) return undefined;
	const textForms = needles.flatMap(textFormsOf);
	const byteForms = needles.flatMap((secret) =>
		[Buffer.from(secret, 'utf8'), Buffer.from(secret, 'utf16le'), utf16be(secret)].map((bytes) =>
			escapeRegExp(bytes.toString('latin1')),
		),
	);
	return {
		text: new RegExp(textForms.join('|'), 'g'),
		bytes: new RegExp([...textForms, ...byteForms].join('|')),
		shortest: Math.min(...needles.map(shortestForm)),
	};
}

/**
 * The fewest UTF-16 units a form of the secret can take: one a character as it is (a character
 * written escaped or encoded is longer), and one a base64 character.
 */
function shortestForm(secret: string): number {
	const bytes = Buffer.byteLength(secret);
	const base64 = [0, 1, 2].map(
		(offset) => Math.floor((4 * (offset + bytes)) / 3) - Math.ceil((4 * offset) / 3),
	);
	return Math.min([...secret].length, ...base64);
}

function textFormsOf(secret: string): string[] {
	const bytes = Buffer.from(secret, 'utf8');
	return [
		[...secret].map(escapedChar).join(''),
		caseless(bytes.toString('hex')),
		...[0, 1, 2].map((offset) => base64Inside(bytes, offset)),
	];
}

const JSON_SHORT_ESCAPES: Record<string, string> = {
	'"': '\\"',
	'\\': '\\\\',
	'/': '\\/',
	'\b': '\\b',
	'\f': '\\f',
	'\n': '\\n',
	'\r': '\\r',
	'\t': '\\t',
};

/** One character as it is, JSON-escaped or URL-encoded: a secret matches in any mix of these. */
function escapedChar(char: string): string {
	const units = Array.from({ length: char.length }, (_, index) =>
		char.charCodeAt(index).toString(16).padStart(4, '0'),
	);
	// Encoded twice too (`%252F`), as a URL carried in another URL's query is.
	const percent = [...Buffer.from(char, 'utf8')]
		.map((byte) => `%(?:25)?${caseless(byte.toString(16).padStart(2, '0'))}`)
		.join('');
	const forms = [
		escapeRegExp(char),
		units.map((unit) => `\\\\u${caseless(unit)}`).join(''),
		percent,
	];
	if (JSON_SHORT_ESCAPES[char]) forms.push(escapeRegExp(JSON_SHORT_ESCAPES[char]));
	if (char === ' ') forms.push('\\+');
	return `(?:${forms.join('|')})`;
}

/**
 * The base64 characters that depend on the secret's bytes alone when it starts `offset` bytes
 * into a 3-byte group: what any base64 text holding the secret at that alignment contains.
 */
function base64Inside(bytes: Buffer, offset: number): string {
	const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
	const first = Math.ceil((4 * offset) / 3);
	const end = Math.floor((4 * (offset + bytes.length)) / 3);
	// MIME and PEM break base64 into lines of 76 or 64 characters.
	return [...encoded.slice(first, end)].map(base64Char).join('(?:\\r?\\n)?');
}

/** base64url writes - and _ for + and /; a URL may carry them percent-encoded. */
function base64Char(char: string): string {
	if (char === '+') return '(?:\\+|-|%(?:25)?2[bB])';
	if (char === '/') return '(?:\\/|\\\\\\/|_|%(?:25)?2[fF])';
	return char;
}

function caseless(hex: string): string {
	return hex.replace(/[a-f]/gi, (digit) => `[${digit.toLowerCase()}${digit.toUpperCase()}]`);
}

function utf16be(text: string): Buffer {
	const bytes = Buffer.from(text, 'utf16le');
	for (let index = 0; index + 1 < bytes.length; index += 2) {
		const low = bytes[index];
		bytes[index] = bytes[index + 1];
		bytes[index + 1] = low;
	}
	return bytes;
}

function escapeRegExp(text: string): string {
	return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
