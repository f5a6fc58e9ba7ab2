import type { JsonSchema } from '../../conversation/types';
import { isRecord } from '../../json/value';
import { inlineLocalRefs } from '../../schema/refs';
import { describeUnexpressed, ONE_OF_NOTE } from '../../schema/unexpressed';

const isStringList = (value: unknown): value is string[] =>
	Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Keywords that only describe: left out with nothing to tell, as Ollama leaves them out. */
const ANNOTATIONS = new Set([
	'title',
	'default',
	'examples',
	'example',
	'$comment',
	'deprecated',
	'readOnly',
	'writeOnly',
	'$schema',
	'$id',
]);

export interface OllamaParameters {
	parameters: JsonSchema;
	/** What the root holds that Ollama does not read, for the function's description. */
	unexpressed: Record<string, unknown>;
}

/**
 * A tool's parameters as Ollama reads them. Ollama decodes schemas into fixed Go structs
 * (ToolFunctionParameters at the root: type, $defs, items, required, properties; ToolProperty below:
 * anyOf, type, items, description, enum, properties, required), and only those fields reach the
 * model. So references are inlined, `const` becomes an enum of one, `oneOf` becomes anyOf, and
 * every other keyword is told in the description instead of being lost. A field holding another
 * JSON type (a boolean property schema, `required` as an object, `properties: []`) would fail the
 * whole request with HTTP 400 naming no tool, so such values are left out.
 * @see https://github.com/ollama/ollama/blob/main/api/types.go
 */
export function toOllamaSchema(schema: JsonSchema): OllamaParameters {
	const inlined = inlineLocalRefs(schema);
	const parameters: JsonSchema = {};
	const unexpressed: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(inlined)) {
		if (key === 'type') {
			if (typeof value === 'string') parameters.type = value;
		} else if (key === 'required') {
			if (isStringList(value)) parameters.required = value;
		} else if (key === 'properties') {
			if (isRecord(value)) parameters.properties = fitProperties(value);
		} else if (narrows(key, value)) {
			unexpressed[key] = value;
		}
	}
	closeWithoutProperties(inlined, parameters);
	return { parameters, unexpressed };
}

function fitProperties(properties: Record<string, unknown>): Record<string, JsonSchema> {
	return Object.fromEntries(
		Object.entries(properties).flatMap(([name, schema]) =>
			subschema(schema).map((fitted) => [name, fitted]),
		),
	);
}

/** A subschema as a list of zero or one: `true` allows anything, `false` nothing, so it is left out. */
function subschema(value: unknown): JsonSchema[] {
	if (value === true) return [{}];
	return isRecord(value) ? [fitProperty(value)] : [];
}

function fitProperty(schema: Record<string, unknown>): JsonSchema {
	const fitted: JsonSchema = {};
	const unexpressed: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		if (key === 'type') {
			if (typeof value === 'string' || isStringList(value)) fitted.type = value;
		} else if (key === 'required') {
			if (isStringList(value)) fitted.required = value;
		} else if (key === 'enum') {
			if (Array.isArray(value)) fitted.enum = value;
		} else if (key === 'properties') {
			if (isRecord(value)) fitted.properties = fitProperties(value);
		} else if (key === 'anyOf' || (key === 'oneOf' && schema.anyOf === undefined)) {
			if (Array.isArray(value)) fitted.anyOf = value.flatMap(subschema);
			if (key === 'oneOf') unexpressed.oneOf = ONE_OF_NOTE;
		} else if (key === 'const' && schema.enum === undefined) {
			fitted.enum = [value];
		} else if (key === 'items') {
			// Free-form in Ollama's struct: it reaches the model whole.
			fitted.items = value;
		} else if (narrows(key, value)) {
			unexpressed[key] = value;
		}
	}
	closeWithoutProperties(schema, fitted);
	const own = typeof schema.description === 'string' ? schema.description : undefined;
	const description = describeUnexpressed(own, unexpressed);
	if (description !== undefined) fitted.description = description;
	return fitted;
}

/**
 * Whether a keyword narrows the values and must be told. Annotations only describe; and
 * `additionalProperties` as a boolean only opens or closes an object whose properties the model
 * is shown (closeWithoutProperties covers the one object it changes).
 */
function narrows(key: string, value: unknown): boolean {
	if (key === 'description' || ANNOTATIONS.has(key) || key.startsWith('x-')) return false;
	return key !== 'additionalProperties' || (isRecord(value) && Object.keys(value).length > 0);
}

/** An object that allows no properties at all is sent with an empty properties map, or Ollama reads an object of any keys. */
function closeWithoutProperties(schema: Record<string, unknown>, fitted: JsonSchema): void {
	if (schema.additionalProperties === false && fitted.properties === undefined)
		fitted.properties = {};
}
