import { hash } from 'node:crypto';
import { isStackOverflow, stringifyIteratively } from './stringify';
import { isRecord } from './value';

/** JSON with object keys sorted at every depth: equal values give equal strings. Any depth. */
export function canonicalJson(value: unknown): string {
	try {
		// V8's own serializer is the fast path; it runs out of stack a few thousand levels down.
		return JSON.stringify(value, sortedKeys);
	} catch (error) {
		if (!isStackOverflow(error)) throw error;
		return stringifyIteratively(value, true) as string;
	}
}

function sortedKeys(_key: string, inner: unknown): unknown {
	if (!isRecord(inner)) return inner;
	// No prototype: a `__proto__` key stays a key instead of replacing the prototype.
	const sorted: Record<string, unknown> = Object.create(null);
	for (const key of Object.keys(inner).sort()) sorted[key] = inner[key];
	return sorted;
}

export function sha256(text: string): string {
	// The one-shot form: a quarter of the cost of a Hash object for the short texts hashed per call.
	return hash('sha256', text, 'hex');
}

/** A short, stable fingerprint of any JSON value. */
export function fingerprint(value: unknown): string {
	return `sha256:${sha256(canonicalJson(value)).slice(0, 16)}`;
}
