import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonSchema } from '../../lib/conversation/types';
import { toGeminiSchema } from '../../lib/schema/gemini';
import { geminiSchemaProblems, ruleViolations } from '../support/vendorRules';

const object = (properties: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
	type: 'object',
	properties,
	...extra,
});
/** The converted schema of one property named `x`. */
const property = (schema: unknown, extra: JsonSchema = {}) =>
	toGeminiSchema(object({ x: schema }, extra)).properties?.x;
/** What Gemini's documented rules (test/support/vendorRules.ts) find wrong with these parameters. */
const geminiRuleViolations = (parameters: unknown) =>
	ruleViolations('gemini', { tools: [{ functionDeclarations: [{ name: 't', parameters }] }] });

describe('toGeminiSchema', () => {
	it('writes types in upper case and keeps description, required, items and bounds', () => {
		const schema = object(
			{
				name: { type: 'string', description: 'Who' },
				age: { type: 'integer', minimum: 0, maximum: 150 },
				score: { type: 'number' },
				ok: { type: 'boolean' },
				tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
				address: object({ city: { type: 'string' } }, { required: ['city'] }),
			},
			{ required: ['name'], description: 'A person' },
		);
		expect(toGeminiSchema(schema)).toEqual({
			type: 'OBJECT',
			description: 'A person',
			properties: {
				name: { type: 'STRING', description: 'Who' },
				age: { type: 'INTEGER', minimum: 0, maximum: 150 },
				score: { type: 'NUMBER' },
				ok: { type: 'BOOLEAN' },
				tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: 1, maxItems: 3 },
				address: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
			},
			required: ['name'],
		});
	});

	it('sends an OBJECT without a properties map for a tool without arguments, and for a root that is not an object', () => {
		// Gemini refuses an empty map: "properties: should be non-empty for OBJECT type".
		for (const schema of [
			{},
			{ type: 'object' },
			{ type: 'object', properties: {}, required: [] },
			{ type: 'string' },
		]) {
			expect(toGeminiSchema(schema)).toEqual({ type: 'OBJECT' });
		}
	});

	it('keeps the bounds Gemini reads, and tells the model in the description the keywords it does not', () => {
		const schema = {
			$schema: 'https://json-schema.org/draft/2020-12/schema',
			$id: 'urn:x',
			$comment: 'c',
			title: 'T',
			type: 'object',
			properties: {
				s: {
					type: 'string',
					title: 'S',
					default: 'a',
					examples: ['b'],
					pattern: '^a',
					minLength: 1,
					maxLength: 9,
					readOnly: true,
				},
				n: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 9, multipleOf: 2 },
				a: {
					type: 'array',
					items: { type: 'string' },
					uniqueItems: true,
					contains: { const: 'x' },
				},
			},
			additionalProperties: false,
			patternProperties: { '^x-': {} },
			propertyNames: { maxLength: 3 },
			minProperties: 1,
			dependentRequired: { s: ['n'] },
			if: { required: ['s'] },
			then: { required: ['n'] },
			not: { required: ['a'] },
			unevaluatedProperties: false,
		};
		expect(toGeminiSchema(schema)).toEqual({
			type: 'OBJECT',
			description:
				'JSON Schema: {"patternProperties":{"^x-":{}},"propertyNames":{"maxLength":3},"dependentRequired":{"s":["n"]},"not":{"required":["a"]},"if":{"required":["s"]},"then":{"required":["n"]},"unevaluatedProperties":false}',
			properties: {
				s: { type: 'STRING', pattern: '^a', minLength: 1, maxLength: 9 },
				n: {
					type: 'NUMBER',
					description: 'JSON Schema: {"multipleOf":2,"exclusiveMinimum":0,"exclusiveMaximum":9}',
				},
				a: {
					type: 'ARRAY',
					items: { type: 'STRING' },
					description: 'JSON Schema: {"contains":{"const":"x"},"uniqueItems":true}',
				},
			},
			minProperties: 1,
		});
	});

	it('makes exclusive integer bounds inclusive, which is exact', () => {
		expect(property({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10.5 })).toEqual({
			type: 'INTEGER',
			minimum: 1,
			maximum: 10,
		});
		expect(property({ type: 'integer', minimum: 5, exclusiveMinimum: 0 })).toEqual({
			type: 'INTEGER',
			minimum: 5,
		});
	});

	it('keeps a format only where Gemini allows it, and tells the others', () => {
		expect(
			toGeminiSchema(
				object({
					when: { type: 'string', format: 'date-time' },
					pick: { type: 'string', format: 'enum', enum: ['a'] },
					mail: { type: 'string', format: 'email' },
					ratio: { type: 'number', format: 'double' },
					big: { type: 'integer', format: 'int64' },
					odd: { type: 'integer', format: 'float' },
					flag: { type: 'boolean', format: 'int32' },
				}),
			).properties,
		).toEqual({
			when: { type: 'STRING', format: 'date-time' },
			pick: { type: 'STRING', format: 'enum', enum: ['a'] },
			mail: { type: 'STRING', description: 'JSON Schema: {"format":"email"}' },
			ratio: { type: 'NUMBER', format: 'double' },
			big: { type: 'INTEGER', format: 'int64' },
			odd: { type: 'INTEGER', description: 'JSON Schema: {"format":"float"}' },
			flag: { type: 'BOOLEAN', description: 'JSON Schema: {"format":"int32"}' },
		});
	});

	it('turns null in a type array into nullable, and several types into anyOf', () => {
		expect(property({ type: ['string', 'null'] })).toEqual({ type: 'STRING', nullable: true });
		expect(property({ type: 'null' })).toEqual({ nullable: true });
		expect(property({ type: ['integer', 'number', 'null'], minimum: 1, description: 'n' })).toEqual(
			{
				type: 'NUMBER',
				minimum: 1,
				description: 'n',
				nullable: true,
			},
		);
		expect(property({ type: ['string', 'array'], items: { type: 'integer' } })).toEqual({
			anyOf: [{ type: 'STRING' }, { type: 'ARRAY', items: { type: 'INTEGER' } }],
		});
	});

	it('turns oneOf into anyOf and says that only one may match, and a null branch into nullable', () => {
		expect(property({ oneOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual({
			anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }],
			description: 'JSON Schema: {"oneOf":"exactly one of the anyOf schemas"}',
		});
		expect(property({ oneOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({
			type: 'STRING',
			nullable: true,
		});
		expect(
			property({ anyOf: [{ type: 'string', description: 'inner' }, { type: 'null' }] }),
		).toEqual({
			type: 'STRING',
			description: 'inner',
			nullable: true,
		});
		expect(
			property({
				anyOf: [{ type: 'null' }, object({ a: { type: 'string' } })],
				description: 'outer',
			}),
		).toEqual({
			type: 'OBJECT',
			properties: { a: { type: 'STRING' } },
			description: 'outer',
			nullable: true,
		});
		expect(property({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] })).toEqual(
			{
				anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }],
				nullable: true,
			},
		);
	});

	it('keeps a type beside a union and tells the union, which Gemini cannot hold together', () => {
		const schema = object(
			{ a: { type: 'string' }, b: { type: 'string' } },
			{ anyOf: [{ required: ['a'] }, { required: ['b'] }] },
		);
		expect(toGeminiSchema(schema)).toEqual({
			type: 'OBJECT',
			properties: { a: { type: 'STRING' }, b: { type: 'STRING' } },
			description: 'JSON Schema: {"anyOf":[{"required":["a"]},{"required":["b"]}]}',
		});
	});

	it('keeps string enums, and tells the model other allowed values in the description', () => {
		expect(property({ type: 'string', enum: ['a', 'b'] })).toEqual({
			type: 'STRING',
			enum: ['a', 'b'],
		});
		expect(property({ enum: ['a', 'b', null] })).toEqual({
			type: 'STRING',
			enum: ['a', 'b'],
			nullable: true,
		});
		expect(property({ type: 'integer', enum: [1, 2], description: 'Level' })).toEqual({
			type: 'INTEGER',
			description: 'Level\nJSON Schema: {"enum":[1,2]}',
		});
		expect(property({ enum: [true] })).toEqual({
			type: 'BOOLEAN',
			description: 'JSON Schema: {"enum":[true]}',
		});
		expect(property({ enum: ['a', 1.5] })).toEqual({
			anyOf: [{ type: 'STRING', enum: ['a'] }, { type: 'NUMBER' }],
			description: 'JSON Schema: {"enum":["a",1.5]}',
		});
		expect(property({ type: 'string', enum: [] })).toEqual({ type: 'STRING' });
	});

	it('turns const into an enum of one', () => {
		expect(property({ const: 'fast' })).toEqual({ type: 'STRING', enum: ['fast'] });
		expect(property({ type: 'integer', const: 3 })).toEqual({
			type: 'INTEGER',
			description: 'JSON Schema: {"const":3}',
		});
		expect(property({ const: null })).toEqual({ nullable: true });
	});

	it('reads a missing type off the other keywords, and leaves a value of any type untyped', () => {
		expect(property({ properties: { a: { type: 'string' } } })).toEqual({
			type: 'OBJECT',
			properties: { a: { type: 'STRING' } },
		});
		expect(property({ items: { type: 'string' } })).toEqual({
			type: 'ARRAY',
			items: { type: 'STRING' },
		});
		expect(property({})).toEqual({});
		expect(property(true)).toEqual({});
		expect(property({ description: 'anything' })).toEqual({ description: 'anything' });
	});

	it('gives every array items, tells tuples and map values, drops forbidden names and tells undeclared required ones', () => {
		expect(property({ type: 'array' })).toEqual({ type: 'ARRAY', items: {} });
		expect(property({ type: 'array', items: [{ type: 'string' }] })).toEqual({
			type: 'ARRAY',
			items: {},
			description: 'JSON Schema: {"items":[{"type":"string"}]}',
		});
		expect(property({ type: 'object', additionalProperties: { type: 'string' } })).toEqual({
			type: 'OBJECT',
			description: 'JSON Schema: {"additionalProperties":{"type":"string"}}',
		});
		// Gemini refuses an empty properties map, so that no key is allowed is told instead.
		expect(property({ type: 'object', additionalProperties: false })).toEqual({
			type: 'OBJECT',
			description: 'JSON Schema: {"additionalProperties":false}',
		});
		expect(property({ type: 'object' })).toEqual({ type: 'OBJECT' });
		const schema = object(
			{ a: { type: 'string' }, gone: false },
			{ required: ['a', 'gone', 'missing', 'a'] },
		);
		expect(toGeminiSchema(schema)).toEqual({
			type: 'OBJECT',
			properties: { a: { type: 'STRING' } },
			required: ['a'],
			description: 'JSON Schema: {"required":["gone","missing"]}',
		});
	});

	it('inlines local refs ($defs and definitions), the referring description winning', () => {
		const schema = {
			type: 'object',
			$defs: { City: { type: 'string', description: 'A city' } },
			definitions: { 'a/b': { type: 'integer' } },
			properties: {
				from: { $ref: '#/$defs/City' },
				to: { $ref: '#/$defs/City', description: 'Where to' },
				n: { $ref: '#/definitions/a~1b' },
				remote: { $ref: 'https://example.com/schema.json' },
				broken: { $ref: '#/$defs/Nope' },
			},
		};
		expect(toGeminiSchema(schema).properties).toEqual({
			from: { type: 'STRING', description: 'A city' },
			to: { type: 'STRING', description: 'Where to' },
			n: { type: 'INTEGER' },
			remote: { description: 'JSON Schema: {"$ref":"https://example.com/schema.json"}' },
			broken: { description: 'JSON Schema: {"$ref":"#/$defs/Nope"}' },
		});
	});

	it('inlines refs to an anchor, to the $id of a definition and to a name with a % in it', () => {
		const schema = {
			type: 'object',
			$defs: {
				Leaf: { $anchor: 'leaf', type: 'string' },
				Item: { $id: 'item.json', type: 'integer' },
				'50%': { type: 'boolean' },
			},
			properties: {
				leaf: { $ref: '#leaf' },
				item: { $ref: 'item.json' },
				half: { $ref: '#/$defs/50%' },
				encoded: { $ref: '#/$defs/50%25' },
			},
		};
		expect(toGeminiSchema(schema).properties).toEqual({
			leaf: { type: 'STRING' },
			item: { type: 'INTEGER' },
			half: { type: 'BOOLEAN' },
			encoded: { type: 'BOOLEAN' },
		});
	});

	it('inlines every ref to a small definition, however many there are', () => {
		const properties = Object.fromEntries(
			Array.from({ length: 600 }, (_, index) => [`p${index}`, { $ref: '#/$defs/color' }]),
		);
		const converted = toGeminiSchema({
			type: 'object',
			$defs: { color: { type: 'string', enum: ['red', 'green'] } },
			properties,
		});
		expect(converted.properties?.p599).toEqual({ type: 'STRING', enum: ['red', 'green'] });
	});

	it('inlines a bounded amount of schema when definitions refer to each other', () => {
		const names = ['A', 'B', 'C', 'D', 'E'];
		const $defs = Object.fromEntries(
			names.map((name) => [
				name,
				object(Object.fromEntries(names.map((other) => [other, { $ref: `#/$defs/${other}` }]))),
			]),
		);
		const converted = toGeminiSchema({
			type: 'object',
			$defs,
			properties: { a: { $ref: '#/$defs/A' } },
		});
		const text = JSON.stringify(converted);
		expect(text.length).toBeLessThan(300_000);
		// Past the budget the refs are named, not dropped.
		expect(text).toContain('JSON Schema: {\\"$ref\\":\\"#/$defs/');
	});

	it('unrolls a recursive ref twice and then cuts it to a value of any type that names the ref', () => {
		const schema = {
			type: 'object',
			$defs: {
				Node: object({
					name: { type: 'string' },
					children: { type: 'array', items: { $ref: '#/$defs/Node' } },
				}),
			},
			properties: { root: { $ref: '#/$defs/Node' } },
		};
		expect(toGeminiSchema(schema).properties?.root).toEqual({
			type: 'OBJECT',
			properties: {
				name: { type: 'STRING' },
				children: {
					type: 'ARRAY',
					items: {
						type: 'OBJECT',
						properties: {
							name: { type: 'STRING' },
							children: {
								type: 'ARRAY',
								items: { description: 'JSON Schema: {"$ref":"#/$defs/Node"}' },
							},
						},
					},
				},
			},
		});
		// A ref to the root itself ends too.
		expect(geminiRuleViolations(toGeminiSchema(object({ self: { $ref: '#' } })))).toEqual([]);
	});

	it('merges a simple allOf and tells one it cannot merge', () => {
		const merged = property(
			{
				allOf: [{ $ref: '#/$defs/Base' }, object({ b: { type: 'integer' } }, { required: ['b'] })],
				description: 'Both',
			},
			{ $defs: { Base: object({ a: { type: 'string' } }, { required: ['a'] }) } },
		);
		expect(merged).toEqual({
			type: 'OBJECT',
			description: 'Both',
			properties: { a: { type: 'STRING' }, b: { type: 'INTEGER' } },
			required: ['a', 'b'],
		});
		expect(
			property({ allOf: [{ type: 'string' }, { type: 'integer' }], description: 'Impossible' }),
		).toEqual({
			description: 'Impossible\nJSON Schema: {"allOf":[{"type":"string"},{"type":"integer"}]}',
		});
		expect(property({ type: 'object', allOf: [{ anyOf: [{ required: ['a'] }] }] })).toEqual({
			type: 'OBJECT',
			description: 'JSON Schema: {"allOf":[{"anyOf":[{"required":["a"]}]}]}',
		});
	});

	it('keeps what every allOf schema asks of a property and the tightest of their bounds', () => {
		const merged = property({
			type: 'object',
			allOf: [
				object({ name: { type: 'string', maxLength: 10 } }, { minProperties: 1 }),
				object({ name: { minLength: 2, maxLength: 8 } }, { minProperties: 2 }),
			],
		});
		expect(merged).toEqual({
			type: 'OBJECT',
			properties: { name: { type: 'STRING', minLength: 2, maxLength: 8 } },
			minProperties: 2,
		});
		// A property one schema forbids stays out.
		expect(
			property({
				type: 'object',
				allOf: [object({ a: { type: 'string' }, b: { type: 'string' } }), object({ b: false })],
			}),
		).toEqual({ type: 'OBJECT', properties: { a: { type: 'STRING' } } });
		// Items meet both; vendor keywords constrain nothing, the first one stands.
		expect(
			property({
				allOf: [
					{ type: 'array', items: { type: 'string' }, 'x-order': 1 },
					{ type: 'array', items: { maxLength: 3 }, 'x-order': 2 },
				],
			}),
		).toEqual({ type: 'ARRAY', items: { type: 'STRING', maxLength: 3 } });
		// Two patterns cannot be one: the allOf is told whole, beside the type they agree on.
		const patterns = [
			{ type: 'string', pattern: '^a' },
			{ type: 'string', pattern: 'z$' },
		];
		expect(property({ allOf: patterns })).toEqual({
			type: 'STRING',
			description: `JSON Schema: ${JSON.stringify({ allOf: patterns })}`,
		});
	});
});

