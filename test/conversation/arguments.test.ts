import { parseToolArguments } from '../../lib/conversation/arguments';

function errorOf(raw: unknown): string {
	const parsed = parseToolArguments(raw);
	if (parsed.ok) throw new Error(`expected a failure, got ${JSON.stringify(parsed.value)}`);
	return parsed.error;
}

/** The JavaScript engine's own words for text that is not JSON; their wording changes between Node versions. */
function engineWords(text: string): string {
	try {
		JSON.parse(text);
	} catch (error) {
		return (error as Error).message;
	}
	throw new Error(`${text} is valid JSON`);
}

describe('parseToolArguments', () => {
	it.each([
		['a JSON object string', '{"city":"Oslo","days":3}', { city: 'Oslo', days: 3 }],
		['an object with surrounding whitespace', ' \n {"a":1}\t', { a: 1 }],
		['an empty string', '', {}],
		['whitespace only', ' \n\t ', {}],
		['undefined (missing)', undefined, {}],
		['null (missing)', null, {}],
		['an object value', { a: [1, 2] }, { a: [1, 2] }],
		['nested JSON strings inside an object', '{"q":"{\\"x\\":1}"}', { q: '{"x":1}' }],
	])('accepts %s', (_label, raw, expected) => {
		expect(parseToolArguments(raw)).toEqual({ ok: true, value: expected });
	});

	it('keeps an object value as it is', () => {
		const value = { a: 1 };
		const parsed = parseToolArguments(value);
		expect(parsed.ok && parsed.value).toBe(value);
	});

	it.each([
		['a trailing comma', '{"a":1,}', 'not valid JSON: trailing comma at position 6'],
		[
			'a trailing comma in an array',
			'{"a":[1,2 , ]}',
			'not valid JSON: trailing comma at position 10',
		],
		[
			'a Markdown code fence',
			'```json\n{"a":1}\n```',
			'arguments are wrapped in a Markdown code fence: send the bare JSON object without ```',
		],
		[
			'single quotes',
			"{'a': 'b'}",
			'not valid JSON: single quotes at position 1, JSON needs double quotes around keys and strings',
		],
		[
			'plain text',
			'Sure! Oslo, 3 days.',
			'not valid JSON, this is plain text: "Sure! Oslo, 3 days."',
		],
		[
			'truncated JSON',
			'{"city":"Os',
			'not valid JSON: it ends after 11 characters before the JSON is complete (truncated?)',
		],
		[
			'truncated after a comma',
			'{"a":1,',
			'not valid JSON: it ends after 7 characters before the JSON is complete (truncated?)',
		],
		[
			'truncated array',
			'[1,2',
			'not valid JSON: it ends after 4 characters before the JSON is complete (truncated?)',
		],
		// Other faults are told in the engine's words, which say where the text breaks.
		[
			'text after the object',
			'{"a":1} {"b":2}',
			`not valid JSON: ${engineWords('{"a":1} {"b":2}')}`,
		],
		['unquoted keys', '{a:1}', `not valid JSON: ${engineWords('{a:1}')}`],
		['a JSON array', '[1,2]', 'must be a JSON object, got array'],
		['JSON null', 'null', 'must be a JSON object, got null'],
		['a number', '42', 'must be a JSON object, got number'],
		['a string literal', '"Oslo"', 'must be a JSON object, got string'],
		['true', 'true', 'must be a JSON object, got boolean'],
		[
			'an object encoded twice',
			JSON.stringify(JSON.stringify({ a: 1 })),
			'must be a JSON object, got a string that holds JSON (encoded twice): send the object itself',
		],
		['an array value', [1], 'must be a JSON object, got array'],
		['a number value', 7, 'must be a JSON object, got number'],
	])('refuses %s', (_label, raw, message) => {
		expect(errorOf(raw)).toBe(message);
	});

	it('does not take an apostrophe inside a string for single quotes', () => {
		expect(errorOf(`{"text":"it's",}`)).toBe('not valid JSON: trailing comma at position 14');
	});

	it('does not echo megabytes back', () => {
		const huge = 'x'.repeat(2_000_000);
		const plain = errorOf(huge);
		expect(plain.length).toBeLessThan(300);
		expect(plain).toBe(
			`not valid JSON, this is plain text: "${'x'.repeat(200)}…" (2000000 characters)`,
		);
		const missingComma = `{"a":"${'y'.repeat(1_000_000)}" "b"}`;
		const broken = errorOf(missingComma);
		expect(broken.length).toBeLessThan(300);
		// The engine's words, cut short where they would be long.
		const [prefix, words] = [broken.slice(0, 16), broken.slice(16).replace(/…$/, '')];
		expect(prefix).toBe('not valid JSON: ');
		expect(words).not.toBe('');
		expect(engineWords(missingComma).startsWith(words)).toBe(true);
	});

	it('parses a huge valid object', () => {
		const raw = JSON.stringify({ data: 'z'.repeat(1_000_000) });
		expect(parseToolArguments(raw)).toEqual({ ok: true, value: { data: 'z'.repeat(1_000_000) } });
	});
});

describe('parseToolArguments: what will be sent is what is checked', () => {
	it('refuses numbers JSON cannot carry, naming them, instead of sending null or another number', () => {
		expect(errorOf('{"a":1e400}')).toBe(
			"'a' is 1e400, beyond the largest number JSON carries (it would be sent as null): send a smaller number, or a string if the tool takes one",
		);
		expect(errorOf('{"b":{"c":[-1e999]}}')).toContain("'0' is -1e999");
		expect(errorOf('{"id":12345678901234567890}')).toBe(
			"'id' is 12345678901234567890, an integer too large to pass on exactly (it would be sent as 12345678901234567000): send it as a string if the tool takes one",
		);
		expect(errorOf({ a: { 'b/c': [1, Number.NaN] } })).toBe(
			"'/a/b~1c/1' is NaN, which JSON cannot carry (it would be sent as null): send a finite number",
		);
		expect(errorOf({ x: Infinity })).toContain("'/x' is Infinity");
		expect(errorOf({ big: BigInt(1) })).toContain("'/big' is a BigInt");
		// Exact numbers pass, however written.
		expect(parseToolArguments('{"a":1.0,"b":1e300,"c":-0,"d":9007199254740991,"e":0.1}')).toEqual({
			ok: true,
			value: { a: 1, b: 1e300, c: -0, d: 9007199254740991, e: 0.1 },
		});
	});

	it('passes on arguments as JSON will carry them: dates as text, undefined left out', () => {
		const parsed = parseToolArguments({ when: new Date(0), gone: undefined, list: [undefined] });
		expect(parsed).toEqual({
			ok: true,
			value: { when: '1970-01-01T00:00:00.000Z', list: [null] },
		});
		expect(parsed.ok && 'gone' in parsed.value).toBe(false);
	});

	it('refuses arguments nested deeper than can be passed on, at any depth the parser takes', () => {
		for (const depth of [1001, 200_000]) {
			const text = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
			expect(errorOf(text)).toBe(
				'the arguments nest deeper than 1000 levels, more than can be passed on: send flatter arguments',
			);
		}
		const fine = '{"a":'.repeat(1000) + '1' + '}'.repeat(1000);
		expect(parseToolArguments(fine).ok).toBe(true);
	});
});
