import type { JsonSchema } from '../conversation/types';
import { isRecord, jsonType } from '../json/value';
import { resolvePointer } from './pointer';

/**
 * JSON Schema to the Schema object of Gemini's function declarations (`parameters`), an OpenAPI 3.0
 * subset: upper-case types, `nullable` instead of null types, string-only enums, no references, no
 * `additionalProperties`. What it cannot hold is dropped, never refused: the model sees a looser
 * schema, and the arguments are still checked against the original one before a tool runs.
 */

export type GeminiType = 'OBJECT' | 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY';

export interface GeminiSchema {
	/** Absent for a value of any type: Gemini has no "any", and leaving the type out is how Google's SDK sends one. */
	type?: GeminiType;
	format?: string;
	description?: string;
	nullable?: boolean;
	enum?: string[];
	properties?: Record<string, GeminiSchema>;
	required?: string[];
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
 * How often one `$ref` may be expanded inside itself. Gemini's Schema has no references, so refs are
 * inlined; a recursive one (a tree) would inline forever, so it is unrolled this deep and then cut to
 * a value of any type.
 */
const MAX_RECURSION = 2;

interface Context {
	root: JsonSchema;
	/** The refs being expanded on the way to this node. */
	expanding: string[];
}

/** A tool's input schema as Gemini's `parameters`: always an object, `properties: {}` for a tool without arguments. */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema {
	const converted = convert(schema, { root: schema, expanding: [] });
	// A declaration without parameters is refused under mode ANY, an empty object is not.
	if (converted.type !== 'OBJECT') return { type: 'OBJECT', properties: {} };
	const { nullable: _nullable, ...object } = converted;
	return { ...object, properties: object.properties ?? {} };
}

function convert(node: unknown, ctx: Context): GeminiSchema {
	const expanded = expand(node, ctx);
	if (!expanded) return {};
	const { schema, inner } = expanded;
	const description = typeof schema.description === 'string' ? schema.description : undefined;
	const { types, nullable } = typesOf(schema);
	const union = schema.anyOf ?? schema.oneOf;
	let out: GeminiSchema;
	if (types.length === 0 && Array.isArray(union)) out = convertUnion(union, inner);
	else if (types.length > 1)
		out = { anyOf: types.map((type) => convertTyped(schema, type, inner)) };
	else out = convertTyped(schema, types[0], inner);
	// The outer description wins: it says what this use of a shared or unioned schema is for.
	const text = withValuesNote(description ?? out.description, schema);
	return {
		...out,
		...(text !== undefined && { description: text }),
		...((nullable || out.nullable) && { nullable: true }),
	};
}

/** The node with its local `$ref` inlined (its own keywords win) and its `allOf` merged; undefined where recursion is cut. */
function expand(
	node: unknown,
	ctx: Context,
): { schema: Record<string, unknown>; inner: Context } | undefined {
	let schema = isRecord(node) ? node : {};
	let inner = ctx;
	while (typeof schema.$ref === 'string') {
		const { $ref: ref, ...siblings } = schema;
		if (inner.expanding.filter((seen) => seen === ref).length >= MAX_RECURSION) return undefined;
		const target = resolvePointer(inner.root, ref);
		inner = { ...inner, expanding: [...inner.expanding, ref] };
		// An unresolvable or remote ref (never fetched) leaves a value of any type.
		schema = { ...(isRecord(target) ? target : {}), ...siblings };
	}
	if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema, schema.allOf, inner);
	return { schema, inner };
}

/**
 * An allOf whose schemas agree on one type and hold no unions becomes one schema: properties and
 * required joined, other keywords from the first schema that has them. Any other allOf is dropped.
 */
