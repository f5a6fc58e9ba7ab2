import { isRecord } from '../../json/value';
import type { GeminiFunctionCall, GeminiPartialArg } from './wire';

/**
 * Vertex AI streams one function call in pieces when asked to (`streamFunctionCallArguments`): a
 * part naming the call with `willContinue: true`, then parts holding only `partialArgs` (each a
 * value at a JSON path, a string continued while its `willContinue` says so), the last without
 * `willContinue`. These fold the pieces into the call's `args`. A piece that cannot be placed (a
 * path this reader cannot follow, a value of no known kind) stays in the call's `partialArgs`,
 * for the parser to refuse by name.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content#PartialArg
 */
export interface OpenCall {
	call: GeminiFunctionCall;
	/** The path of a string still being continued, and where it is. */
	openString?: string;
}

/** Folds one piece's partial arguments into the open call. */
export function applyPartialArgs(open: OpenCall, pieces: unknown): void {
	for (const piece of Array.isArray(pieces) ? pieces : [pieces]) {
		if (!place(open, piece)) open.call.partialArgs = [...(open.call.partialArgs ?? []), piece];
	}
}

function place(open: OpenCall, piece: unknown): boolean {
	if (!isRecord(piece) || typeof piece.jsonPath !== 'string') return false;
	const path = pathOf(piece.jsonPath);
	const value = valueOf(piece as GeminiPartialArg);
	if (!path || value === NO_VALUE) return false;
	const args = (open.call.args ??= {});
	const continued = open.openString === piece.jsonPath && typeof value === 'string';
	const current = continued ? readAt(args, path) : undefined;
	if (!writeAt(args, path, typeof current === 'string' ? current + value : value)) return false;
	open.openString =
		typeof value === 'string' && piece.willContinue === true ? piece.jsonPath : undefined;
	return true;
}

const NO_VALUE = Symbol('no value');

function valueOf(piece: GeminiPartialArg): unknown {
	if (typeof piece.stringValue === 'string') return piece.stringValue;
	if (typeof piece.numberValue === 'number') return piece.numberValue;
	if (typeof piece.boolValue === 'boolean') return piece.boolValue;
	if (piece.nullValue !== undefined) return null;
	return NO_VALUE;
}

/** `$.a.b[0]`, `$['a b']`, `$["a"]` as keys and indexes; undefined for anything else. */
export function pathOf(jsonPath: string): Array<string | number> | undefined {
	if (!jsonPath.startsWith('$')) return undefined;
	const steps: Array<string | number> = [];
	const step = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
	step.lastIndex = 1;
	while (step.lastIndex < jsonPath.length) {
		const match = step.exec(jsonPath);
		if (!match) return undefined;
		const [, name, index, single, double] = match;
		steps.push(
			index !== undefined ? Number(index) : (name ?? single ?? double).replace(/\\(.)/g, '$1'),
		);
	}
	return steps.length > 0 ? steps : undefined;
}

function readAt(root: unknown, path: Array<string | number>): unknown {
	let node = root;
	for (const key of path)
		node = isRecord(node) || Array.isArray(node) ? (node as never)[key] : undefined;
	return node;
}

/** Writes `value` at `path`, making the objects and lists on the way; false where a value already blocks it. */
function writeAt(
	root: Record<string, unknown>,
	path: Array<string | number>,
	value: unknown,
): boolean {
	let node: Record<string | number, unknown> = root;
	for (const [depth, key] of path.entries()) {
		if (depth === path.length - 1) {
			if (typeof key === 'number' && !Array.isArray(node)) return false;
			node[key] = value;
			return true;
		}
		const next = path[depth + 1];
		node[key] ??= typeof next === 'number' ? [] : {};
		const child = node[key];
		if (typeof child !== 'object' || child === null) return false;
		if (typeof next === 'number' ? !Array.isArray(child) : Array.isArray(child)) return false;
		node = child as Record<string | number, unknown>;
	}
	return false;
}
