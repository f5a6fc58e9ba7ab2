/**
 * Each vendor's rules for the tools of a request, written from the vendors' own documents and
 * nothing else (never from the code that converts schemas): a request that breaks one is refused
 * by that vendor's API. Every rule names the document it comes from and what it says there.
 * Used only by tests, which hold every converted request to these rules.
 */
import type { DialectId } from '../../lib/dialects/types';
import { isRecord } from '../../lib/json/value';
import { REQUEST_RULES } from './requestRules';

type Json = Record<string, unknown>;

export interface VendorRule {
	/** What the document says, in its own words where they are short. */
	says: string;
	/** The document. */
	see: string;
	/** What breaks the rule in a request body; [] when it obeys. */
	check(body: Json): string[];
}

const isCount = (value: unknown) =>
	(Number.isInteger(value) && (value as number) >= 0) ||
	(typeof value === 'string' && /^\d+$/.test(value));
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const CHAT_TOOLS = 'https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools';
const RESPONSES_TOOLS =
	'https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools';
const STRICT_SCHEMAS =
	'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas';
const AZURE_STRICT =
	'https://learn.microsoft.com/azure/ai-foundry/openai/how-to/structured-outputs#supported-schemas-and-limitations';
const ANTHROPIC_TOOLS = 'https://docs.anthropic.com/en/api/messages#body-tools';
const GEMINI_DECLARATION = 'https://ai.google.dev/api/caching#FunctionDeclaration';
const GEMINI_SCHEMA = 'https://ai.google.dev/api/caching#Schema';
const OLLAMA_TYPES = 'https://github.com/ollama/ollama/blob/main/api/types.go';

/** The function definitions of a request, each as `{name, description, schema, strict}`, whichever vendor's. */
export function functionsOf(dialect: DialectId, body: Json): Json[] {
	const tools = list(body.tools).filter(isRecord);
	switch (dialect) {
		case 'openaiChat':
		case 'ollama':
			return tools.map((tool) => {
				const fn = isRecord(tool.function) ? tool.function : {};
				return { ...fn, schema: fn.parameters };
			});
		case 'openaiResponses':
			return tools.map((tool) => ({ ...tool, schema: tool.parameters }));
		case 'anthropic':
			return tools.map((tool) => ({ ...tool, schema: tool.input_schema }));
		case 'gemini':
			return tools
				.flatMap((tool) => list(tool.functionDeclarations).filter(isRecord))
				.map((declaration) => ({ ...declaration, schema: declaration.parameters }));
	}
}

/** A rule over each function of the request; problems are prefixed with the function's name. */
function eachFunction(dialect: DialectId, check: (fn: Json) => string[]) {
	return (body: Json) =>
		functionsOf(dialect, body).flatMap((fn) =>
			check(fn).map((problem) => `${String(fn.name)}: ${problem}`),
		);
}

function nameRule(dialect: DialectId, pattern: RegExp, says: string, see: string): VendorRule {
	return {
		says,
		see,
		check: eachFunction(dialect, (fn) =>
			pattern.test(String(fn.name)) ? [] : [`name ${JSON.stringify(fn.name)}`],
		),
	};
}

/**
 * OpenAI answers 400 "Invalid schema for function '…': In context=(), object schema missing
 * properties" for a root object without `properties` (strict or not), as MCP servers send for
 * tools without arguments (spring-ai #4776, kubernetes-mcp-server #340, fast-agent #143).
 */
function propertiesRule(dialect: DialectId, see: string): VendorRule {
	return {
		says: 'An object schema must declare properties: "In context=(), object schema missing properties".',
		see,
		check: eachFunction(dialect, (fn) =>
			isRecord(fn.schema) && fn.schema.type === 'object' && !isRecord(fn.schema.properties)
				? ['object schema missing properties']
				: [],
		),
	};
}

