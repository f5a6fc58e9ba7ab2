import type { JsonSchema } from '../conversation/types';
import { isRecord, jsonType } from '../json/value';
import { ANNOTATIONS, IN_PLACE_KEYWORDS } from './keywords';
import { inlineLocalRefs } from './refs';
import { describeUnexpressed, ONE_OF_NOTE } from './unexpressed';

/**
 * JSON Schema to the Schema object of Gemini's function declarations (`parameters`), an OpenAPI 3.0
 * subset: upper-case types, `nullable` instead of null types, string-only enums, no references, no
 * `additionalProperties`, no `oneOf`. What it cannot hold is never refused and never dropped in
 * silence: it is written into the node's description (describeUnexpressed), and the arguments are
 * still checked against the original schema before a tool runs.
 * @see https://ai.google.dev/api/caching#Schema
 */

export type GeminiType = 'OBJECT' | 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY';

export interface GeminiSchema {
	/** Absent for a value of any type: Gemini has no "any", and leaving the type out is how Google's SDK sends one. */
	type?: GeminiType;
	format?: string;
	description?: string;
	nullable?: boolean;
	enum?: string[];
	pattern?: string;
	minLength?: number;
	maxLength?: number;
	properties?: Record<string, GeminiSchema>;
	required?: string[];
	minProperties?: number;
	maxProperties?: number;
	items?: GeminiSchema;
	minItems?: number;
	maxItems?: number;
	minimum?: number;
	maximum?: number;
	anyOf?: GeminiSchema[];
}

const TYPES: Record<string, GeminiType> = {
	object: 'OBJECT',
	string: 'STRING',
	number: 'NUMBER',
	integer: 'INTEGER',
	boolean: 'BOOLEAN',
	array: 'ARRAY',
};

const FORMATS: Partial<Record<GeminiType, string[]>> = {
	STRING: ['enum', 'date-time'],
	NUMBER: ['float', 'double'],
	INTEGER: ['int32', 'int64'],
};

/**
 * A tool's input schema as Gemini's `parameters`: always an OBJECT. A declaration without parameters
 * is refused under mode ANY; an OBJECT with an empty `properties` map is refused at any depth
 * ("properties: should be non-empty for OBJECT type"), so a tool without arguments is `{type: OBJECT}`.
 */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema {
	// Gemini's Schema has no references.
	const converted = convert(inlineLocalRefs(schema));
	if (converted.type !== 'OBJECT') return { type: 'OBJECT' };
	const { nullable: _nullable, ...object } = converted;
	return object;
}

/** A structured answer's schema as Gemini's `responseSchema`: any root, the same Schema rules. */
export function toGeminiResponseSchema(schema: JsonSchema): GeminiSchema {
	return convert(inlineLocalRefs(schema));
}

function convert(node: unknown): GeminiSchema {
	const schema = withAllOfMerged(node);
	const description = typeof schema.description === 'string' ? schema.description : undefined;
	const { types, nullable } = typesOf(schema);
	const union = schema.anyOf ?? schema.oneOf;
	let out: GeminiSchema;
	if (types.length === 0 && Array.isArray(union)) out = convertUnion(union);
	else if (types.length > 1) out = { anyOf: types.map((type) => convertTyped(schema, type)) };
	else out = convertTyped(schema, types[0]);
	// The outer description wins: it says what this use of a shared or unioned schema is for.
	const text = describeUnexpressed(description ?? out.description, unexpressed(schema, types));
	return {
		...out,
		...(text !== undefined && { description: text }),
		...((nullable || out.nullable) && { nullable: true }),
	};
}

/** Validation keywords Gemini's Schema has no field for. */
const NOT_EXPRESSIBLE = [
	'multipleOf',
	'prefixItems',
	'additionalItems',
	'contains',
	'minContains',
	'maxContains',
	'uniqueItems',
	'patternProperties',
	'propertyNames',
	'dependentRequired',
	'dependentSchemas',
	'dependencies',
	...IN_PLACE_KEYWORDS,
];

/** What of a node the converted Schema does not hold, by keyword, for the description. */
function unexpressed(
	schema: Record<string, unknown>,
	types: GeminiType[],
): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const key of NOT_EXPRESSIBLE) if (schema[key] !== undefined) out[key] = schema[key];
	if (Array.isArray(schema.items)) out.items = schema.items;
	if (isRecord(schema.additionalProperties) && Object.keys(schema.additionalProperties).length > 0)
		out.additionalProperties = schema.additionalProperties;
	if (
		typeof schema.format === 'string' &&
		!types.some((type) => FORMATS[type]?.includes(schema.format as string))
	)
		out.format = schema.format;
	if (!types.includes('INTEGER')) {
		if (schema.exclusiveMinimum !== undefined) out.exclusiveMinimum = schema.exclusiveMinimum;
		if (schema.exclusiveMaximum !== undefined) out.exclusiveMaximum = schema.exclusiveMaximum;
	}
	const values = enumValues(schema)?.filter((value) => value !== null);
	if (values && !values.every((value) => typeof value === 'string'))
		out['const' in schema ? 'const' : 'enum'] = 'const' in schema ? schema.const : schema.enum;
	const union = schema.anyOf ?? schema.oneOf;
	if (Array.isArray(union) && types.length > 0) out[schema.anyOf ? 'anyOf' : 'oneOf'] = union;
	else if (Array.isArray(schema.oneOf) && schema.oneOf.filter((b) => !isNullSchema(b)).length > 1)
		out.oneOf = ONE_OF_NOTE;
	if (Array.isArray(schema.allOf)) out.allOf = schema.allOf;
	if (types.includes('OBJECT')) {
		const declared = new Set(declaredProperties(schema).map(([name]) => name));
		const undeclared = requiredNames(schema).filter((name) => !declared.has(name));
		if (undeclared.length > 0) out.required = undeclared;
		if (declared.size === 0 && schema.additionalProperties === false)
			out.additionalProperties = false;
	}
	return out;
}

