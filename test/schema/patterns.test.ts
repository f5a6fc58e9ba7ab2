import { backtracksExponentially, patternRefusal } from '../../lib/schema/patterns';

describe('backtracksExponentially', () => {
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
		'^(a|a)*$',
		'^(a|aa)+$',
		'^(\\w|\\d)+$',
		'(a+|b)+',
		'(?:a*b|a)+',
		'^(\\w+\\s?)+$',
		'^(?:a\\w+)*$',
		// Bounded counts vary a round's length as much, and a zero-width atom separates nothing.
		'^(\\w{1,10}\\s?){1,20}$',
		'^([a-z]{1,20}\\.?){1,10}$',
		'(a|a){1,30}',
		'^(\\w+(?!-))+$',
		'^(\\w+\\B)+$',
		'^(\\w+())+$',
	])('finds a repeated group that can split a value in many ways in %s', (pattern) => {
		expect(backtracksExponentially(pattern)).toBe(true);
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
		// Bounded counts, and rounds that each end with a separator their parts cannot match.
		'^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$',
		'^(\\d{1,3}\\.){3}\\d{1,3}$',
		'^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$',
		'^([a-z0-9-]+\\.)+[a-z]{2,}$',
		'^([a-z0-9]+-)*[a-z0-9]+$',
		'^(?:[^,]+,)*[^,]+$',
		'^I?\\d+[:|-]\\d+(?:;\\d+[:|-]\\d+)*$',
		'^\\w+(?:,\\s*\\w+)*$',
	])('runs %s, which splits a value one way only', (pattern) => {
		expect(backtracksExponentially(pattern)).toBe(false);
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
