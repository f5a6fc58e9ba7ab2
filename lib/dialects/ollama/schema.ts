import type { JsonSchema } from '../../conversation/types';
import { isRecord } from '../../json/value';

type Fit = (value: unknown) => unknown;

const isStringList = (value: unknown): value is string[] =>
	Array.isArray(value) && value.every((item) => typeof item === 'string');
const keepIf =
	(test: (value: unknown) => boolean): Fit =>
	(value) =>
		test(value) ? value : undefined;

/** A subschema as a list of zero or one: `true` allows anything, `false` nothing, so it is left out. */
function subschema(value: unknown): JsonSchema[] {
	if (value === true) return [{}];
	return isRecord(value) ? [fit(value, PROPERTY)] : [];
}

const properties: Fit = (value) =>
	isRecord(value)
		? Object.fromEntries(
				Object.entries(value).flatMap(([name, schema]) =>
					subschema(schema).map((fitted) => [name, fitted]),
				),
			)
		: undefined;

/** The keywords Ollama decodes into typed fields (api/types.go ToolFunctionParameters), with the values it can read. */
const PARAMETERS: Record<string, Fit> = {
	type: keepIf((value) => typeof value === 'string'),
	required: keepIf(isStringList),
	properties,
};

/** The same for each property (api/types.go ToolProperty); `items` and `$defs` are free-form there. */
const PROPERTY: Record<string, Fit> = {
	...PARAMETERS,
	type: keepIf((value) => typeof value === 'string' || isStringList(value)),
	description: keepIf((value) => typeof value === 'string'),
	enum: keepIf(Array.isArray),
	anyOf: (value) => (Array.isArray(value) ? value.flatMap(subschema) : undefined),
};

function fit(schema: Record<string, unknown>, keywords: Record<string, Fit>): JsonSchema {
	const fitted: JsonSchema = {};
	for (const [key, value] of Object.entries(schema)) {
		const kept = Object.hasOwn(keywords, key) ? keywords[key](value) : value;
		if (kept !== undefined) fitted[key] = kept;
	}
	return fitted;
}

/**
 * A tool's parameters as Ollama can read them. Ollama decodes schemas into fixed Go structs, so a
 * keyword it knows holding another JSON type (a boolean property schema, `required` as an object,
 * `properties: []`) fails the whole request with HTTP 400 naming no tool. Such values are left out,
 * as Ollama itself leaves out every keyword it does not know; everything else is sent as it is.
 */
export function toOllamaSchema(schema: JsonSchema): JsonSchema {
	return fit(schema, PARAMETERS);
}