function objectRootRule(dialect: DialectId, says: string, see: string): VendorRule {
	return {
		says,
		see,
		check: eachFunction(dialect, (fn) =>
			isRecord(fn.schema) && fn.schema.type === 'object' ? [] : ['the schema is not type "object"'],
		),
	};
}

// --- OpenAI strict mode (Chat Completions and Responses alike) ---

/** The keywords strict mode supports, by the guide's list; annotations only describe and are allowed beside them. */
const STRICT_KEYWORDS = new Set([
	'type',
	'properties',
	'required',
	'additionalProperties',
	'items',
	'enum',
	'const',
	'anyOf',
	'$ref',
	'$defs',
	'definitions',
	'pattern',
	'format',
	'multipleOf',
	'maximum',
	'exclusiveMaximum',
	'minimum',
	'exclusiveMinimum',
	'minItems',
	'maxItems',
]);
const ANNOTATIONS = new Set([
	'description',
	'title',
	'$schema',
	'$id',
	'$comment',
	'examples',
	'deprecated',
	'readOnly',
	'writeOnly',
	'default',
]);
const STRICT_FORMATS = 'date-time time date duration email hostname ipv4 ipv6 uuid'.split(' ');

/** Each subschema of a JSON Schema with its path. */
function* subschemas(schema: unknown, path = '#'): Generator<[Json, string]> {
	if (!isRecord(schema)) return;
	yield [schema, path];
	for (const key of ['properties', '$defs', 'definitions'])
		if (isRecord(schema[key]))
			for (const [name, inner] of Object.entries(schema[key]))
				yield* subschemas(inner, `${path}/${key}/${name}`);
	for (const key of ['items', 'additionalProperties'])
		yield* subschemas(schema[key], `${path}/${key}`);
	for (const [i, inner] of list(schema.anyOf).entries())
		yield* subschemas(inner, `${path}/anyOf/${i}`);
}

const strictOnly = (check: (schema: Json) => string[]) => (fn: Json) =>
	fn.strict === true && isRecord(fn.schema) ? check(fn.schema) : [];

function strictRules(dialect: DialectId): VendorRule[] {
	const rule = (says: string, see: string, check: (schema: Json) => string[]): VendorRule => ({
		says,
		see,
		check: eachFunction(dialect, strictOnly(check)),
	});
	const everyNode = (problem: (node: Json) => string | undefined) => (schema: Json) =>
		[...subschemas(schema)].flatMap(([node, path]) => {
			const found = problem(node);
			return found ? [`${path}: ${found}`] : [];
		});
	const types = (node: Json) => [node.type].flat();
	return [
		rule('Root objects must not be anyOf and must be an object.', STRICT_SCHEMAS, (schema) =>
			schema.type === 'object' && !('anyOf' in schema) ? [] : ['root'],
		),
		rule(
			'additionalProperties: false must always be set in objects.',
			STRICT_SCHEMAS,
			everyNode((node) =>
				types(node).includes('object') && node.additionalProperties !== false
					? 'additionalProperties is not false'
					: undefined,
			),
		),
		rule(
			'All fields or function parameters must be specified as required.',
			STRICT_SCHEMAS,
			everyNode((node) => {
				const required = list(node.required);
				const missing = Object.keys(isRecord(node.properties) ? node.properties : {}).filter(
					(key) => !required.includes(key),
				);
				return missing.length > 0 ? `not required: ${missing.join(', ')}` : undefined;
			}),
		),
		rule(
			'Supported properties: for strings pattern and format; for numbers multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum; for arrays minItems, maxItems; anyOf for composition (allOf, not, if/then/else, dependentRequired, dependentSchemas are not supported).',
			STRICT_SCHEMAS,
			everyNode((node) => {
				const unsupported = Object.keys(node).filter(
					(key) => !STRICT_KEYWORDS.has(key) && !ANNOTATIONS.has(key) && !key.startsWith('x-'),
				);
				return unsupported.length > 0 ? `not supported: ${unsupported.join(', ')}` : undefined;
			}),
		),
		rule(
			'Supported string formats: date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid.',
			STRICT_SCHEMAS,
			everyNode((node) =>
				node.format !== undefined && !STRICT_FORMATS.includes(String(node.format))
					? `format ${JSON.stringify(node.format)}`
					: undefined,
			),
		),
		rule(
			'Azure OpenAI refuses a non-null default in a strict schema (api.openai.com accepts it).',
			AZURE_STRICT,
			everyNode((node) =>
				node.default !== undefined && node.default !== null ? 'default is set' : undefined,
			),
		),
	];
}

