import type { JsonSchema } from '../conversation/types';
import { isRecord, jsonType } from '../json/value';
import { ANNOTATIONS, DEFINITIONS } from './keywords';
import { resolvePointer } from './pointer';
import { pastStrictLimits } from './strictLimits';
import { describeUnexpressed } from './unexpressed';

/**
 * JSON Schema to OpenAI's strict-mode subset: every object closed, every property required (the
 * optional ones made nullable), arrays with one `items` schema, refs local. A structure strict mode
 * cannot express is refused with the first offending construct named, never approximated: a tool
 * that cannot be made strict is better sent as it is. Keywords that only narrow a value and that
 * strict mode does not take are moved into the description (describeUnexpressed).
 * @see https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 */

export type StrictResult = { ok: true; schema: JsonSchema } | { ok: false; reason: string };

const UNSUPPORTED = [
	'oneOf',
	'not',
	'if',
	'then',
	'else',
	'patternProperties',
	'propertyNames',
	'dependentRequired',
	'dependentSchemas',
	'dependencies',
	'unevaluatedProperties',
	'unevaluatedItems',
	'minProperties',
	'maxProperties',
	'uniqueItems',
	'contains',
	'minContains',
	'maxContains',
	'prefixItems',
	'additionalItems',
	'$anchor',
	'$dynamicRef',
	'$dynamicAnchor',
	'$recursiveRef',
	'$recursiveAnchor',
];
/** The string formats strict mode supports; any other is refused with a 400 ("'uri' is not a valid format"). */
const STRICT_FORMATS = new Set([
	'date-time',
	'time',
	'date',
	'duration',
	'email',
	'hostname',
	'ipv4',
	'ipv6',
	'uuid',
]);
/**
 * Keywords outside strict mode's supported list that only narrow a value, told in the description.
 * `default` too: Azure OpenAI refuses a non-null default in a strict schema, and strict mode makes
 * every property required, so the model is better told what the tool assumes when it sends null.
 */
const DESCRIBED = new Set(['minLength', 'maxLength', 'default']);

class Refusal extends Error {}

export function toStrictSchema(schema: JsonSchema): StrictResult {
	try {
		if (typeof schema.$ref === 'string')
			refuse('', 'root is a $ref; strict mode needs an inline object schema');
		if (schema.anyOf !== undefined) refuse('', 'root must be type "object", not a union (anyOf)');
		const strict = convert(schema, '', schema);
		if (strict.type !== 'object')
			refuse('', `root must be type "object", got ${JSON.stringify(strict.type)}`);
		const past = pastStrictLimits(strict);
		if (past) refuse('', past);
		return { ok: true, schema: strict };
	} catch (error) {
		if (error instanceof Refusal) return { ok: false, reason: error.message };
		throw error;
	}
}

function refuse(path: string, what: string): never {
	throw new Refusal(`${what} (at ${path || '/'})`);
}

function convert(node: unknown, path: string, root: JsonSchema): JsonSchema {
	if (typeof node === 'boolean') refuse(path, `boolean schema ${node}`);
	if (!isRecord(node)) refuse(path, 'schema is not an object');
	const found = UNSUPPORTED.find((keyword) => keyword in node);
	if (found) refuse(path, `${found} is not supported in strict mode`);
	if (path !== '' && '$id' in node) refuse(path, 'nested $id is not supported in strict mode');
	if ('allOf' in node) return convert(flattenAllOf(node, path), path, root);
	if ('$ref' in node) return checkRef(node, path, root);

	const entries: Array<[string, unknown]> = [];
	const unexpressed: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(node)) {
		if (DESCRIBED.has(key) || (key === 'format' && !STRICT_FORMATS.has(String(value)))) {
			unexpressed[key] = value;
		} else if (key === 'anyOf') {
			if (!Array.isArray(value) || value.length === 0)
				refuse(path, 'anyOf must be a non-empty array');
			entries.push([key, value.map((branch, i) => convert(branch, `${path}/anyOf/${i}`, root))]);
		} else if (key === 'items') {
			if (!isRecord(value))
				refuse(path, 'items must be one schema (tuple or boolean items are not supported)');
			entries.push([key, convert(value, `${path}/items`, root)]);
		} else if (DEFINITIONS.includes(key) && isRecord(value)) {
			entries.push([
				key,
				mapValues(value, (def, name) => convert(def, `${path}/${key}/${name}`, root)),
			]);
		} else if (!['properties', 'required', 'additionalProperties'].includes(key)) {
			entries.push([key, value]);
		}
	}
	const out = Object.fromEntries(entries) as JsonSchema;
	if (Object.keys(unexpressed).length > 0) {
		const own = typeof node.description === 'string' ? node.description : undefined;
		out.description = describeUnexpressed(own, unexpressed);
	}
	if (out.type === undefined && out.anyOf === undefined) {
		const type = inferType(node);
		if (type === undefined) refuse(path, 'schema has no type (strict mode needs one)');
		out.type = type;
	}
	if (hasType(out, 'array') && out.items === undefined) refuse(path, 'array without items');
	if (hasType(out, 'object')) closeObject(node, out, path, root);
	return out;
}

