/**
 * Schema translation on a corpus of real tool schemas: the tools/list of three MCP servers from
 * npm (test/fixtures/tool-schemas/, recorded by scripts/record-tool-schemas.mjs). For every tool
 * and every dialect, the converted definition obeys that vendor's rules, and the executor still
 * checks arguments against the ORIGINAL schema, which no conversion may change.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '../../lib/conversation/types';
import { DIALECTS } from '../../lib/dialects/registry';
import type { ModelSettings } from '../../lib/dialects/types';
import { SchemaValidator } from '../../lib/schema/validator';
import { toolRuleViolations, vendorToolsOf } from '../support/vendorRules';

const folder = join(__dirname, '..', 'fixtures', 'tool-schemas');
const corpus = readdirSync(folder).map(
	(file) =>
		JSON.parse(readFileSync(join(folder, file), 'utf8')) as { server: string; tools: Tool[] },
);
const tools = corpus.flatMap(({ server, tools: listed }) =>
	listed.map((tool) => ({ server, tool })),
);

function deepFreeze<T>(value: T): T {
	if (typeof value === 'object' && value !== null) {
		Object.values(value).forEach(deepFreeze);
		Object.freeze(value);
	}
	return value;
}

/** Arguments that satisfy a schema: required properties only, each from its enum, default or type. */
function sampleFor(schema: Record<string, unknown>): unknown {
	if (Array.isArray(schema.enum)) return schema.enum[0];
	if (schema.default !== undefined) return schema.default;
	const options = (schema.anyOf ?? schema.oneOf) as Array<Record<string, unknown>> | undefined;
	if (options) return sampleFor(options.find((option) => option.type !== 'null') ?? options[0]);
	const type = Array.isArray(schema.type)
		? schema.type.find((candidate) => candidate !== 'null')
		: schema.type;
	switch (type) {
		case 'string':
			return 'sample';
		case 'number':
		case 'integer':
			return typeof schema.minimum === 'number' ? schema.minimum : 1;
		case 'boolean':
			return true;
		case 'array':
			return Array.from({ length: Number(schema.minItems ?? 0) }, () =>
				sampleFor((schema.items ?? {}) as Record<string, unknown>),
			);
		default: {
			const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
			const required = (schema.required ?? []) as string[];
			return Object.fromEntries(required.map((name) => [name, sampleFor(properties[name] ?? {})]));
		}
	}
}

const settings: ModelSettings[] = [
	{ model: 'gemini-2.5-flash', toolChoice: 'auto', stream: false },
	{ model: 'gemini-2.5-flash', toolChoice: 'auto', stream: false, strict: true },
];

it('holds the tools of three real servers', () => {
	expect(corpus.map((entry) => [entry.server, entry.tools.length > 5])).toEqual([
		['@modelcontextprotocol/server-everything', true],
		['@modelcontextprotocol/server-filesystem', true],
		['@modelcontextprotocol/server-github', true],
	]);
});

describe.each(Object.keys(DIALECTS))('%s', (dialectId) => {
	const dialect = DIALECTS[dialectId as keyof typeof DIALECTS];

	it.each(tools.map(({ server, tool }) => [`${server.split('/')[1]} ${tool.name}`, tool]))(
		'%s obeys the vendor rules, strict or not',
		(_label, tool) => {
			const original = deepFreeze(structuredClone(tool as Tool));
			for (const setting of settings) {
				const { body } = dialect.buildRequest(
					{ messages: [{ role: 'user', content: 'x' }], tools: [original] },
					setting,
				);
				const [definition] = vendorToolsOf(dialectId, body as Record<string, unknown>);
				expect(toolRuleViolations[dialectId](definition)).toEqual([]);
			}
		},
	);
});

it('sends most corpus tools strict where OpenAI strict mode is asked for, so the strict checks have work to do', () => {
	const { body } = DIALECTS.openaiChat.buildRequest(
		{ messages: [{ role: 'user', content: 'x' }], tools: tools.map(({ tool }) => tool) },
		settings[1],
	);
	const strict = vendorToolsOf('openaiChat', body as Record<string, unknown>).filter(
		(tool) => (tool.function as { strict?: boolean }).strict,
	);
	expect(strict.length).toBeGreaterThan(tools.length / 2);
});

it('catches definitions a vendor would refuse', () => {
	const loose = { type: 'object', properties: { a: { type: 'array' } } };
	expect(
		toolRuleViolations.openaiChat({
			type: 'function',
			function: { name: 'a.b', strict: true, parameters: loose },
		}),
	).toEqual([
		'name a.b',
		'#: additionalProperties must be false',
		'#: property a must be required',
		'#/properties/a: an array needs items',
	]);
	expect(
		toolRuleViolations.anthropic({ name: 'x', input_schema: { type: 'object', anyOf: [] } }),
	).toEqual(['input_schema: anyOf at the top level']);
	expect(toolRuleViolations.gemini({ name: '9x', parameters: { type: 'object' } })).not.toEqual([]);
	expect(
		toolRuleViolations.ollama({
			function: { name: 'x', parameters: { type: 'object', properties: { a: true } } },
		}),
	).toEqual(['#/properties/a: must be a schema object']);
});

describe('arguments are checked against the original schema', () => {
	const validator = new SchemaValidator();

	it.each(tools.map(({ server, tool }) => [`${server.split('/')[1]} ${tool.name}`, tool]))(
		'%s',
		(_label, tool) => {
			const { inputSchema } = tool as Tool;
			expect(validator.check(inputSchema, sampleFor(inputSchema))).toMatchObject({
				status: 'valid',
			});
			const required = (inputSchema.required ?? []) as string[];
			const empty = validator.check(inputSchema, {});
			if (required.length === 0) expect(empty.status).toBe('valid');
			else
				expect(empty).toMatchObject({
					status: 'invalid',
					issues: expect.arrayContaining([
						expect.objectContaining({ message: expect.stringContaining(required[0]) }),
					]),
				});
		},
	);
});