describe("Gemini's documented Schema rules (the vendor rule table)", () => {
	it('accepts what Gemini reads', () => {
		expect(
			geminiRuleViolations({
				type: 'OBJECT',
				properties: {
					a: { type: 'STRING', enum: ['x'], format: 'enum', nullable: true, description: 'd' },
					b: {
						type: 'ARRAY',
						items: { anyOf: [{ type: 'INTEGER', format: 'int32', minimum: 0 }, {}] },
						minItems: 0,
					},
					c: { type: 'STRING', pattern: '^c', minLength: 1, maxLength: '9' },
					d: { type: 'OBJECT', minProperties: 0, maxProperties: 3 },
				},
				required: ['a'],
			}),
		).toEqual([]);
	});

	it('names an empty properties map, at the root and below', () => {
		expect(
			geminiRuleViolations({
				type: 'OBJECT',
				properties: { d: { type: 'OBJECT', properties: {} } },
			}),
		).toEqual([
			expect.stringContaining('#/properties/d: properties: should be non-empty for OBJECT type'),
		]);
		expect(geminiRuleViolations({ type: 'OBJECT', properties: {} })).toEqual([
			expect.stringContaining('#: properties: should be non-empty'),
		]);
	});

	it('names parameters that are not an OBJECT', () => {
		expect(geminiRuleViolations({ type: 'STRING' })).toEqual([
			expect.stringContaining('parameters are not type OBJECT'),
		]);
	});

	it.each<[string, unknown, string]>([
		[
			'a JSON Schema type',
			{ type: 'OBJECT', properties: { a: { type: 'string' } } },
			'#/properties/a: type "string"',
		],
		[
			'an unknown keyword',
			{ type: 'OBJECT', additionalProperties: false },
			'#: additionalProperties is not a Schema field',
		],
		[
			'a $ref',
			{ type: 'OBJECT', properties: { a: { $ref: '#/x' } } },
			'#/properties/a: $ref is not a Schema field',
		],
		[
			'an enum on a number',
			{ type: 'OBJECT', properties: { a: { type: 'NUMBER', enum: ['1'] } } },
			'#/properties/a: enum for type NUMBER',
		],
		[
			'an enum of numbers',
			{ type: 'OBJECT', properties: { a: { type: 'STRING', enum: [1] } } },
			'#/properties/a: enum holds a value that is not a string',
		],
		[
			'a format Gemini does not know',
			{ type: 'OBJECT', properties: { a: { type: 'STRING', format: 'email' } } },
			'#/properties/a: format "email" for type STRING',
		],
		[
			'an array without items',
			{ type: 'OBJECT', properties: { a: { type: 'ARRAY' } } },
			'#/properties/a: ARRAY without items',
		],
		[
			'an empty anyOf',
			{ type: 'OBJECT', properties: { a: { anyOf: [] } } },
			'#/properties/a: anyOf is not a list of Schemas',
		],
		[
			'a required name not declared',
			{ type: 'OBJECT', properties: {}, required: ['a'] },
			'#: required names ["a"], which properties does not declare',
		],
		[
			'a count that is not one',
			{ type: 'OBJECT', properties: { a: { type: 'ARRAY', items: {}, maxItems: -1 } } },
			'#/properties/a: maxItems is not a count',
		],
		[
			'a string length that is not a count',
			{ type: 'OBJECT', properties: { a: { type: 'STRING', minLength: 1.5 } } },
			'#/properties/a: minLength is not a count',
		],
		[
			'a pattern that is not a string',
			{ type: 'OBJECT', properties: { a: { type: 'STRING', pattern: 1 } } },
			'#/properties/a: pattern is not a string',
		],
		[
			'a schema that is not an object',
			{ type: 'OBJECT', properties: { a: true } },
			'#/properties/a: not a Schema object',
		],
	])('names %s', (_label, schema, problem) => {
		expect(geminiSchemaProblems(schema)).toContain(problem);
	});
});

