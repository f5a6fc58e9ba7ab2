import type { JsonSchema } from '../conversation/types';
import { isRecord } from '../json/value';
import { resolvePointer } from './pointer';
import { describeUnexpressed } from './unexpressed';

/** `not`, the conditionals and the unevaluated keywords: one schema each, and no field for them in Gemini's Schema. */
export const IN_PLACE_KEYWORDS = [
	'not',
	'if',
	'then',
	'else',
	'unevaluatedItems',
	'unevaluatedProperties',
];
/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE = [
	'items',
	'additionalItems',
	'additionalProperties',
	'contains',
	'propertyNames',
	...IN_PLACE_KEYWORDS,
];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const MAP = ['properties', 'patternProperties', 'dependentSchemas'];
const DEFINITIONS = ['$defs', 'definitions'];

/**
 * A schema without references, for vendors whose schemas have none (Gemini's Schema object,
 * Ollama's tool structs): each local `$ref` replaced by what it names, its own keywords winning
 * (they say what this use of a shared schema is for), and the definitions left out. A recursive
 * ref (a tree) would inline forever, so it is unrolled `maxRecursion` times and then cut to a
 * value of any type whose description names the ref, so that the model still reads that the
 * nesting goes on; an unresolvable or remote ref (never fetched) is a value of any type.
 */
export function inlineLocalRefs(schema: JsonSchema, maxRecursion = 2): JsonSchema {
	return inline(schema, schema, [], maxRecursion) as JsonSchema;
}

function inline(node: unknown, root: JsonSchema, expanding: string[], max: number): unknown {
	if (!isRecord(node)) return node;
	let schema = node;
	let path = expanding;
	while (typeof schema.$ref === 'string') {
		const { $ref: ref, ...siblings } = schema;
		if (path.filter((seen) => seen === ref).length >= max)
			return { description: describeUnexpressed(undefined, { $ref: ref }) };
		const target = resolvePointer(root, ref);
		path = [...path, ref];
		schema = { ...(isRecord(target) ? target : {}), ...siblings };
	}
	const within = (value: unknown) => inline(value, root, path, max);
	const entries = Object.entries(schema).flatMap(([key, value]): Array<[string, unknown]> => {
		if (DEFINITIONS.includes(key)) return [];
		if (LIST.includes(key) && Array.isArray(value)) return [[key, value.map(within)]];
		if (ONE.includes(key)) return [[key, within(value)]];
		if (MAP.includes(key) && isRecord(value))
			return [
				[
					key,
					Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, within(inner)])),
				],
			];
		return [[key, value]];
	});
	return Object.fromEntries(entries);
}