/** Closes an object and makes every property required, nullable where it was optional. */
function closeObject(
	node: Record<string, unknown>,
	out: JsonSchema,
	path: string,
	root: JsonSchema,
): void {
	const additional = node.additionalProperties;
	if (additional !== undefined && additional !== false) {
		refuse(
			path,
			`additionalProperties must be false, got ${additional === true ? 'true' : 'a schema'}`,
		);
	}
	const properties = node.properties ?? {};
	if (!isRecord(properties)) refuse(path, 'properties is not an object');
	// Closing an open object with no properties would let the model send only {}.
	if (path !== '' && Object.keys(properties).length === 0 && additional === undefined) {
		refuse(path, 'free-form object (no properties) cannot be closed without losing its keys');
	}
	const required = node.required ?? [];
	if (!Array.isArray(required)) refuse(path, 'required is not an array');
	const missing = required.find(
		(key) => typeof key !== 'string' || !Object.hasOwn(properties, key),
	);
	if (missing !== undefined) {
		refuse(path, `required names ${JSON.stringify(missing)}, which properties does not declare`);
	}
	out.properties = mapValues(properties, (schema, key) => {
		const strict = convert(schema, `${path}/properties/${key}`, root);
		return required.includes(key) ? strict : nullable(strict, root);
	});
	out.required = Object.keys(properties);
	out.additionalProperties = false;
}

/** Strict mode has no optional properties: an optional one must also accept null. */
function nullable(schema: JsonSchema, root: JsonSchema): JsonSchema {
	if (admitsNull(schema, root)) return schema;
	if (schema.$ref !== undefined || schema.anyOf !== undefined)
		return { anyOf: [schema, { type: 'null' }] };
	const types = [schema.type].flat();
	const out: JsonSchema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
	if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
	if ('const' in schema && schema.const !== null) {
		delete out.const;
		out.enum = [schema.const, null];
	}
	return out;
}

/** Whether a schema provably accepts null; unsure counts as no, which errs towards dropping a null. */
function admitsNull(schema: unknown, root: JsonSchema): boolean {
	const target = follow(schema, root);
	if (!isRecord(target)) return target === true;
	if (Array.isArray(target.anyOf)) return target.anyOf.some((branch) => admitsNull(branch, root));
	// Each of const, enum and type that is there must let null through: {type: 'string', enum: ['a', null]} does not.
	const verdicts: boolean[] = [];
	if ('const' in target) verdicts.push(target.const === null);
	if (Array.isArray(target.enum)) verdicts.push(target.enum.includes(null));
	if (target.type !== undefined) verdicts.push(hasType(target, 'null'));
	if (verdicts.length > 0) return verdicts.every(Boolean);
	return Object.keys(target).every((key) => ANNOTATIONS.has(key));
}

/** The schema behind local refs and single-branch allOf wrappers. */
function follow(schema: unknown, root: JsonSchema): unknown {
	const seen = new Set<string>();
	let target = schema;
	while (isRecord(target)) {
		if (typeof target.$ref === 'string' && !seen.has(target.$ref)) {
			seen.add(target.$ref);
			target = resolvePointer(root, target.$ref);
		} else if (Array.isArray(target.allOf) && target.allOf.length === 1) {
			target = target.allOf[0];
		} else {
			break;
		}
	}
	return target;
}

/**
 * Undoes the nulls strict mode forces on optional properties: a null the model sent for a property
 * that the ORIGINAL schema left optional and that does not accept null is dropped, so the tool
 * sees the argument as absent. Nested objects, array items and the anyOf branch an object or
 * array was sent for are followed.
 */
export function dropAddedNulls(
	args: Record<string, unknown>,
	schema: JsonSchema,
): Record<string, unknown> {
	return prune(args, schema, schema) as Record<string, unknown>;
}

