/**
 * The rules a Schema sent as Gemini's `parameters` must obey, after the Schema reference of the
 * Gemini API (an OpenAPI 3.0 subset): written as a check of its own, apart from the converter in
 * lib/schema/gemini.ts, so that tests can hold every converted schema to them.
 */
import { isRecord } from '../../lib/json/value';
import type { GeminiType } from '../../lib/schema/gemini';

const TYPES: GeminiType[] = ['OBJECT', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY'];

const FORMATS: Partial<Record<GeminiType, string[]>> = {
	STRING: ['enum', 'date-time'],
	NUMBER: ['float', 'double'],
	INTEGER: ['int32', 'int64'],
};

/** The keywords Gemini reads, and the types each belongs to (undefined: any type). */
const KEYWORDS: Record<string, GeminiType[] | undefined> = {
	type: undefined,
	description: undefined,
	nullable: undefined,
	anyOf: undefined,
	format: ['STRING', 'NUMBER', 'INTEGER'],
	enum: ['STRING'],
	pattern: ['STRING'],
	minLength: ['STRING'],
	maxLength: ['STRING'],
	properties: ['OBJECT'],
	required: ['OBJECT'],
	minProperties: ['OBJECT'],
	maxProperties: ['OBJECT'],
	items: ['ARRAY'],
	minItems: ['ARRAY'],
	maxItems: ['ARRAY'],
	minimum: ['NUMBER', 'INTEGER'],
	maximum: ['NUMBER', 'INTEGER'],
};

/** One message per breach of the rules; none when the schema obeys them. */
export function geminiSchemaViolations(schema: unknown): string[] {
	const violations: string[] = [];
	if (!isRecord(schema) || schema.type !== 'OBJECT')
		violations.push('/: parameters must be type OBJECT');
	check(schema, '', violations);
	return violations;
}

function check(node: unknown, path: string, violations: string[]): void {
	const at = path || '/';
	const fail = (what: string) => violations.push(`${at}: ${what}`);
	if (!isRecord(node)) {
		fail('not a schema object');
		return;
	}
	const type = node.type as GeminiType | undefined;
	if (type !== undefined && !TYPES.includes(type))
		fail(`type ${JSON.stringify(type)} is not a Gemini type`);
	for (const key of Object.keys(node)) {
		if (!Object.hasOwn(KEYWORDS, key)) fail(`${key} is not a Gemini Schema keyword`);
		else if (KEYWORDS[key] && !KEYWORDS[key].includes(type!))
			fail(`${key} needs type ${KEYWORDS[key].join(' or ')}`);
	}
	if (type !== undefined && node.anyOf !== undefined) fail('type and anyOf together');
	if (type === 'ARRAY' && node.items === undefined) fail('ARRAY without items');
	if (node.format !== undefined && !FORMATS[type!]?.includes(node.format as string)) {
		fail(`format ${JSON.stringify(node.format)} is not allowed for ${type}`);
	}
	if (
		node.enum !== undefined &&
		!(
			Array.isArray(node.enum) &&
			node.enum.length > 0 &&
			node.enum.every((value) => typeof value === 'string')
		)
	) {
		fail('enum must be a non-empty list of strings');
	}
	if (node.description !== undefined && typeof node.description !== 'string')
		fail('description must be a string');
	if (node.nullable !== undefined && typeof node.nullable !== 'boolean')
		fail('nullable must be a boolean');
	for (const key of ['minItems', 'maxItems'] as const)
		if (node[key] !== undefined && !isCount(node[key])) fail(`${key} must be a count`);
	for (const key of ['minimum', 'maximum'] as const)
		if (node[key] !== undefined && !isFiniteNumber(node[key])) fail(`${key} must be a number`);
	const properties = node.properties;
	if (properties !== undefined && !isRecord(properties)) fail('properties must be an object');
	if (node.required !== undefined) {
		const names = isRecord(properties) ? Object.keys(properties) : [];
		const required = Array.isArray(node.required) ? node.required : [null];
		const missing = required.filter((name) => typeof name !== 'string' || !names.includes(name));
		if (missing.length > 0)
			fail(`required names ${JSON.stringify(missing)}, which properties does not declare`);
	}
	if (isRecord(properties))
		for (const [name, value] of Object.entries(properties))
			check(value, `${path}/properties/${name}`, violations);
	if (node.items !== undefined) check(node.items, `${path}/items`, violations);
	if (node.anyOf !== undefined) {
		if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
			fail('anyOf must be a non-empty list');
		else node.anyOf.forEach((branch, i) => check(branch, `${path}/anyOf/${i}`, violations));
	}
}

function isCount(value: unknown): boolean {
	return Number.isInteger(value) && (value as number) >= 0;
}

function isFiniteNumber(value: unknown): boolean {
	return typeof value === 'number' && Number.isFinite(value);
}
