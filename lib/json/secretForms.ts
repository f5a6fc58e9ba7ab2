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

/**
 * A pattern that matches, at the end of a text, any beginning of any form of any secret (the whole
 * form included, and a character cut inside its escape, `%2` of `%2D`): what a text that goes on
 * later must hold back, lest a secret split across two pieces leave part of it in the first.
 * Past its first BEGINNING_ATOMS characters a secret's beginning is held without checking the
 * rest (a long token's whole beginning would nest too deep for a regular expression), up to its
 * longest form's length. Undefined when there is no secret to look for.
 */
export function secretBeginnings(secrets: readonly string[]): RegExp | undefined {
	const needles = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH))];
	if (needles.length === 0) return undefined;
	const beginnings = needles.flatMap((secret) =>
		formAtomsOf(secret).map((atoms) =>
			anyBeginningOf(
				atoms.slice(0, BEGINNING_ATOMS),
				atoms.length > BEGINNING_ATOMS
					? `[\\s\\S]{0,${LONGEST_FORM_PER_CHAR * secret.length}}`
					: '',
			),
		),
	);
	return new RegExp(`(?:${beginnings.join('|')})$`);
}

/** How many characters of a secret its held beginning is checked against. */
const BEGINNING_ATOMS = 48;
/** The most UTF-16 units one character of a secret takes in any form (`\\ud83d\\ude00`). */
const LONGEST_FORM_PER_CHAR = 12;

/**
 * `(?:a'|a(?:b'|b(?:c'|c…)?)?)` for atoms a, b, c and their proper beginnings a', b', c': as much
 * of the form as the text has, then `rest` after the last atom.
 */
function anyBeginningOf(atoms: Atom[], rest: string): string {
	return atoms.reduceRight((after, atom) => {
		const cut = atomBeginning(atom);
		const whole = `${atomPattern(atom)}${after === '' ? '' : `(?:${after})?`}`;
		return `(?:${cut === undefined ? '' : `${cut}|`}${whole})`;
	}, rest);
}

function textFormsOf(secret: string): string[] {
	return formAtomsOf(secret).map((atoms) => atoms.map(atomPattern).join(''));
}

/** A regular expression for one character of the text. */
type Token = string;
/** A piece of a way to write a character, in any of its variants (`%2F` or `%252F`). */
type Part = Token[][];
/** One way to write a character: its parts in order. */
type Spelling = Part[];
/** A character of a secret's form: every way it may be written. */
type Atom = Spelling[];

const spelled = (...tokens: Token[]): Spelling => [[tokens]];

function partPattern(part: Part): string {
	const variants = part.map((tokens) => tokens.join(''));
	return variants.length === 1 ? variants[0] : `(?:${variants.join('|')})`;
}

function atomPattern(atom: Atom): string {
	const spellings = atom.map((spelling) => spelling.map(partPattern).join(''));
	return spellings.length === 1 ? spellings[0] : `(?:${spellings.join('|')})`;
}

/** What a text cut inside the character ends with: every proper beginning of its spellings. */
function atomBeginning(atom: Atom): string | undefined {
	const beginnings = new Set<string>();
	for (const spelling of atom) {
		spelling.forEach((part, index) => {
			const before = spelling.slice(0, index).map(partPattern).join('');
			if (index > 0) beginnings.add(before);
			for (const tokens of part)
				for (let length = 1; length < tokens.length; length++)
					beginnings.add(before + tokens.slice(0, length).join(''));
		});
	}
	beginnings.delete('');
	return beginnings.size === 0 ? undefined : `(?:${[...beginnings].join('|')})`;
}

/** Each form of the secret as its characters, in order. */
function formAtomsOf(secret: string): Atom[][] {
	const bytes = Buffer.from(secret, 'utf8');
	return [
		[...secret].map(escapedChar),
		[...bytes.toString('hex')].map((digit) => [spelled(caseless(digit))]),
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
function escapedChar(char: string): Atom {
	const units = [...Array(char.length).keys()].map((index) =>
		char.charCodeAt(index).toString(16).padStart(4, '0'),
	);
	const spellings: Atom = [
		spelled(...char.split('').map(escapeRegExp)),
		spelled(...units.flatMap((unit) => ['\\\\', 'u', ...[...unit].map(caseless)])),
		// Encoded twice too (`%252F`), as a URL carried in another URL's query is.
		[...Buffer.from(char, 'utf8')].map((byte) =>
			percentEncoded(byte.toString(16).padStart(2, '0')),
		),
	];
	const short = JSON_SHORT_ESCAPES[char];
	if (short) spellings.push(spelled(...short.split('').map(escapeRegExp)));
	if (char === ' ') spellings.push(spelled('\\+'));
	return spellings;
}

/** `%XX`, or `%25XX` as a URL encoded twice writes it. */
function percentEncoded(hex: string): Part {
	const digits = [...hex].map(caseless);
	return [
		['%', ...digits],
		['%', '2', '5', ...digits],
	];
}

/**
 * The base64 characters that depend on the secret's bytes alone when it starts `offset` bytes
 * into a 3-byte group: what any base64 text holding the secret at that alignment contains.
 */
function base64Inside(bytes: Buffer, offset: number): Atom[] {
	const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
	const first = Math.ceil((4 * offset) / 3);
	const end = Math.floor((4 * (offset + bytes.length)) / 3);
	// MIME and PEM break base64 into lines of 76 or 64 characters.
	const lineBreak: Part = [[], ['\\n'], ['\\r', '\\n']];
	return [...encoded.slice(first, end)].map((char, index) =>
		base64Char(char).map((spelling) => (index === 0 ? spelling : [lineBreak, ...spelling])),
	);
}

/** base64url writes - and _ for + and /; a URL may carry them percent-encoded. */
function base64Char(char: string): Atom {
	if (char === '+') return [spelled('\\+'), spelled('-'), [percentEncoded('2b')]];
	if (char === '/')
		return [spelled('\\/'), spelled('\\\\', '\\/'), spelled('_'), [percentEncoded('2f')]];
	return [spelled(char)];
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
