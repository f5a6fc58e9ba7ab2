import { canonicalJson } from './canonical';
import { isRecord } from './value';

export interface Difference {
	/** Where the values first differ, as a dotted path (`messages.3.content`); '' for the whole value. */
	path: string;
	left: unknown;
	right: unknown;
}

/**
 * The first place two JSON values differ, walking objects by sorted key and arrays by index;
 * undefined when equal. Walks without recursion, so any depth JSON.parse accepts works.
 */
export function firstDifference(left: unknown, right: unknown): Difference | undefined {
	const stack: Array<Difference & { missing?: 'left' | 'right' }> = [{ path: '', left, right }];
	while (stack.length > 0) {
		const pair = stack.pop()!;
		const { path, left: l, right: r, missing } = pair;
		if (missing) return { path, left: l, right: r };
		const bothArrays = Array.isArray(l) && Array.isArray(r);
		if (!bothArrays && !(isRecord(l) && isRecord(r))) {
			if (canonicalJson(l) !== canonicalJson(r)) return { path, left: l, right: r };
			continue;
		}
		const inner = (key: string) => (path === '' ? key : `${path}.${key}`);
		if (bothArrays) {
			for (let index = Math.max(l.length, r.length) - 1; index >= 0; index--) {
				const gone = index >= l.length ? 'left' : index >= r.length ? 'right' : undefined;
				// JSON writes an undefined array slot as null.
				stack.push({
					path: inner(String(index)),
					left: gone ? l[index] : (l[index] ?? null),
					right: gone ? r[index] : (r[index] ?? null),
					missing: gone,
				});
			}
			continue;
		}
		const keys = [...new Set([...Object.keys(l as object), ...Object.keys(r as object)])].sort();
		for (let index = keys.length - 1; index >= 0; index--) {
			const key = keys[index];
			stack.push({
				path: inner(key),
				left: (l as Record<string, unknown>)[key],
				right: (r as Record<string, unknown>)[key],
			});
		}
	}
	return undefined;
}
