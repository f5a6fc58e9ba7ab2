import type { JsonSchema, Tool } from '../conversation/types';

/**
 * A tool's input schema with an object root that declares its properties, which every vendor
 * requires of a function's parameters (OpenAI: "schema must be a JSON Schema of 'type: \"object\"'"
 * and, for an object without `properties`, "In context=(), object schema missing properties";
 * Anthropic: "input_schema.type: Field required"; Gemini and Ollama read an OBJECT). No schema at
 * all means no arguments; a schema that names no type (`{"$schema": …}` alone, as some servers
 * send) gets type "object", which narrows nothing the arguments could be; `["object", "null"]`
 * becomes "object", since arguments are never null. An object root without `properties` gets an
 * empty map, which narrows nothing either: keys it does not name stay allowed unless
 * `additionalProperties` says otherwise. A root that allows no object cannot be offered at all.
 */
export function objectRootSchema(tool: Pick<Tool, 'name' | 'inputSchema'>): JsonSchema {
	const schema = tool.inputSchema;
	if (!schema || Object.keys(schema).length === 0) return { type: 'object', properties: {} };
	const types = schema.type === undefined ? ['object'] : [schema.type].flat();
	if (!types.includes('object'))
		throw new Error(
			`Tool '${tool.name}' cannot be offered to a model: its input schema has type ${JSON.stringify(schema.type)}, and a tool's arguments are always an object.`,
		);
	if (schema.type === 'object' && schema.properties !== undefined) return schema;
	return { ...schema, type: 'object', properties: schema.properties ?? {} };
}
