import type { JsonSchema } from '../conversation/types';

/** Resolves a local JSON pointer ("#", "#/$defs/a~1b") in a schema, or undefined; remote refs are never fetched. */
export function resolvePointer(root: JsonSchema, ref: string): unknown {
	if (ref === '#') return root;
	if (!ref.startsWith('#/')) return undefined;
	let target: unknown = root;
	for (const token of ref.slice(2).split('/')) {
		const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
		if (
			typeof target !== 'object' ||
			target === null ||
			Array.isArray(target) ||
			!Object.hasOwn(target, key)
		)
			return undefined;
		target = (target as Record<string, unknown>)[key];
	}
	return target;
}
