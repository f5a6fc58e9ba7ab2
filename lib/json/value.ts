/** Small readers for JSON values of unknown shape: vendor bodies, items, traces, schemas. */
import { jsonText } from './stringify';

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The entries of a list that are JSON objects, typed as the list says; a value that is no list has none. */
export function recordsIn<T>(list: T[] | null | undefined): T[] {
	return Array.isArray(list) ? list.filter((item) => isRecord(item)) : [];
}

/** The JSON Schema type of a value; a whole number is an integer. */
export function jsonType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
	return typeof value;
}

/** A short JSON excerpt of a value, for error messages. */
export function excerpt(value: unknown): string {
	// Any depth JSON.parse accepts: a hostile file's excerpt must not overflow the stack.
	const text = jsonText(value) ?? String(value);
	return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