// --- Gemini's Schema object ---

const GEMINI_FIELDS = new Set([
	'type',
	'format',
	'title',
	'description',
	'nullable',
	'enum',
	'maxItems',
	'minItems',
	'properties',
	'required',
	'minProperties',
	'maxProperties',
	'minLength',
	'maxLength',
	'pattern',
	'example',
	'anyOf',
	'propertyOrdering',
	'default',
	'items',
	'minimum',
	'maximum',
]);
const GEMINI_TYPES = [
	'TYPE_UNSPECIFIED',
	'STRING',
	'NUMBER',
	'INTEGER',
	'BOOLEAN',
	'ARRAY',
	'OBJECT',
	'NULL',
];
const GEMINI_FORMATS: Record<string, string[]> = {
	NUMBER: ['float', 'double'],
	INTEGER: ['int32', 'int64'],
	STRING: ['enum', 'date-time'],
};

/** Breaches of the Schema object's documented fields, types and formats. */
export function geminiSchemaProblems(node: unknown, path = '#'): string[] {
	if (!isRecord(node)) return [`${path}: not a Schema object`];
	const at = (problem: string) => `${path}: ${problem}`;
	const problems = Object.keys(node)
		.filter((key) => !GEMINI_FIELDS.has(key))
		.map((key) => at(`${key} is not a Schema field`));
	const type = node.type;
	if (type !== undefined && !GEMINI_TYPES.includes(type as string))
		problems.push(at(`type ${JSON.stringify(type)}`));
	if (
		node.format !== undefined &&
		!(GEMINI_FORMATS[type as string] ?? []).includes(node.format as string)
	)
		problems.push(at(`format ${JSON.stringify(node.format)} for type ${String(type)}`));
	if (node.enum !== undefined && !list(node.enum).every((value) => typeof value === 'string'))
		problems.push(at('enum holds a value that is not a string'));
	if (node.enum !== undefined && type !== 'STRING')
		problems.push(at(`enum for type ${String(type)}`));
	if (type === 'ARRAY' && node.items === undefined) problems.push(at('ARRAY without items'));
	for (const key of [
		'minItems',
		'maxItems',
		'minLength',
		'maxLength',
		'minProperties',
		'maxProperties',
	])
		if (node[key] !== undefined && !isCount(node[key])) problems.push(at(`${key} is not a count`));
	for (const key of ['minimum', 'maximum'])
		if (node[key] !== undefined && typeof node[key] !== 'number')
			problems.push(at(`${key} is not a number`));
	if (node.pattern !== undefined && typeof node.pattern !== 'string')
		problems.push(at('pattern is not a string'));
	if (node.nullable !== undefined && typeof node.nullable !== 'boolean')
		problems.push(at('nullable is not a boolean'));
	if (node.description !== undefined && typeof node.description !== 'string')
		problems.push(at('description is not a string'));
	const properties = isRecord(node.properties) ? node.properties : {};
	if (node.properties !== undefined && !isRecord(node.properties))
		problems.push(at('properties is not a map'));
	else if (node.properties !== undefined && Object.keys(properties).length === 0)
		problems.push(at('properties: should be non-empty for OBJECT type'));
	const undeclared = list(node.required).filter((name) => !Object.hasOwn(properties, String(name)));
	if (node.required !== undefined && (!Array.isArray(node.required) || undeclared.length > 0))
		problems.push(
			at(`required names ${JSON.stringify(undeclared)}, which properties does not declare`),
		);
	for (const [name, inner] of Object.entries(properties))
		problems.push(...geminiSchemaProblems(inner, `${path}/properties/${name}`));
	if (node.items !== undefined) problems.push(...geminiSchemaProblems(node.items, `${path}/items`));
	if (node.anyOf !== undefined && (!Array.isArray(node.anyOf) || node.anyOf.length === 0))
		problems.push(at('anyOf is not a list of Schemas'));
	list(node.anyOf).forEach((inner, i) =>
		problems.push(...geminiSchemaProblems(inner, `${path}/anyOf/${i}`)),
	);
	return problems;
}