/** The node with its `allOf` merged where it can be. */
function withAllOfMerged(node: unknown): Record<string, unknown> {
	const schema = isRecord(node) ? node : {};
	return Array.isArray(schema.allOf) ? mergeAllOf(schema, schema.allOf) : schema;
}

/** Bounds that several allOf schemas set: all of them hold, so the tightest one does. */
const TIGHTEST: Record<string, (a: number, b: number) => number> = {
	minimum: Math.max,
	exclusiveMinimum: Math.max,
	minLength: Math.max,
	minItems: Math.max,
	minProperties: Math.max,
	maximum: Math.min,
	exclusiveMaximum: Math.min,
	maxLength: Math.min,
	maxItems: Math.min,
	maxProperties: Math.min,
};

/**
 * An allOf whose schemas agree on one type and hold no unions becomes one schema: properties and
 * required joined (a property several declare must meet each of them, so must items), the tightest
 * of each bound, annotations from the first schema that has them. Any other allOf stays, to be told
 * in the description, and so does one whose schemas give a keyword values that cannot be one (two
 * patterns), beside the type they agree on.
 */
function mergeAllOf(node: Record<string, unknown>, allOf: unknown[]): Record<string, unknown> {
	const { allOf: _allOf, ...own } = node;
	const schemas = [own, ...allOf.map(withAllOfMerged)];
	const declared = new Set(
		schemas
			.filter((schema) => schema.type !== undefined)
			.map((schema) => JSON.stringify(schema.type)),
	);
	const simple = declared.size <= 1 && schemas.every((schema) => !schema.anyOf && !schema.oneOf);
	// Kept as it is, for the description: Gemini has no allOf.
	if (!simple) return node;
	// …with the type they agree on, when one keyword has values that cannot be one.
	const type = schemas.find((schema) => schema.type !== undefined)?.type;
	const unmerged = type === undefined ? node : { ...node, type };
	// Maps, not objects: a key such as "__proto__" must stay a key.
	const merged = new Map<string, unknown>();
	const properties = new Map<string, unknown[]>();
	const required: unknown[] = [];
	for (const schema of schemas) {
		for (const [key, value] of Object.entries(schema)) {
			const earlier = merged.get(key);
			if (key === 'properties' && isRecord(value)) {
				for (const [name, property] of Object.entries(value))
					properties.set(name, [...(properties.get(name) ?? []), property]);
			} else if (key === 'required' && Array.isArray(value)) {
				required.push(...value);
			} else if (!merged.has(key)) {
				merged.set(key, value);
			} else if (Object.hasOwn(TIGHTEST, key) && isFiniteNumber(earlier) && isFiniteNumber(value)) {
				merged.set(key, TIGHTEST[key](earlier, value));
			} else if (key === 'items' && isRecord(earlier) && isRecord(value)) {
				// Every item meets both.
				merged.set(key, { allOf: [earlier, value] });
			} else if (!isAnnotation(key) && JSON.stringify(earlier) !== JSON.stringify(value)) {
				return unmerged;
			}
		}
	}
	if (properties.size > 0)
		merged.set(
			'properties',
			Object.fromEntries(
				// A property one schema forbids (false) stays forbidden.
				[...properties].map(([name, each]) => [
					name,
					each.includes(false) ? false : each.length === 1 ? each[0] : { allOf: each },
				]),
			),
		);
	if (required.length > 0) merged.set('required', required);
	return Object.fromEntries(merged);
}

/** Keywords that constrain nothing: the first schema's value stands (vendor keywords, `x-…`, too). */
const isAnnotation = (key: string) => ANNOTATIONS.has(key) || key.startsWith('x-');

/** anyOf/oneOf (Gemini has only anyOf): null branches become `nullable`, a single branch left stands alone. */
function convertUnion(branches: unknown[]): GeminiSchema {
	const kept = branches.filter((branch) => !isNullSchema(branch));
	const nullable = kept.length < branches.length;
	const converted = kept.map((branch) => convert(branch));
	const out: GeminiSchema =
		converted.length === 1 ? converted[0] : converted.length > 1 ? { anyOf: converted } : {};
	return nullable ? { ...out, nullable: true } : out;
}

