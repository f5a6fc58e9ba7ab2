import { canonicalJson } from './canonical';
import { isRecord } from './value';

export interface Difference {
	/** Where the values first differ, as a dotted path (`messages.3.content`); '' for the whole value. */
	path: string;
	left: unknown;
	right: unknown;
}

/** The first place two JSON values differ, walking objects by sorted key and arrays by index; undefined when equal. */
export function firstDifference(left: unknown, right: unknown, path = ''): Difference | undefined {
	if (canonicalJson(left) === canonicalJson(right)) return undefined;
	const bothArrays = Array.isArray(left) && Array.isArray(right);
	const bothObjects = isRecord(left) && isRecord(right);
	if (!bothArrays && !bothObjects) return { path, left, right };
	const l = left as Record<string, unknown>;
	const r = right as Record<string, unknown>;
	const keys = bothArrays
		? Array.from(
				{ length: Math.max((left as unknown[]).length, (right as unknown[]).length) },
				(_, index) => String(index),
			)
		: [...new Set([...Object.keys(l), ...Object.keys(r)])].sort();
	for (const key of keys) {
		const found = firstDifference(l[key], r[key], path === '' ? key : `${path}.${key}`);
		if (found) return found;
	}
	return { path, left, right };
}
