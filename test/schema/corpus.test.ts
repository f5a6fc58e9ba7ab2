/**
 * Schema translation on a corpus of real tool schemas: the tools/list of MCP servers from npm
 * (test/fixtures/tool-schemas/, recorded by scripts/record-tool-schemas.mjs). For every tool, every
 * dialect and strict mode on and off: the request obeys the vendor's documented rules
 * (test/support/vendorRules.ts), and arguments the vendor's model may produce, mapped back by the
 * dialect, pass the tool's ORIGINAL schema, or what refuses them is told in a description the
 * model reads (test/support/meaningCheck.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '../../lib/conversation/types';
import { DIALECTS } from '../../lib/dialects/registry';
import type { DialectId } from '../../lib/dialects/types';
import { SchemaValidator } from '../../lib/schema/validator';
import { checkMeaning, type Loss } from '../support/meaningCheck';
import { sampleValues } from '../support/schemaSampler';
import { ruleViolations } from '../support/vendorRules';

const folder = join(__dirname, '..', 'fixtures', 'tool-schemas');
const corpus = readdirSync(folder).map(
	(file) =>
		JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
			server: string;
			version: string;
			tools: Tool[];
		},
);
const tools = corpus.flatMap(({ tools: listed }) => listed);
const dialectIds = Object.keys(DIALECTS) as DialectId[];
const combinations = dialectIds.flatMap((dialect) =>
	[false, true].map((strict) => [dialect, strict] as const),
);
const validator = new SchemaValidator();
const figures = { samples: 0, losses: 0, told: 0, silent: 0 };

function deepFreeze<T>(value: T): T {
	if (typeof value === 'object' && value !== null) {
		Object.values(value).forEach(deepFreeze);
		Object.freeze(value);
	}
	return value;
}
tools.forEach(deepFreeze);

const request = (dialect: DialectId, listed: Tool[], strict: boolean) =>
	DIALECTS[dialect].buildRequest(
		{ messages: [{ role: 'user', content: 'x' }], tools: listed },
		{ model: 'm', toolChoice: 'auto', stream: false, strict },
	).body as Record<string, unknown>;

it('holds the tools of 24 servers, each recorded at its exact version', () => {
	expect(corpus).toHaveLength(24);
	expect(tools.length).toBeGreaterThan(300);
	for (const entry of corpus) expect(entry.version).toMatch(/^\d+\.\d+\.\d+/);
});

describe.each(combinations)('%s, strict %s', (dialect, strict) => {
	it('obeys the vendor rules for every tool', () => {
		const violations = tools.flatMap((tool) =>
			ruleViolations(dialect, request(dialect, [tool], strict)),
		);
		expect(violations).toEqual([]);
	});

	it('keeps the meaning of every tool: what the original refuses is told to the model', () => {
		const silent: Array<{ tool: string; loss: Loss }> = [];
		for (const tool of tools) {
			const { checked, losses } = checkMeaning(dialect, tool, strict, validator);
			figures.samples += checked;
			figures.losses += losses.length;
			for (const loss of losses) {
				if (loss.told) figures.told++;
				else {
					figures.silent++;
					silent.push({ tool: tool.name, loss });
				}
			}
		}
		const summary = [
			...new Set(
				silent.flatMap(({ tool, loss }) =>
					loss.issues.map((issue) => `${tool} ${issue.schemaPath}: ${issue.message}`),
				),
			),
		];
		expect(summary).toEqual([]);
	});
});

it('obeys the vendor rules with every corpus tool in one request (names unique and legal after mapping)', () => {
	for (const dialect of dialectIds.filter((id) => id !== 'openaiChat'))
		expect(ruleViolations(dialect, request(dialect, tools, false))).toEqual([]);
	expect(ruleViolations('openaiChat', request('openaiChat', tools.slice(0, 128), true))).toEqual(
		[],
	);
});

it('checks every corpus tool on every dialect and strict setting', () => {
	expect(figures.samples).toBeGreaterThan(tools.length * combinations.length * 3);
	process.stdout.write(
		`schema corpus: ${tools.length} tools × ${combinations.length} dialect and strict settings, ${figures.samples} sampled arguments checked against the original schemas: ${figures.losses} refused, ${figures.told} of them told to the model, ${figures.silent} silent\n`,
	);
});

it('names what each vendor refuses', () => {
	const fn = (name: string, parameters: object, strict?: boolean) => ({
		type: 'function',
		function: { name, parameters, ...(strict !== undefined && { strict }) },
	});
	const object = { type: 'object', properties: {} };
	const closed = (properties: object) => ({
		type: 'object',
		properties,
		required: Object.keys(properties),
		additionalProperties: false,
	});
	const chat = (tools: unknown[]) => ruleViolations('openaiChat', { tools });
	expect(chat(Array.from({ length: 129 }, (_, i) => fn(`t${i}`, object)))).toEqual([
		expect.stringContaining('129 tools'),
	]);
	expect(chat([fn('a.b', object), fn('x', { type: 'string' })])).toEqual([
		expect.stringContaining('a.b: name "a.b"'),
		expect.stringContaining('x: the schema is not type "object"'),
	]);
	expect(
		chat([
			fn('s', closed({ u: { type: 'string', format: 'uri', minLength: 1, default: 'a' } }), true),
		]),
	).toEqual([
		expect.stringContaining('#/properties/u: not supported: minLength'),
		expect.stringContaining('#/properties/u: format "uri"'),
		expect.stringContaining('#/properties/u: default is set'),
	]);
	expect(chat([fn('s', { type: 'object', properties: { a: { type: 'string' } } }, true)])).toEqual([
		expect.stringContaining('#: additionalProperties is not false'),
		expect.stringContaining('#: not required: a'),
	]);
	expect(
		ruleViolations('openaiResponses', {
			tools: [{ type: 'function', name: 'r', parameters: object }],
		}),
	).toEqual([expect.stringContaining('strict is not sent')]);
	expect(
		ruleViolations('anthropic', {
			tools: [{ name: 'n', input_schema: { type: 'object', anyOf: [] } }],
		}),
	).toEqual([expect.stringContaining('anyOf at the top level')]);
	const gemini = (declaration: object) =>
		ruleViolations('gemini', { tools: [{ functionDeclarations: [declaration] }] });
	expect(gemini({ name: 'g'.repeat(65), parameters: { type: 'OBJECT' } })).toEqual([
		expect.stringContaining(`name "${'g'.repeat(65)}"`),
	]);
	expect(
		gemini({
			name: 'g',
			parameters: {
				type: 'OBJECT',
				properties: {
					id: { type: 'STRING', format: 'uuid', pattern: '^a', minLength: 1 },
					n: { type: 'INTEGER', enum: [1] },
					m: { type: 'OBJECT', additionalProperties: { type: 'STRING' } },
					l: { type: 'ARRAY' },
				},
				required: ['id', 'gone'],
			},
			parametersJsonSchema: {},
		}),
	).toEqual([
		expect.stringContaining('both parameter fields'),
		expect.stringContaining('#: required names ["gone"]'),
		expect.stringContaining('#/properties/id: format "uuid" for type STRING'),
		expect.stringContaining('#/properties/n: enum holds a value that is not a string'),
		expect.stringContaining('#/properties/n: enum for type INTEGER'),
		expect.stringContaining('#/properties/m: additionalProperties is not a Schema field'),
		expect.stringContaining('#/properties/l: ARRAY without items'),
	]);
	expect(
		ruleViolations('ollama', {
			tools: [
				fn('o', {
					type: 'object',
					properties: { a: { type: 'string', required: { x: 1 } }, b: true },
				}),
			],
		}),
	).toEqual([
		expect.stringContaining('#/properties/a: required'),
		expect.stringContaining('#/properties/b: not an object'),
	]);
});

it('names a loss as silent when a converter drops what it cannot express without telling', () => {
	const tool = tools.find((candidate) => candidate.name === 'API-move-page')!;
	const stripDescriptions = (value: unknown): unknown =>
		Array.isArray(value)
			? value.map(stripDescriptions)
			: typeof value === 'object' && value !== null
				? Object.fromEntries(
						Object.entries(value)
							.filter(([key]) => key !== 'description')
							.map(([key, inner]) => [key, stripDescriptions(inner)]),
					)
				: value;
	const silentGemini = {
		...DIALECTS.gemini,
		buildRequest: (...args: Parameters<typeof DIALECTS.gemini.buildRequest>) => {
			const built = DIALECTS.gemini.buildRequest(...args);
			return { ...built, body: stripDescriptions(built.body) };
		},
	};
	const told = checkMeaning('gemini', tool, false, validator);
	const silent = checkMeaning('gemini', tool, false, validator, silentGemini);
	expect(told.losses.length).toBeGreaterThan(0);
	expect(told.losses.every((loss) => loss.told)).toBe(true);
	expect(silent.losses.length).toBe(told.losses.length);
	expect(silent.losses.some((loss) => !loss.told)).toBe(true);
});

describe('the original schemas stay the last line of defence', () => {
	it.each(tools.map((tool) => [tool.name, tool] as const))('%s', (_name, tool) => {
		const { inputSchema } = tool;
		const samples = sampleValues(inputSchema, 8, 1);
		expect(samples.some((sample) => validator.check(inputSchema, sample).status === 'valid')).toBe(
			true,
		);
		const required = (inputSchema.required ?? []) as string[];
		expect(validator.check(inputSchema, {}).status).toBe(
			required.length === 0 ? 'valid' : 'invalid',
		);
	});
});