function convertTyped(schema: Record<string, unknown>, type: GeminiType | undefined): GeminiSchema {
	const out: GeminiSchema = type ? { type } : {};
	if (type && typeof schema.format === 'string' && FORMATS[type]?.includes(schema.format))
		out.format = schema.format;
	if (type === 'STRING') {
		const strings = enumValues(schema)?.filter(
			(value): value is string => typeof value === 'string',
		);
		if (strings && strings.length > 0) out.enum = strings;
		if (typeof schema.pattern === 'string') out.pattern = schema.pattern;
		if (isCount(schema.minLength)) out.minLength = schema.minLength;
		if (isCount(schema.maxLength)) out.maxLength = schema.maxLength;
	} else if (type === 'NUMBER' || type === 'INTEGER') {
		Object.assign(out, bounds(schema, type));
	} else if (type === 'ARRAY') {
		// Gemini refuses an ARRAY without items; tuple and boolean items have no Gemini form.
		out.items = convert(isRecord(schema.items) ? schema.items : {});
		if (isCount(schema.minItems)) out.minItems = schema.minItems;
		if (isCount(schema.maxItems)) out.maxItems = schema.maxItems;
	} else if (type === 'OBJECT') {
		Object.assign(out, convertObject(schema));
	}
	return out;
}

/**
 * minimum and maximum; an exclusive bound is exact for integers (the next integer inside it) and
 * told in the description for numbers (unexpressed).
 */
function bounds(schema: Record<string, unknown>, type: GeminiType): GeminiSchema {
	let minimum = isFiniteNumber(schema.minimum) ? schema.minimum : undefined;
	let maximum = isFiniteNumber(schema.maximum) ? schema.maximum : undefined;
	if (type === 'INTEGER' && isFiniteNumber(schema.exclusiveMinimum)) {
		const next = Math.floor(schema.exclusiveMinimum) + 1;
		minimum = minimum === undefined ? next : Math.max(minimum, next);
	}
	if (type === 'INTEGER' && isFiniteNumber(schema.exclusiveMaximum)) {
		const next = Math.ceil(schema.exclusiveMaximum) - 1;
		maximum = maximum === undefined ? next : Math.min(maximum, next);
	}
	return {
		...(minimum !== undefined && { minimum }),
		...(maximum !== undefined && { maximum }),
	};
}

/**
 * Properties (a `false` one forbids the key, so it is left out) and the required names that exist
 * among them (the description tells the others). An object that declares none has no properties
 * map: Gemini refuses an empty one ("should be non-empty for OBJECT type"); that it takes no keys
 * (`additionalProperties: false`) is told in the description.
 */
function convertObject(schema: Record<string, unknown>): GeminiSchema {
	const declared = declaredProperties(schema);
	const names = declared.map(([name]) => name);
	const required = requiredNames(schema).filter((name) => names.includes(name));
	return {
		...(declared.length > 0 && {
			properties: Object.fromEntries(declared.map(([name, value]) => [name, convert(value)])),
		}),
		...(required.length > 0 && { required }),
		...(isCount(schema.minProperties) && { minProperties: schema.minProperties }),
		...(isCount(schema.maxProperties) && { maxProperties: schema.maxProperties }),
	};
}

/** The properties a Gemini Schema can declare: a `false` one forbids its key, so it is left out. */
function declaredProperties(schema: Record<string, unknown>): Array<[string, unknown]> {
	return isRecord(schema.properties)
		? Object.entries(schema.properties).filter(([, value]) => value !== false)
		: [];
}

function requiredNames(schema: Record<string, unknown>): string[] {
	const names = Array.isArray(schema.required) ? schema.required : [];
	return [...new Set(names.filter((name): name is string => typeof name === 'string'))];
}

/** The non-null types a node allows, declared or read off its keywords, and whether it also allows null. */
function typesOf(schema: Record<string, unknown>): { types: GeminiType[]; nullable: boolean } {
	const values = enumValues(schema);
	let names: unknown[];
	if (schema.type !== undefined) names = [schema.type].flat();
	else if (values) names = values.map(jsonType);
	else if (['properties', 'required', 'additionalProperties'].some((key) => key in schema))
		names = ['object'];
	else if ('items' in schema) names = ['array'];
	else names = [];
	// Every integer is a number, so a mix is a number.
	if (names.includes('number')) names = names.filter((name) => name !== 'integer');
	const types = [
		...new Set(
			names.flatMap((name) =>
				typeof name === 'string' && Object.hasOwn(TYPES, name) ? [TYPES[name]] : [],
			),
		),
	];
	const nullable = names.includes('null') || (values?.includes(null) ?? false);
	return { types, nullable };
}

function enumValues(schema: Record<string, unknown>): unknown[] | undefined {
	if ('const' in schema) return [schema.const];
	return Array.isArray(schema.enum) && schema.enum.length > 0 ? schema.enum : undefined;
}

function isNullSchema(branch: unknown): boolean {
	if (!isRecord(branch)) return false;
	const types = [branch.type].flat();
	return branch.type !== undefined && types.every((type) => type === 'null');
}

function isCount(value: unknown): value is number {
	return Number.isInteger(value) && (value as number) >= 0;
}

function isFiniteNumber(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}