function prune(value: unknown, schema: unknown, root: JsonSchema): unknown {
	const target = follow(schema, root);
	if (!isRecord(target)) return value;
	if (Array.isArray(target.anyOf) && typeof value === 'object' && value !== null)
		return prune(value, branchSentFor(value, target.anyOf, root), root);
	if (Array.isArray(value)) return value.map((item) => prune(item, target.items, root));
	const properties = target.properties;
	if (!isRecord(value) || !isRecord(properties)) return value;
	const required = Array.isArray(target.required) ? target.required : [];
	const kept = Object.entries(value).flatMap(([key, item]): Array<[string, unknown]> => {
		if (!Object.hasOwn(properties, key)) return [[key, item]];
		if (item === null && !required.includes(key) && !admitsNull(properties[key], root)) return [];
		return [[key, prune(item, properties[key], root)]];
	});
	return Object.fromEntries(kept);
}

/**
 * The anyOf branch an object or array was sent for (Optional[Model], a union of models), when it
 * can be told: the one branch of its kind; of several object branches, the one that declares the
 * most of the object's keys and, strict mode making the model send every property, leaves the
 * fewest unsent. Undefined when two fit alike: then no null is dropped.
 */
function branchSentFor(value: object, branches: unknown[], root: JsonSchema): unknown {
	const kind = Array.isArray(value) ? 'array' : 'object';
	const keys = Object.keys(value);
	const fits = branches.flatMap((branch) => {
		const target = follow(branch, root);
		if (!isRecord(target)) return [];
		if (!hasType(target, kind) && !((kind === 'array' ? 'items' : 'properties') in target))
			return [];
		const properties = Object.keys(isRecord(target.properties) ? target.properties : {});
		const declared = keys.filter((key) => properties.includes(key)).length;
		// Arrays are told apart by nothing here: two array branches tie.
		return [{ branch, score: [declared, declared - properties.length] }];
	});
	fits.sort((a, b) => b.score[0] - a.score[0] || b.score[1] - a.score[1]);
	const [best, next] = fits;
	if (!best || (next && next.score.every((part, at) => part === best.score[at]))) return undefined;
	return best.branch;
}

/** A single-branch allOf beside annotations only is that branch; anything else is an intersection. */
function flattenAllOf(node: Record<string, unknown>, path: string): Record<string, unknown> {
	const { allOf, ...rest } = node;
	if (!Array.isArray(allOf) || allOf.length !== 1 || !isRecord(allOf[0])) {
		refuse(path, 'allOf with more than one schema is not supported in strict mode');
	}
	if (!Object.keys(rest).every((key) => ANNOTATIONS.has(key))) {
		refuse(path, 'allOf beside other keywords is not supported in strict mode');
	}
	// Outer annotations win: they describe this use of the shared schema.
	return { ...allOf[0], ...rest };
}

function checkRef(node: Record<string, unknown>, path: string, root: JsonSchema): JsonSchema {
	const ref = node.$ref;
	if (typeof ref !== 'string') refuse(path, '$ref is not a string');
	if (!ref.startsWith('#')) refuse(path, `remote $ref ${JSON.stringify(ref)} is not supported`);
	if (resolvePointer(root, ref) === undefined)
		refuse(path, `$ref ${JSON.stringify(ref)} does not resolve`);
	const siblings = Object.keys(node).filter((key) => key !== '$ref' && !ANNOTATIONS.has(key));
	if (siblings.length > 0)
		refuse(path, `$ref beside ${siblings.join(', ')} is not supported in strict mode`);
	// A default is told in the description here too (see DESCRIBED).
	const { default: told, ...kept } = node;
	if (told === undefined) return kept;
	const own = typeof node.description === 'string' ? node.description : undefined;
	return { ...kept, description: describeUnexpressed(own, { default: told }) };
}

/** A missing type is read off the other keywords; enum and const types off their values. */
function inferType(node: Record<string, unknown>): JsonSchema['type'] {
	const values = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
	if (values) {
		const types = new Set(values.map(jsonType));
		// Every integer is a number, so a mix is a number.
		if (types.has('number')) types.delete('integer');
		return types.size === 1 ? [...types][0] : [...types];
	}
	if (['properties', 'required', 'additionalProperties'].some((key) => key in node))
		return 'object';
	if ('items' in node) return 'array';
	return undefined;
}

function hasType(schema: JsonSchema, type: string): boolean {
	return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

/** Like Object.fromEntries over mapped values; safe for keys such as "__proto__". */
function mapValues(
	record: Record<string, unknown>,
	map: (value: unknown, key: string) => unknown,
): JsonSchema {
	return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]));
}