describe('every converted schema obeys the rules', () => {
	const fixtures = join(__dirname, '..', 'fixtures', 'dialects');
	const fixtureSchemas = readdirSync(fixtures).flatMap((folder) =>
		readdirSync(join(fixtures, folder))
			.filter((file) => file.endsWith('.request.json'))
			.flatMap((file) => {
				const fixture = JSON.parse(readFileSync(join(fixtures, folder, file), 'utf8'));
				return (fixture.conversation?.tools ?? []).map(
					(tool: { name: string; inputSchema: JsonSchema }): [string, JsonSchema] => [
						`${folder}/${file} ${tool.name}`,
						tool.inputSchema,
					],
				);
			}),
	);
	const awkward: Array<[string, JsonSchema]> = [
		[
			'type arrays everywhere',
			object({ a: { type: ['array', 'object', 'null'] }, b: { type: ['null'] } }),
		],
		['enum without type', object({ a: { enum: [1, 'a', null, true, [1], { k: 1 }] } })],
		[
			'nested unions',
			object({
				a: {
					anyOf: [
						{ oneOf: [{ type: 'string' }, { type: 'null' }] },
						{ allOf: [{ type: 'integer' }] },
					],
				},
			}),
		],
		[
			'refs in items and unions',
			{
				$defs: { S: { type: 'string', format: 'uuid' } },
				...object({
					a: { type: 'array', items: { anyOf: [{ $ref: '#/$defs/S' }, { type: 'null' }] } },
				}),
			},
		],
		[
			'garbage keywords',
			object(
				{
					a: { type: 'strnig' },
					b: { required: 'a', properties: [] },
					c: { type: 'array', items: 'x', minItems: 'one' },
				},
				{ required: 'a' },
			),
		],
		[
			'inherited names',
			JSON.parse(
				'{"type":"object","properties":{"__proto__":{"type":"constructor"},"b":{"allOf":[{"properties":{"__proto__":{"type":"string"}}}]}}}',
			),
		],
	];
	it.each([...fixtureSchemas, ...awkward])('%s', (_label, schema) => {
		expect(geminiRuleViolations(toGeminiSchema(schema))).toEqual([]);
	});
});
