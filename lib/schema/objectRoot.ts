import type { JsonSchema, Tool } from '../conversation/types';

/**
 * A tool's input schema with an object root, which every vendor requires of a function's
 * parameters (OpenAI: "schema must be a JSON Schema of 'type: \"object\"'", Anthropic:
 * "input_schema.type: Field required", Gemini and Ollama read an OBJECT). No schema at all means
 * no arguments; a schema that names no type (`{"$schema": …}` alone, as some servers send) gets
 * type "object", which narrows nothing the arguments could be; `["object", "null"]` becomes
 * "object", since arguments are never null. A root that allows no object cannot be offered at all.
 */
export function objectRootSchema(tool: Pick<Tool, 'name' | 'inputSchema'>): JsonSchema {
	const schema = tool.inputSchema;
	if (!schema || Object.keys(schema).length === 0) return { type: 'object', properties: {} };
	if (schema.type === 'object') return schema;
	const types = schema.type === undefined ? ['object'] : [schema.type].flat();
	if (!types.includes('object'))
		throw new Error(
			`Tool '${tool.name}' cannot be offered to a model: its input schema has type ${JSON.stringify(schema.type)}, and a tool's arguments are always an object.`,
		);
	return { ...schema, type: 'object' };
}
