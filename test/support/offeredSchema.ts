/**
 * What a vendor's model is offered for one function, read back as JSON Schema by the vendor's
 * documents: Gemini's Schema object (OpenAPI 3.0 subset) mapped to JSON Schema, Ollama's tool
 * structs keeping only the fields they decode (the rest never reaches the model), the others as
 * sent. Used by the meaning check to sample arguments the model may produce.
 */
import type { DialectId } from '../../lib/dialects/types';
import type { JsonSchema } from '../../lib/conversation/types';
import { resolvePointer } from '../../lib/schema/pointer';
import { isRecord } from '../../lib/json/value';

type Json = Record<string, unknown>;

export function offeredSchema(dialect: DialectId, schema: unknown): JsonSchema {
	if (dialect === 'gemini') return fromGemini(schema);
	if (dialect === 'ollama') return ollamaReads(schema, true);
	return isRecord(schema) ? schema : {};
}

const GEMINI_TYPES: Record<string, string> = {
	STRING: 'string',
	NUMBER: 'number',
	INTEGER: 'integer',
	BOOLEAN: 'boolean',
	ARRAY: 'array',
	OBJECT: 'object',
	NULL: 'null',
};

/** A Schema object as JSON Schema: the same constraints, `nullable` as a null type. */
function fromGemini(node: unknown): JsonSchema {
	if (!isRecord(node)) return {};
	const out: JsonSchema = {};
	const type = typeof node.type === 'string' ? GEMINI_TYPES[node.type] : undefined;
	for (const key of [
		'description',
		'pattern',
		'minLength',
		'maxLength',
		'minItems',
		'maxItems',
		'minProperties',
		'maxProperties',
		'minimum',
		'maximum',
	]) {
		if (node[key] !== undefined)
			out[key] =
				typeof node[key] === 'string' && key !== 'description' && key !== 'pattern'
					? Number(node[key])
					: node[key];
	}
	if (node.format === 'date-time') out.format = 'date-time';
	if (Array.isArray(node.enum)) out.enum = node.nullable ? [...node.enum, null] : node.enum;
	if (isRecord(node.properties))
		out.properties = Object.fromEntries(
			Object.entries(node.properties).map(([name, inner]) => [name, fromGemini(inner)]),
		);
	if (Array.isArray(node.required)) out.required = node.required;
	if (node.items !== undefined) out.items = fromGemini(node.items);
	if (Array.isArray(node.anyOf)) {
		const branches = node.anyOf.map(fromGemini);
		out.anyOf = node.nullable ? [...branches, { type: 'null' }] : branches;
	}
	if (type) out.type = node.nullable && type !== 'null' ? [type, 'null'] : type;
	return out;
}

/** What Ollama decodes (api/types.go): ToolFunctionParameters at the root, ToolProperty below; `items` and `$defs` whole. */
function ollamaReads(node: unknown, root: boolean): JsonSchema {
	if (!isRecord(node)) return {};
	const keep = root
		? ['type', '$defs', 'items', 'required', 'properties']
		: ['anyOf', 'type', 'items', 'description', 'enum', 'properties', 'required'];
	const out: JsonSchema = {};
	for (const key of keep) {
		if (node[key] === undefined) continue;
		if (key === 'properties' && isRecord(node.properties))
			out.properties = Object.fromEntries(
				Object.entries(node.properties).map(([name, inner]) => [name, ollamaReads(inner, false)]),
			);
		else if (key === 'anyOf' && Array.isArray(node.anyOf))
			out.anyOf = node.anyOf.map((inner) => ollamaReads(inner, false));
		else out[key] = node[key];
	}
	return out;
}

/**
 * The descriptions a model reads on the way from the schema's root to the value at `instancePath`
 * (a JSON Pointer): of every node passed, of the branches of its unions and of what its `$ref`s name.
 */
export function descriptionsAlong(schema: JsonSchema, instancePath: string): string[] {
	const texts: string[] = [];
	let nodes = expand([schema], schema);
	const segments = instancePath === '' ? [] : instancePath.slice(1).split('/');
	for (let depth = 0; ; depth++) {
		for (const node of nodes)
			if (typeof node.description === 'string') texts.push(node.description);
		if (depth === segments.length) return texts;
		const key = segments[depth].replace(/~1/g, '/').replace(/~0/g, '~');
		const next: unknown[] = [];
		for (const node of nodes) {
			if (isRecord(node.properties) && Object.hasOwn(node.properties, key))
				next.push(node.properties[key]);
			else if (/^\d+$/.test(key) && node.items !== undefined) next.push(node.items);
			else if (isRecord(node.additionalProperties)) next.push(node.additionalProperties);
		}
		nodes = expand(next, schema);
		if (nodes.length === 0) return texts;
	}
}

/** The nodes with their anyOf/oneOf/allOf branches and local $ref targets, recursively. */
function expand(nodes: unknown[], root: JsonSchema): Json[] {
	const out: Json[] = [];
	const queue = [...nodes];
	while (queue.length > 0 && out.length < 200) {
		const node = queue.shift();
		if (!isRecord(node) || out.includes(node)) continue;
		out.push(node);
		for (const key of ['anyOf', 'oneOf', 'allOf'])
			if (Array.isArray(node[key])) queue.push(...(node[key] as unknown[]));
		if (typeof node.$ref === 'string') queue.push(resolvePointer(root, node.$ref));
	}
	return out;
}
