import {
	backtrackingRisk,
	backtracksExponentially,
	longestValueFor,
	patternRefusal,
} from '../../lib/schema/patterns';

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

describe('backtrackingRisk', () => {
	it.each([
		'^\\w*\\w*\\w*\\w*\\w*\\w*\\w*\\w*!',
		'^\\s*.*\\s*$',
		'^\\w*x\\w*x\\w*$',
		'^(\\w*)(\\w*)(\\w*)$',
		'^(?:\\w)*(?:\\w)*(?:\\w)*$',
		'^a\\w{2,}-?\\d+\\w*$',
		// A search tries every start: two parts in a row cost as three.
		'[a-z]+[a-z0-9]*$',
		'(\\w*\\w*)!',
		'^a|b\\w*\\w*$',
	])('finds three parts in a row that can take the same characters in %s', (pattern) => {
		expect(backtrackingRisk(pattern)).toBe('polynomial');
	});

	it.each([
		'^[a-z]+[a-z0-9]*$',
		'\\w+$',
		'^\\d+\\.\\d+\\.\\d+$',
		'\\d+(\\.\\d+)?',
		'^\\s*\\S.*$',
		'^\\w+\\s\\w+\\s\\w+$',
		'^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$',
		'^-?\\d*\\.?\\d*$',
		'^\\w*\\b\\s+\\w*$',
	])('finds no more than two in %s', (pattern) => {
		expect(backtrackingRisk(pattern)).toBeUndefined();
	});

	it('says exponential of a pattern that is both', () => {
		expect(backtrackingRisk('^\\w*\\w*\\w*(a+)+$')).toBe('exponential');
		expect(backtrackingRisk('^(a+)+\\w*\\w*\\w*$')).toBe('exponential');
	});
});

describe('patternRefusal', () => {
	it('runs patterns that compile with the unicode flag or without it', () => {
		expect(patternRefusal('^\\p{L}+$')).toBeUndefined();
		expect(patternRefusal('^\\d{3}\\-\\d{4}$')).toBeUndefined();
	});

	it('runs patterns that may take JavaScript too long in the linear-time engine', () => {
		expect(patternRefusal('^(a+)+$')).toBeUndefined();
		expect(patternRefusal('^\\s*.*\\s*$')).toBeUndefined();
	});

	it('gives JavaScript shorter values the more parts in a row a slow pattern has', () => {
		expect([3, 4, 5, 8].map(longestValueFor)).toEqual([493, 148, 75, 30]);
	});

	it('runs in JavaScript a pattern that may take polynomial time and the linear-time engine cannot run', () => {
		expect(patternRefusal('^(\\w)\\w*\\w*\\w*\\1$')).toBeUndefined();
	});

	it('refuses patterns that may take too long and the linear-time engine cannot run, or that are no JavaScript regular expression', () => {
		expect(patternRefusal('^(?=a)(a+)+$')).toBe(
			'it repeats a group that can match the same text in many ways, which can take exponential time to match, and the linear-time engine cannot run it: it looks ahead or behind',
		);

		expect(patternRefusal('(?P<name>x+)+')).toMatch(/^it is no JavaScript regular expression/);
	});
});
