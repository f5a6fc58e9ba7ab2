import { createHash } from 'node:crypto';
import { isRecord } from './value';

/** JSON with object keys sorted at every depth: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(value, (_key, inner: unknown) => {
		if (!isRecord(inner)) return inner;
		const sorted: Record<string, unknown> = {};
		for (const key of Object.keys(inner).sort()) sorted[key] = inner[key];
		return sorted;
	});
}

export function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

/** A short, stable fingerprint of any JSON value. */
export function fingerprint(value: unknown): string {
	return `sha256:${sha256(canonicalJson(value)).slice(0, 16)}`;
}