// --- Ollama's tool structs ---

const isStringList = (value: unknown) =>
	Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Ollama decodes parameters into Go structs; a field holding another JSON type fails the whole request. */
function ollamaStructProblems(node: unknown, path: string, root: boolean): string[] {
	if (!isRecord(node)) return [`${path}: not an object`];
	const at = (problem: string) => `${path}: ${problem}`;
	const problems: string[] = [];
	const typeOk = root
		? node.type === undefined || typeof node.type === 'string'
		: node.type === undefined || typeof node.type === 'string' || isStringList(node.type);
	if (!typeOk) problems.push(at('type'));
	if (node.required !== undefined && !isStringList(node.required)) problems.push(at('required'));
	if (!root && node.description !== undefined && typeof node.description !== 'string')
		problems.push(at('description'));
	if (!root && node.enum !== undefined && !Array.isArray(node.enum)) problems.push(at('enum'));
	if (!root && node.anyOf !== undefined) {
		if (!Array.isArray(node.anyOf)) problems.push(at('anyOf'));
		else
			node.anyOf.forEach((inner, i) =>
				problems.push(...ollamaStructProblems(inner, `${path}/anyOf/${i}`, false)),
			);
	}
	if (node.properties !== undefined) {
		if (!isRecord(node.properties)) problems.push(at('properties'));
		else
			for (const [name, inner] of Object.entries(node.properties))
				problems.push(...ollamaStructProblems(inner, `${path}/properties/${name}`, false));
	}
	return problems;
}

