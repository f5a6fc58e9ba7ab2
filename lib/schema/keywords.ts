import { isRecord } from '../json/value';

/** Keywords that only describe; they may sit beside `$ref` or a flattened `allOf`. */
export const ANNOTATIONS = new Set([
	'title',
	'description',
	'default',
	'examples',
	'$comment',
	'readOnly',
	'writeOnly',
	'deprecated',
]);

/** `not`, the conditionals and the unevaluated keywords: one schema each, and no field for them in Gemini's Schema. */
export const IN_PLACE_KEYWORDS = [
	'not',
	'if',
	'then',
	'else',
	'unevaluatedItems',
	'unevaluatedProperties',
];

export const DEFINITIONS = ['$defs', 'definitions'];

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
// `dependencies` maps names to schemas or to lists of names, which the mapping leaves as they are.
const MAP = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', ...DEFINITIONS];

/** The node with every schema it holds mapped by `within`, its other keywords as they are. */
export function mapSubschemas(
	node: Record<string, unknown>,
	within: (schema: unknown) => unknown,
): Record<string, unknown> {
	const entries = Object.entries(node).map(([key, value]): [string, unknown] => {
		if (LIST.includes(key) && Array.isArray(value)) return [key, value.map(within)];
		if (ONE.includes(key)) return [key, within(value)];
		if (MAP.includes(key) && isRecord(value))
			return [
				key,
				Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, within(inner)])),
			];
		return [key, value];
	});
	return Object.fromEntries(entries);
}

/** The schemas a node holds directly (its definitions among them). */
export function subschemasOf(node: Record<string, unknown>): unknown[] {
	return Object.entries(node).flatMap(([key, value]) => {
		if (LIST.includes(key) && Array.isArray(value)) return value;
		if (ONE.includes(key)) return [value];
		if (MAP.includes(key) && isRecord(value)) return Object.values(value);
		return [];
	});
}
