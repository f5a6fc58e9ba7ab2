import { linearRegExp } from '../../lib/schema/linearRegExp';

function compiled(pattern: string) {
	const linear = linearRegExp(pattern);
	if (!('regExp' in linear)) throw new Error(`refused ${pattern}: ${linear.refusal}`);
	return linear.regExp;
}

/** Every UTF-16 code unit, lone surrogates included, and a few characters beyond them. */
const EVERY_CHARACTER = [
	...Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)),
	'😀',
	'𝒜',
	'\u{10ffff}',
];

describe('linearRegExp', () => {
	it.each([
		'^\\s$',
		'^\\S$',
		'^.$',
		'^[\\s]$',
		'^[^\\s]$',
		'^[\\S]$',
		'^[\\s\\d]$',
		'^\\w$',
		'^\\W$',
		'^\\d$',
		'^[\\b]$',
		'^[]$',
		'^[^]$',
	])('matches each character as JavaScript does with the unicode flag: %s', (pattern) => {
		const linear = compiled(pattern);
		const native = new RegExp(pattern, 'u');
		const differing = EVERY_CHARACTER.filter((char) => linear.test(char) !== native.test(char));
		expect(differing.map((char) => char.codePointAt(0)!.toString(16))).toEqual([]);
	});

	const values = [
		'a',
		'aé',
		'é',
		'a b',
		'a\u00a0b',
		'a\u2028b',
		'a\nb',
		'a\rb',
		'😀',
		'x😀y',
		'αβ',
		'Ab',
		'٣',
		':',
		'[',
		'a-b',
		'@a:b',
		'\0',
		'\n',
		'a/b',
		'\ud800',
		'',
	];
	it.each([
		['\\bé', 'ASCII word boundaries'],
		['a\\B', 'ASCII word boundaries'],
		['^\\w+\\b', 'ASCII word characters'],
		['^[[:alpha:]+$', "a '[' inside a class is a character, not RE2's named class"],
		['^\\u00e9$', 'a \\u escape'],
		['^\\uD83D\\uDE00$', 'a surrogate pair of \\u escapes is one character'],
		['^x[\\uD83D\\uDE00-\\uD83D\\uDE4F]y$', 'a range between surrogate pairs'],
		['^\\u{1F600}$', 'a \\u{} escape'],
		['^\\x3a$', 'a \\x escape'],
		['^a\\cJb$', 'a control escape'],
		['^\\0$', 'a NUL escape'],
		['^\\p{L}+$', 'a general category'],
		['^\\p{gc=Lu}', 'a general category by its key'],
		[
			'^\\p{Letter}\\p{Uppercase_Letter}?\\P{Decimal_Number}$',
			'general categories by their long names',
		],
		['^\\p{Script=Greek}+$', 'a script'],
		['^\\P{sc=Latin}$', 'not a script'],
		['^(?<first>a)(?<second>b)?$', 'named groups'],
		['^a\\/b$', 'an escaped slash'],
		['^[\\-:@a-z]+$', 'an escaped hyphen in a class'],
		['^.+$', 'a line terminator ends a dot'],
		['^[^a]$', 'a lone surrogate is one character'],
		['^$', 'the empty value'],
	])('reads %s as JavaScript does: %s', (pattern) => {
		const linear = compiled(pattern);
		const native = new RegExp(pattern, 'u');
		for (const value of values)
			expect([value, linear.test(value)]).toEqual([value, native.test(value)]);
	});

	it("reads Python's escapes, which JavaScript takes only without the unicode flag, as the characters", () => {
		const linear = compiled('^\\@[\\w\\:]+\\-\\#$');
		expect(['@a:b-#', '@:-#'].map((value) => linear.test(value))).toEqual([true, true]);
		expect(['a:b-#', '@a b-#', '@a:b-', '\\@a-#'].map((value) => linear.test(value))).toEqual([
			false,
			false,
			false,
			false,
		]);
	});

	it('finishes on a long value that takes JavaScript exponential time', () => {
		expect(compiled('^(a+)+$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
		expect(compiled('^(a+)+$').test('a'.repeat(100_000))).toBe(true);
	});

	it.each([
		['^(?=a)\\w+$', 'it looks ahead or behind'],
		['^(?<!a)b$', 'it looks ahead or behind'],
		['^(a)\\1$', 'it refers back to a group'],
		['^(?<x>a)\\k<x>$', 'it refers back to a group'],
		['^(?i:a)$', 'it sets flags for a group'],
		['^\\p{scx=Greek}$', 'invalid character class range'],
		['^a{1001}$', 'invalid repeat count'],
		['^(?:a\\s*){1,200}$', 'it repeats a group up to 200 times'],
		['^\\d{3}\\k$', 'without the unicode flag'],
	])('refuses %s, saying why', (pattern, why) => {
		expect(linearRegExp(pattern)).toEqual({ refusal: expect.stringContaining(why) });
	});
});
