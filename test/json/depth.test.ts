import { canonicalJson } from '../../lib/json/canonical';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../lib/json/depth';
import { firstDifference } from '../../lib/json/difference';
import { jsonText, stringifyIteratively } from '../../lib/json/stringify';

const nested = (depth: number, leaf: unknown = 1): unknown => {
	let value = leaf;
	for (let level = 0; level < depth; level++) value = level % 3 ? [value] : { k: value };
	return value;
};

describe('JSON at any depth', () => {
	it('serializes as JSON.stringify does, without recursion', () => {
		const samples: unknown[] = [
			{ b: 1, a: [1, 'two', null, true, undefined, () => 1, { c: -0 }], u: undefined },
			[NaN, Infinity, -Infinity, 1e21, 1.5e-7, ''],
			{ date: new Date(0), nested: { toJSON: (key: string) => `key ${key}` } },
			'plain "quoted" \\ text \u2028',
			42,
			null,
			[],
			{},
			JSON.parse('{"__proto__": {"x": 1}, "y": [{}]}'),
		];
		for (const sample of samples) expect(stringifyIteratively(sample)).toBe(JSON.stringify(sample));
		expect(stringifyIteratively(undefined)).toBeUndefined();
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect(() => stringifyIteratively(cyclic)).toThrow(TypeError);
		// The same object twice, not in a cycle, is fine.
		const shared = { x: 1 };
		expect(stringifyIteratively([shared, shared])).toBe('[{"x":1},{"x":1}]');
	});

	it('writes and compares values nested 30,000 deep, where V8 runs out of stack', () => {
		const depth = 30_000;
		const value = nested(depth);
		expect(() => JSON.stringify(value)).toThrow(RangeError);
		const text = jsonText(value)!;
		expect(text.length).toBe(
			JSON.stringify(nested(0)).length + 2 * depth + 4 * Math.ceil(depth / 3),
		);
		expect(JSON.parse(text)).toBeDefined();
		expect(canonicalJson(JSON.parse(text))).toBe(text);
		expect(firstDifference(value, nested(depth))).toBeUndefined();
		const difference = firstDifference(value, nested(depth, 2));
		expect(difference?.path.split('.')).toHaveLength(depth);
		expect(difference).toMatchObject({ left: 1, right: 2 });
	});

	it('gives the canonical JSON of the fast path, keys sorted, whichever path runs', () => {
		const value = { b: [{ z: 1, y: [2, { x: null }] }], a: 'text', c: { e: undefined, d: NaN } };
		expect(stringifyIteratively(value, true)).toBe(canonicalJson(value));
		expect(canonicalJson(value)).toBe(
			'{"a":"text","b":[{"y":[2,{"x":null}],"z":1}],"c":{"d":null}}',
		);
		expect(canonicalJson(JSON.parse('{"__proto__": {"b": 1, "a": 2}}'))).toBe(
			'{"__proto__":{"a":2,"b":1}}',
		);
	});

	it('finds the first difference by sorted key and index, as JSON sees the values', () => {
		expect(firstDifference({ a: 1, b: [1, 2] }, { b: [1, 3], a: 1 })).toEqual({
			path: 'b.1',
			left: 2,
			right: 3,
		});
		expect(firstDifference({ a: { x: 1 } }, { a: [1] })).toEqual({
			path: 'a',
			left: { x: 1 },
			right: [1],
		});
		expect(firstDifference([1], [1, 2])).toEqual({ path: '1', left: undefined, right: 2 });
		expect(firstDifference([1], [1, undefined])?.path).toBe('1');
		// What JSON cannot tell apart is equal: an undefined slot is null, an undefined key is absent.
		expect(firstDifference([undefined], [null])).toBeUndefined();
		expect(firstDifference({ a: undefined }, {})).toBeUndefined();
		expect(firstDifference('x', 'y')).toEqual({ path: '', left: 'x', right: 'y' });
	});

	it('tells whether a value nests deeper than a limit, at any depth', () => {
		expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
		expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
		expect(nestsDeeperThan(nested(500_000))).toBe(true);
		expect(nestsDeeperThan('text', 0)).toBe(false);
		expect(nestsDeeperThan([], 0)).toBe(true);
		expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
		expect(nestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
	});
});
