import type { JsonSchema } from '../conversation/types';
import { isRecord } from '../json/value';
import { subschemasOf } from './keywords';

/**
 * What a `$ref` names within the schema: a JSON pointer ("#/$defs/a~1b"), an anchor ("#leaf") or
 * the `$id` of one of its schemas; undefined for anything else (remote refs are never fetched).
 */
export function resolveRef(root: JsonSchema, ref: string): unknown {
	if (ref === '#' || ref.startsWith('#/')) return resolvePointer(root, ref);
	const anchor = ref.startsWith('#') ? ref.slice(1) : undefined;
	return findSchema(root, (schema) =>
		anchor === undefined
			? schema.$id === ref
			: schema.$anchor === anchor || schema.$dynamicAnchor === anchor,
	);
}

/** Resolves a local JSON pointer ("#", "#/$defs/a~1b") in a schema, or undefined. */
export function resolvePointer(root: JsonSchema, ref: string): unknown {
	if (ref === '#') return root;
	if (!ref.startsWith('#/')) return undefined;
	let target: unknown = root;
	for (const token of ref.slice(2).split('/')) {
		const key = percentDecoded(token).replace(/~1/g, '/').replace(/~0/g, '~');
		if (!isRecord(target) || !Object.hasOwn(target, key)) return undefined;
		target = target[key];
	}
	return target;
}

/** A pointer token as a URI fragment encodes it; a lone '%' (a name such as "50%") stays as it is. */
function percentDecoded(token: string): string {
	try {
		return decodeURIComponent(token);
	} catch {
		return token;
	}
}

function findSchema(
	root: unknown,
	matches: (schema: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
	const pending = [root];
	const seen = new Set<unknown>();
	for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
		if (!isRecord(node) || seen.has(node)) continue;
		seen.add(node);
		if (matches(node)) return node;
		pending.push(...subschemasOf(node));
	}
	return undefined;
}
