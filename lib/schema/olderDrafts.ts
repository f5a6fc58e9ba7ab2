import { isRecord } from '../json/value';
import { mapSubschemas } from './keywords';

/**
 * A schema in older drafts' idioms that the draft it is compiled as reads otherwise, rewritten:
 * draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum` become the bound they qualify and its
 * `id` is left out (no schema is looked up by its id); for draft 2020-12, a tuple `items: [...]`
 * becomes `prefixItems` and `additionalItems` the `items` after them. Servers write these without
 * naming their draft; every other keyword keeps the meaning of the draft compiled.
 */
export function olderIdiomsRewritten(node: unknown, draft: 'draft7' | 'draft2020'): unknown {
	if (!isRecord(node)) return node;
	const { id, ...rest } = node;
	const schema = typeof id === 'string' ? rest : { ...node };
	for (const [flag, bound] of [
		['exclusiveMinimum', 'minimum'],
		['exclusiveMaximum', 'maximum'],
	] as const) {
		if (typeof schema[flag] !== 'boolean') continue;
		if (schema[flag] && typeof schema[bound] === 'number') {
			schema[flag] = schema[bound];
			delete schema[bound];
		} else {
			delete schema[flag];
		}
	}
	let rewritten = schema;
	if (draft === 'draft2020' && Array.isArray(schema.items) && schema.prefixItems === undefined) {
		const { items, additionalItems, ...others } = schema;
		rewritten = {
			...others,
			prefixItems: items,
			...(additionalItems !== undefined && { items: additionalItems }),
		};
	}
	return mapSubschemas(rewritten, (inner) => olderIdiomsRewritten(inner, draft));
}
