import { nestsQuantifiers, patternRefusal } from '../../lib/schema/patterns';

describe('nestsQuantifiers', () => {
	it.each([
		'^(a+)+$',
		'(a*)*',
		'^(\\d+)*$',
		'(?:[a-z]+\\s?)+',
		'^((ab)*c?)+$',
		'(a{2,})+',
		'(\\w+){10}',
		'((a+)?)+',
		'(x+x+)+y',
	])('finds a repeated group holding a quantifier in %s', (pattern) => {
		expect(nestsQuantifiers(pattern)).toBe(true);
	});

	it.each([
		'^[a-z0-9-]+$',
		'\\d{3}-\\d{4}',
		'^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
		'^([a-z]+)@example\\.com$',
		'^(\\+?\\d{1,3})?$',
		'(ab)+',
		'(?:foo|bar)*',
		'[(a+)]+',
		'\\(a+\\)+',
		'(a+){1}',
		'^(abc)?[0-9]+$',
		'a+)+',
	])('runs %s, whose repeated groups hold no quantifier', (pattern) => {
		expect(nestsQuantifiers(pattern)).toBe(false);
	});
});

describe('patternRefusal', () => {
	it('runs patterns that compile with the unicode flag or without it', () => {
		expect(patternRefusal('^\\p{L}+$')).toBeUndefined();
		expect(patternRefusal('^\\d{3}\\-\\d{4}$')).toBeUndefined();
	});

	it('refuses patterns that may take exponential time or are no JavaScript regular expression', () => {
		expect(patternRefusal('^(a+)+$')).toMatch(/exponential time/);
		expect(patternRefusal('(?P<name>x)')).toMatch(/no JavaScript regular expression/);
	});
});