export const VENDOR_RULES: Record<DialectId, VendorRule[]> = {
	openaiChat: [
		{
			says: 'A list of tools the model may call. A max of 128 functions are supported.',
			see: CHAT_TOOLS,
			check: (body) => {
				const count = list(body.tools).length;
				return count > 128 ? [`${count} tools`] : [];
			},
		},
		nameRule(
			'openaiChat',
			/^[A-Za-z0-9_-]{1,64}$/,
			'The name of the function: a-z, A-Z, 0-9, underscores and dashes, with a maximum length of 64.',
			CHAT_TOOLS,
		),
		objectRootRule(
			'openaiChat',
			'parameters: the arguments described as a JSON Schema object; the API refuses a schema whose type is not "object".',
			CHAT_TOOLS,
		),
		propertiesRule('openaiChat', CHAT_TOOLS),
		...strictRules('openaiChat'),
	],
	openaiResponses: [
		nameRule(
			'openaiResponses',
			/^[A-Za-z0-9_-]{1,64}$/,
			'The name of the function: a-z, A-Z, 0-9, underscores and dashes, with a maximum length of 64.',
			RESPONSES_TOOLS,
		),
		{
			says: 'strict: whether to enforce strict parameter validation, true by default; a schema never made strict must say false.',
			see: RESPONSES_TOOLS,
			check: eachFunction('openaiResponses', (fn) =>
				typeof fn.strict === 'boolean' ? [] : ['strict is not sent'],
			),
		},
		objectRootRule(
			'openaiResponses',
			'parameters: a JSON Schema object describing the parameters of the function; its type must be "object".',
			RESPONSES_TOOLS,
		),
		propertiesRule('openaiResponses', RESPONSES_TOOLS),
		...strictRules('openaiResponses'),
	],
	anthropic: [
		nameRule(
			'anthropic',
			/^[a-zA-Z0-9_-]{1,64}$/,
			'name: must match ^[a-zA-Z0-9_-]{1,64}$.',
			ANTHROPIC_TOOLS,
		),
		objectRootRule(
			'anthropic',
			'input_schema: a JSON Schema object with type "object" (required).',
			ANTHROPIC_TOOLS,
		),
		{
			says: 'input_schema does not support oneOf, allOf, or anyOf at the top level (the API answers 400).',
			see: ANTHROPIC_TOOLS,
			check: eachFunction('anthropic', (fn) =>
				['oneOf', 'anyOf', 'allOf']
					.filter((keyword) => isRecord(fn.schema) && keyword in fn.schema)
					.map((keyword) => `${keyword} at the top level`),
			),
		},
	],
	gemini: [
		nameRule(
			'gemini',
			/^[A-Za-z0-9_.:-]{1,64}$/,
			'name: must be a-z, A-Z, 0-9, or contain underscores, colons, dots, and dashes, with a maximum length of 64.',
			GEMINI_DECLARATION,
		),
		{
			says: 'parametersJsonSchema: mutually exclusive with parameters.',
			see: GEMINI_DECLARATION,
			check: eachFunction('gemini', (fn) =>
				'parameters' in fn && 'parametersJsonSchema' in fn ? ['both parameter fields'] : [],
			),
		},
		{
			says: 'parameters: a Schema object of type OBJECT (the arguments are an object).',
			see: GEMINI_DECLARATION,
			check: eachFunction('gemini', (fn) =>
				fn.parameters === undefined || (isRecord(fn.parameters) && fn.parameters.type === 'OBJECT')
					? []
					: ['parameters are not type OBJECT'],
			),
		},
		{
			says: 'Schema: only its documented fields (type, format, title, description, nullable, enum, maxItems, minItems, properties, required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf, propertyOrdering, default, items, minimum, maximum); format for NUMBER float or double, for INTEGER int32 or int64, for STRING enum or date-time; enum: possible values of a Type.STRING, as strings; required names among the properties; an ARRAY has items.',
			see: GEMINI_SCHEMA,
			check: eachFunction('gemini', (fn) =>
				fn.parameters === undefined ? [] : geminiSchemaProblems(fn.parameters),
			),
		},
	],
	ollama: [
		{
			says: 'A tool is {type: "function", function: {name, description, parameters}}; no rule for names is documented beyond being a string.',
			see: OLLAMA_TYPES,
			check: eachFunction('ollama', (fn) =>
				typeof fn.name === 'string' && fn.name !== '' ? [] : ['no name'],
			),
		},
		objectRootRule(
			'ollama',
			'ToolFunctionParameters: type "object" with properties and required.',
			OLLAMA_TYPES,
		),
		{
			says: 'parameters decode into ToolFunctionParameters {type string, $defs, items, required []string, properties map of ToolProperty}; ToolProperty {anyOf []ToolProperty, type string or []string, items, description string, enum []any, properties, required []string}: a field of another JSON type fails the request.',
			see: OLLAMA_TYPES,
			check: eachFunction('ollama', (fn) => ollamaStructProblems(fn.schema, '#', true)),
		},
	],
};

/** Every rule a request body breaks (its tools', and those of ./requestRules.ts), each named by what the rule says. */
export function ruleViolations(dialect: DialectId, body: Json): string[] {
	return [...VENDOR_RULES[dialect], ...REQUEST_RULES[dialect]].flatMap((rule) =>
		rule.check(body).map((problem) => `${problem} [${rule.see}]`),
	);
}
