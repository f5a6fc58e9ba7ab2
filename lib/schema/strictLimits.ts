import type { JsonSchema } from '../conversation/types';
import { isRecord } from '../json/value';
import { DEFINITIONS } from './keywords';

/**
 * OpenAI's limits on one strict schema (structured outputs, "supported schemas"): a schema past
 * them is refused, and with it the whole request.
 */
const MAX_PROPERTIES = 5_000;
const MAX_OBJECT_DEPTH = 10;
const MAX_ENUM_VALUES = 1_000;
/** Property names, definition names, and string enum and const values, together. */
const MAX_NAME_CHARACTERS = 120_000;
/** A string enum of more than LARGE_ENUM values may be this long in all. */
const LARGE_ENUM = 250;
const MAX_LARGE_ENUM_CHARACTERS = 15_000;

interface Size {
	properties: number;
	depth: number;
	enumValues: number;
	names: number;
	largestEnum: number;
}

/** Why a strict schema is past OpenAI's limits, or undefined when it is within them. */
export function pastStrictLimits(schema: JsonSchema): string | undefined {
	const size: Size = { properties: 0, depth: 0, enumValues: 0, names: 0, largestEnum: 0 };
	measure(schema, 0, size);
	if (size.properties > MAX_PROPERTIES)
		return `${size.properties} object properties, more than the ${MAX_PROPERTIES} strict mode takes`;
	if (size.depth > MAX_OBJECT_DEPTH)
		return `objects nested ${size.depth} levels deep, more than the ${MAX_OBJECT_DEPTH} strict mode takes`;
	if (size.enumValues > MAX_ENUM_VALUES)
		return `${size.enumValues} enum values, more than the ${MAX_ENUM_VALUES} strict mode takes`;
	if (size.names > MAX_NAME_CHARACTERS)
		return `names and enum values of ${size.names} characters, more than the ${MAX_NAME_CHARACTERS} strict mode takes`;
	if (size.largestEnum > MAX_LARGE_ENUM_CHARACTERS)
		return `an enum of more than ${LARGE_ENUM} values with ${size.largestEnum} characters, more than the ${MAX_LARGE_ENUM_CHARACTERS} strict mode takes`;
	return undefined;
}

/** Adds up a converted strict schema: only properties, items, anyOf and definitions hold schemas. */
function measure(node: unknown, depth: number, size: Size): void {
	if (!isRecord(node)) return;
	const { properties, items, anyOf, enum: values, const: constant } = node;
	const level = isRecord(properties) ? depth + 1 : depth;
	size.depth = Math.max(size.depth, level);
	if (typeof constant === 'string') size.names += constant.length;
	if (Array.isArray(values)) {
		const strings = values.filter((value): value is string => typeof value === 'string');
		const characters = strings.reduce((sum, value) => sum + value.length, 0);
		size.enumValues += values.length;
		size.names += characters;
		if (strings.length > LARGE_ENUM) size.largestEnum = Math.max(size.largestEnum, characters);
	}
	if (isRecord(properties)) {
		for (const [name, schema] of Object.entries(properties)) {
			size.properties++;
			size.names += name.length;
			measure(schema, level, size);
		}
	}
	measure(items, depth, size);
	if (Array.isArray(anyOf)) for (const branch of anyOf) measure(branch, depth, size);
	for (const key of DEFINITIONS) {
		const definitions = node[key];
		if (!isRecord(definitions)) continue;
		for (const [name, schema] of Object.entries(definitions)) {
			size.names += name.length;
			measure(schema, 0, size);
		}
	}
}
