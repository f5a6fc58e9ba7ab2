/**
 * Each vendor's rules for tool definitions, written as checks independent of the code that converts
 * schemas: a converted tool that breaks one would be refused by that vendor's API. Sources: the
 * wire-format reference (names, OpenAI strict rules, Gemini's OpenAPI subset), Anthropic's and
 * Ollama's API errors for malformed schemas.
 */
import { isRecord } from '../../lib/json/value';
import { geminiSchemaViolations } from './geminiSchemaRules';

type Json = Record<string, unknown>;

const OPENAI_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const GEMINI_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;
const STRICT_UNSUPPORTED = [
	'oneOf',
	'not',
	'if',
	'then',
	'else',
	'patternProperties',
	'dependentRequired',
	'dependentSchemas',
	'unevaluatedProperties',
	'unevaluatedItems',
	'minProperties',
	'maxProperties',
	'uniqueItems',
	'contains',
];

/** OpenAI strict mode: every object closed with all its properties required, arrays with items, no unsupported keyword. */
export function openaiStrictViolations(schema: unknown, path = '#'): string[] {
	if (!isRecord(schema)) return [];
	const problems = STRICT_UNSUPPORTED.filter((keyword) => keyword in schema).map(
		(keyword) => `${path}: ${keyword} is not allowed`,
	);
	const types = ([] as unknown[]).concat(schema.type ?? []);
	if (types.includes('object') || isRecord(schema.properties)) {
		if (schema.additionalProperties !== false)
			problems.push(`${path}: additionalProperties must be false`);
		const keys = Object.keys(isRecord(schema.properties) ? schema.properties : {});
		const required = Array.isArray(schema.required) ? schema.required : [];
		for (const key of keys)
			if (!required.includes(key)) problems.push(`${path}: property ${key} must be required`);
	}
	if (types.includes('array') && schema.items === undefined)
		problems.push(`${path}: an array needs items`);
	for (const [key, value] of Object.entries(schema)) {
		if (key === 'properties' || key === '$defs' || key === 'definitions') {
			for (const [name, inner] of Object.entries(isRecord(value) ? value : {}))
				problems.push(...openaiStrictViolations(inner, `${path}/${key}/${name}`));
		} else if (key === 'items' || key === 'additionalProperties') {
			problems.push(...openaiStrictViolations(value, `${path}/${key}`));
		} else if (key === 'anyOf' || key === 'allOf') {
			(value as unknown[]).forEach((inner, index) =>
				problems.push(...openaiStrictViolations(inner, `${path}/${key}/${index}`)),
			);
		}
	}
	return problems;
}

function objectRoot(schema: unknown, where: string): string[] {
	return isRecord(schema) && schema.type === 'object'
		? []
		: [`${where}: the root must be {"type":"object"}`];
}

/** Problems with one vendor tool definition; [] when the vendor would accept it. */
export const toolRuleViolations: Record<string, (tool: Json) => string[]> = {
	openaiChat(tool) {
		const fn = tool.function as Json;
		return [
			...(OPENAI_NAME.test(String(fn.name)) ? [] : [`name ${fn.name}`]),
			...objectRoot(fn.parameters, 'parameters'),
			...(fn.strict === true ? openaiStrictViolations(fn.parameters) : []),
		];
	},
	openaiResponses(tool) {
		return [
			...(tool.type === 'function' ? [] : ['type must be function']),
			...(OPENAI_NAME.test(String(tool.name)) ? [] : [`name ${tool.name}`]),
			// Responses treats a tool as strict unless told otherwise.
			...(typeof tool.strict === 'boolean' ? [] : ['strict must be sent']),
			...objectRoot(tool.parameters, 'parameters'),
			...(tool.strict === true ? openaiStrictViolations(tool.parameters) : []),
		];
	},
	anthropic(tool) {
		const schema = tool.input_schema as Json;
		return [
			...(ANTHROPIC_NAME.test(String(tool.name)) ? [] : [`name ${tool.name}`]),
			...objectRoot(schema, 'input_schema'),
			...['oneOf', 'anyOf', 'allOf']
				.filter((keyword) => isRecord(schema) && keyword in schema)
				.map((keyword) => `input_schema: ${keyword} at the top level`),
		];
	},
	gemini(tool) {
		const declaration = tool as Json;
		return [
			...(GEMINI_NAME.test(String(declaration.name)) ? [] : [`name ${declaration.name}`]),
			...('parameters' in declaration && 'parametersJsonSchema' in declaration
				? ['parameters and parametersJsonSchema together']
				: []),
			...(declaration.parameters === undefined
				? []
				: geminiSchemaViolations(declaration.parameters)),
		];
	},
	ollama(tool) {
		const fn = tool.function as Json;
		return [
			...(OPENAI_NAME.test(String(fn.name)) ? [] : [`name ${fn.name}`]),
			...objectRoot(fn.parameters, 'parameters'),
			...ollamaStructViolations(fn.parameters),
		];
	},
};

/** Ollama reads schemas into fixed structs: properties must be schemas (objects), required a list of names. */
function ollamaStructViolations(schema: unknown, path = '#'): string[] {
	if (!isRecord(schema)) return [];
	const problems: string[] = [];
	if (
		schema.required !== undefined &&
		!(Array.isArray(schema.required) && schema.required.every((name) => typeof name === 'string'))
	) {
		problems.push(`${path}: required must be a list of names`);
	}
	if (schema.properties !== undefined) {
		if (!isRecord(schema.properties)) problems.push(`${path}: properties must be an object`);
		for (const [name, inner] of Object.entries(
			isRecord(schema.properties) ? schema.properties : {},
		)) {
			if (!isRecord(inner)) problems.push(`${path}/properties/${name}: must be a schema object`);
			problems.push(...ollamaStructViolations(inner, `${path}/properties/${name}`));
		}
	}
	if (schema.items !== undefined)
		problems.push(...ollamaStructViolations(schema.items, `${path}/items`));
	return problems;
}

/** The tool definitions of a request body, whichever vendor's. */
export function vendorToolsOf(dialect: string, body: Json): Json[] {
	if (dialect === 'gemini')
		return ((body.tools as Json[] | undefined) ?? []).flatMap(
			(group) => group.functionDeclarations as Json[],
		);
	return (body.tools as Json[] | undefined) ?? [];
}