function mergeAllOf(
	node: Record<string, unknown>,
	allOf: unknown[],
	ctx: Context,
): Record<string, unknown> {
	const { allOf: _allOf, ...own } = node;
	const schemas = [own, ...allOf.map((branch) => expand(branch, ctx)?.schema ?? {})];
	const declared = new Set(
		schemas
			.filter((schema) => schema.type !== undefined)
			.map((schema) => JSON.stringify(schema.type)),
	);
	const simple = declared.size <= 1 && schemas.every((schema) => !schema.anyOf && !schema.oneOf);
	if (!simple) return own;
	// Maps, not objects: a key such as "__proto__" must stay a key.
	const merged = new Map<string, unknown>();
	const properties = new Map<string, unknown>();
	const required: unknown[] = [];
	for (const schema of schemas) {
		for (const [key, value] of Object.entries(schema)) {
			if (key === 'properties' && isRecord(value)) {
				for (const [name, property] of Object.entries(value))
					if (!properties.has(name)) properties.set(name, property);
			} else if (key === 'required' && Array.isArray(value)) {
				required.push(...value);
			} else if (!merged.has(key)) {
				merged.set(key, value);
			}
		}
	}
	if (properties.size > 0) merged.set('properties', Object.fromEntries(properties));
	if (required.length > 0) merged.set('required', required);
	return Object.fromEntries(merged);
}

/** anyOf/oneOf (Gemini has only anyOf): null branches become `nullable`, a single branch left stands alone. */
function convertUnion(branches: unknown[], ctx: Context): GeminiSchema {
	const kept = branches.filter((branch) => !isNullSchema(branch));
	const nullable = kept.length < branches.length;
	const converted = kept.map((branch) => convert(branch, ctx));
	const out: GeminiSchema =
		converted.length === 1 ? converted[0] : converted.length > 1 ? { anyOf: converted } : {};
	return nullable ? { ...out, nullable: true } : out;
}

function convertTyped(
	schema: Record<string, unknown>,
	type: GeminiType | undefined,
	ctx: Context,
): GeminiSchema {
	const out: GeminiSchema = type ? { type } : {};
	if (type && typeof schema.format === 'string' && FORMATS[type]?.includes(schema.format))
		out.format = schema.format;
	if (type === 'STRING') {
		const strings = enumValues(schema)?.filter(
			(value): value is string => typeof value === 'string',
		);
		if (strings && strings.length > 0) out.enum = strings;
	} else if (type === 'NUMBER' || type === 'INTEGER') {
		if (isFiniteNumber(schema.minimum)) out.minimum = schema.minimum;
		if (isFiniteNumber(schema.maximum)) out.maximum = schema.maximum;
	} else if (type === 'ARRAY') {
		// Gemini refuses an ARRAY without items; tuple and boolean items have no Gemini form.
		out.items = convert(isRecord(schema.items) ? schema.items : {}, ctx);
		if (isCount(schema.minItems)) out.minItems = schema.minItems;
		if (isCount(schema.maxItems)) out.maxItems = schema.maxItems;
	} else if (type === 'OBJECT') {
		Object.assign(out, convertObject(schema, ctx));
	}
	return out;
}

/** Properties (a `false` one forbids the key, so it is left out) and the required names that exist among them. */
function convertObject(schema: Record<string, unknown>, ctx: Context): GeminiSchema {
	const declared = isRecord(schema.properties)
		? Object.entries(schema.properties).filter(([, value]) => value !== false)
		: [];
	const names = declared.map(([name]) => name);
	const required = Array.isArray(schema.required)
		? schema.required.filter((name) => names.includes(name))
		: [];
	return {
		...(declared.length > 0 && {
			properties: Object.fromEntries(declared.map(([name, value]) => [name, convert(value, ctx)])),
		}),
		...(required.length > 0 && { required: [...new Set(required as string[])] }),
	};
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

/** Gemini's enum holds strings only; other allowed values are told to the model in the description. */
function withValuesNote(
	description: string | undefined,
	schema: Record<string, unknown>,
): string | undefined {
	const values = enumValues(schema)?.filter((value) => value !== null);
	if (!values || values.every((value) => typeof value === 'string')) return description;
	const list = values.map((value) => JSON.stringify(value)).join(', ');
	return description ? `${description} (one of: ${list})` : `One of: ${list}`;
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
