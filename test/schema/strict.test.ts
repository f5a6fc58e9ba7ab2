import { toStrictJsonSchema } from 'openai/lib/transform';
import type { JsonSchema } from '../../lib/conversation/types';
import { dropAddedNulls, toStrictSchema } from '../../lib/schema/strict';
import { SchemaValidator } from '../../lib/schema/validator';

function strict(schema: JsonSchema): JsonSchema {
	const result = toStrictSchema(schema);
	if (!result.ok) throw new Error(`expected a strict schema, got: ${result.reason}`);
	return result.schema;
}

function reason(schema: JsonSchema): string {
	const result = toStrictSchema(schema);
	if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.schema)}`);
	return result.reason;
}

const object = (properties: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
	type: 'object',
	properties,
	...extra,
});

describe('toStrictSchema', () => {
	it('closes the object and makes optional properties nullable (the wire-format example)', () => {
		const schema = object(
			{ city: { type: 'string' }, unit: { type: 'string', enum: ['C', 'F'] } },
			{ required: ['city'] },
		);
		expect(strict(schema)).toEqual({
			type: 'object',
			properties: {
				city: { type: 'string' },
				unit: { type: ['string', 'null'], enum: ['C', 'F', null] },
			},
			required: ['city', 'unit'],
			additionalProperties: false,
		});
	});

	it('adds null to a type array, and leaves what already accepts null alone', () => {
		expect(
			strict(
				object({
					a: { type: ['string', 'number'] },
					b: { type: ['string', 'null'] },
					c: { type: 'null' },
					d: { anyOf: [{ type: 'string' }, { type: 'null' }] },
					e: { enum: ['x', null] },
				}),
			).properties,
		).toEqual({
			a: { type: ['string', 'number', 'null'] },
			b: { type: ['string', 'null'] },
			c: { type: 'null' },
			d: { anyOf: [{ type: 'string' }, { type: 'null' }] },
			e: { type: ['string', 'null'], enum: ['x', null] },
		});
	});

	it('adds null to the enum of a type that already has null', () => {
		expect(strict(object({ a: { type: ['string', 'null'], enum: ['x'] } })).properties).toEqual({
			a: { type: ['string', 'null'], enum: ['x', null] },
		});
	});

	it('turns an optional const into an enum with null', () => {
		expect(strict(object({ kind: { type: 'string', const: 'circle' } })).properties).toEqual({
			kind: { type: ['string', 'null'], enum: ['circle', null] },
		});
	});

	it('wraps optional $ref and anyOf properties in anyOf with null', () => {
		const schema = object(
			{
				home: { $ref: '#/$defs/address', description: 'Where they live' },
				id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
				nick: { $ref: '#/$defs/maybeName' },
			},
			{
				$defs: {
					address: object({ street: { type: 'string' } }, { required: ['street'] }),
					maybeName: { type: ['string', 'null'] },
				},
			},
		);
		expect(strict(schema)).toEqual({
			type: 'object',
			properties: {
				home: {
					anyOf: [{ $ref: '#/$defs/address', description: 'Where they live' }, { type: 'null' }],
				},
				id: { anyOf: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'null' }] },
				// The target already accepts null.
				nick: { $ref: '#/$defs/maybeName' },
			},
			required: ['home', 'id', 'nick'],
			additionalProperties: false,
			$defs: {
				address: {
					type: 'object',
					properties: { street: { type: 'string' } },
					required: ['street'],
					additionalProperties: false,
				},
				maybeName: { type: ['string', 'null'] },
			},
		});
	});

	it('closes nested objects, objects in array items and in anyOf branches', () => {
		const schema = object(
			{
				filter: object({ tag: { type: 'string' } }, { additionalProperties: false }),
				rows: {
					type: 'array',
					items: object({ n: { type: 'integer' } }, { required: ['n'] }),
					minItems: 1,
				},
				shape: {
					anyOf: [object({ r: { type: 'number' } }, { required: ['r'] }), { type: 'string' }],
				},
			},
			{ required: ['filter', 'rows', 'shape'] },
		);
		expect(strict(schema)).toEqual({
			type: 'object',
			properties: {
				filter: {
					type: 'object',
					properties: { tag: { type: ['string', 'null'] } },
					required: ['tag'],
					additionalProperties: false,
				},
				rows: {
					type: 'array',
					items: {
						type: 'object',
						properties: { n: { type: 'integer' } },
						required: ['n'],
						additionalProperties: false,
					},
					minItems: 1,
				},
				shape: {
					anyOf: [
						{
							type: 'object',
							properties: { r: { type: 'number' } },
							required: ['r'],
							additionalProperties: false,
						},
						{ type: 'string' },
					],
				},
			},
			required: ['filter', 'rows', 'shape'],
			additionalProperties: false,
		});
	});

	it('keeps recursive local refs and legacy definitions', () => {
		const schema: JsonSchema = {
			type: 'object',
			properties: { tree: { $ref: '#/definitions/node' } },
			required: ['tree'],
			definitions: {
				node: object(
					{
						value: { type: 'string' },
						children: { type: 'array', items: { $ref: '#/definitions/node' } },
					},
					{ required: ['value', 'children'] },
				),
			},
		};
		expect(strict(schema)).toEqual({
			type: 'object',
			properties: { tree: { $ref: '#/definitions/node' } },
			required: ['tree'],
			additionalProperties: false,
			definitions: {
				node: {
					type: 'object',
					properties: {
						value: { type: 'string' },
						children: { type: 'array', items: { $ref: '#/definitions/node' } },
					},
					required: ['value', 'children'],
					additionalProperties: false,
				},
			},
		});
	});

	it('accepts a ref to the root', () => {
		expect(strict(object({ next: { $ref: '#' } }, { required: ['next'] })).properties).toEqual({
			next: { $ref: '#' },
		});
	});

	it('flattens a single-branch allOf with annotations beside it', () => {
		const schema = object(
			{ unit: { allOf: [{ $ref: '#/$defs/unit' }], description: 'Unit', default: 'C' } },
			{ required: ['unit'], $defs: { unit: { type: 'string', enum: ['C', 'F'] } } },
		);
		expect(strict(schema).properties).toEqual({
			unit: { $ref: '#/$defs/unit', description: 'Unit\nJSON Schema: {"default":"C"}' },
		});
	});

	it('gives an empty object root its keys, and keeps root metadata', () => {
		expect(strict({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' })).toEqual({
			$schema: 'http://json-schema.org/draft-07/schema#',
			type: 'object',
			properties: {},
			required: [],
			additionalProperties: false,
		});
	});

	it('reads a missing type off object keywords and enum values', () => {
		expect(
			strict({
				properties: {
					size: { enum: ['s', 'm'] },
					count: { enum: [1, 2] },
					ratio: { enum: [1, 2.5] },
					flag: { const: true },
					mixed: { enum: ['a', 1, null] },
				},
				required: ['size', 'count', 'ratio', 'flag', 'mixed'],
			}),
		).toEqual({
			type: 'object',
			properties: {
				size: { enum: ['s', 'm'], type: 'string' },
				count: { enum: [1, 2], type: 'integer' },
				ratio: { enum: [1, 2.5], type: 'number' },
				flag: { const: true, type: 'boolean' },
				mixed: { enum: ['a', 1, null], type: ['string', 'integer', 'null'] },
			},
			required: ['size', 'count', 'ratio', 'flag', 'mixed'],
			additionalProperties: false,
		});
	});

	it('keeps keywords strict mode allows and treats "__proto__" as an ordinary property', () => {
		const schema = JSON.parse(
			'{"type":"object","properties":{"__proto__":{"type":"string","pattern":"^a","format":"email","x-ui":1}},"required":["__proto__"]}',
		) as JsonSchema;
		const out = strict(schema);
		expect(Object.keys(out.properties as object)).toEqual(['__proto__']);
		expect(Object.getPrototypeOf(out.properties)).toBe(Object.prototype);
		expect(JSON.stringify(out.properties)).toBe(
			'{"__proto__":{"type":"string","pattern":"^a","format":"email","x-ui":1}}',
		);
	});

	it('does not change its input', () => {
		const schema = object(
			{
				a: { type: 'string' },
				b: { anyOf: [object({ c: { type: 'integer' } })] },
				d: { $ref: '#/$defs/d' },
			},
			{ $defs: { d: { allOf: [{ type: 'string' }] } } },
		);
		const before = structuredClone(schema);
		strict(schema);
		expect(schema).toEqual(before);
	});

	it('keeps the formats strict mode supports and tells the model the rest, string lengths and defaults in the description', () => {
		const schema = object(
			{
				id: { type: 'string', format: 'uuid' },
				link: { type: 'string', format: 'uri', description: 'Where' },
				name: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[a-z]' },
				mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
			},
			{ required: ['id', 'link', 'name'] },
		);
		expect(strict(schema).properties).toEqual({
			id: { type: 'string', format: 'uuid' },
			link: { type: 'string', description: 'Where\nJSON Schema: {"format":"uri"}' },
			name: {
				type: 'string',
				pattern: '^[a-z]',
				description: 'JSON Schema: {"minLength":1,"maxLength":40}',
			},
			mode: {
				type: ['string', 'null'],
				enum: ['fast', 'slow', null],
				description: 'JSON Schema: {"default":"fast"}',
			},
		});
	});

	it('agrees with openai-node where both accept (all properties required)', () => {
		const schemas: JsonSchema[] = [
			object(
				{ city: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
				{ required: ['city', 'tags'] },
			),
			object(
				{ where: { $ref: '#/$defs/place' }, when: { type: ['string', 'null'] } },
				{
					required: ['where', 'when'],
					$defs: { place: object({ lat: { type: 'number' } }, { required: ['lat'] }) },
				},
			),
			object(
				{
					pick: {
						anyOf: [{ type: 'string' }, object({ id: { type: 'integer' } }, { required: ['id'] })],
					},
				},
				{ required: ['pick'] },
			),
		];
		for (const schema of schemas) {
			expect(strict(schema)).toEqual(toStrictJsonSchema(structuredClone(schema) as never));
		}
	});

	describe('refuses, naming the first construct strict mode rejects', () => {
		it.each<[string, JsonSchema, string]>([
			[
				'oneOf',
				object({ s: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }),
				'oneOf is not supported in strict mode (at /properties/s)',
			],
			[
				'not',
				object({ s: { type: 'string', not: { const: 'x' } } }),
				'not is not supported in strict mode (at /properties/s)',
			],
			[
				'if',
				object({}, { if: { required: ['a'] }, then: { required: ['b'] } }),
				'if is not supported in strict mode (at /)',
			],
			[
				'then',
				object({ a: { type: 'string', then: {} } }),
				'then is not supported in strict mode (at /properties/a)',
			],
			[
				'else',
				object({ a: { type: 'string', else: {} } }),
				'else is not supported in strict mode (at /properties/a)',
			],
			[
				'patternProperties',
				object({}, { patternProperties: { '^x': { type: 'string' } } }),
				'patternProperties is not supported in strict mode (at /)',
			],
			[
				'propertyNames',
				object({}, { propertyNames: { maxLength: 3 } }),
				'propertyNames is not supported in strict mode (at /)',
			],
			[
				'dependentRequired',
				object({}, { dependentRequired: { a: ['b'] } }),
				'dependentRequired is not supported in strict mode (at /)',
			],
			[
				'dependentSchemas',
				object({}, { dependentSchemas: { a: {} } }),
				'dependentSchemas is not supported in strict mode (at /)',
			],
			[
				'dependencies',
				object({}, { dependencies: { a: ['b'] } }),
				'dependencies is not supported in strict mode (at /)',
			],
			[
				'unevaluatedProperties',
				object({}, { unevaluatedProperties: false }),
				'unevaluatedProperties is not supported in strict mode (at /)',
			],
			[
				'unevaluatedItems',
				object({ l: { type: 'array', items: { type: 'string' }, unevaluatedItems: false } }),
				'unevaluatedItems is not supported in strict mode (at /properties/l)',
			],
			[
				'minProperties',
				object({}, { minProperties: 1 }),
				'minProperties is not supported in strict mode (at /)',
			],
			[
				'maxProperties',
				object({}, { maxProperties: 3 }),
				'maxProperties is not supported in strict mode (at /)',
			],
			[
				'uniqueItems',
				object({ l: { type: 'array', items: { type: 'string' }, uniqueItems: true } }),
				'uniqueItems is not supported in strict mode (at /properties/l)',
			],
			[
				'contains',
				object({ l: { type: 'array', items: { type: 'string' }, contains: { const: 'a' } } }),
				'contains is not supported in strict mode (at /properties/l)',
			],
			[
				'prefixItems',
				object({ l: { type: 'array', prefixItems: [{ type: 'string' }] } }),
				'prefixItems is not supported in strict mode (at /properties/l)',
			],
			[
				'additionalItems',
				object({ l: { type: 'array', items: { type: 'string' }, additionalItems: false } }),
				'additionalItems is not supported in strict mode (at /properties/l)',
			],
			[
				'$dynamicRef',
				object({ a: { $dynamicRef: '#meta' } }),
				'$dynamicRef is not supported in strict mode (at /properties/a)',
			],
			[
				'additionalProperties: true',
				object({}, { additionalProperties: true }),
				'additionalProperties must be false, got true (at /)',
			],
			[
				'additionalProperties: a schema',
				object({ m: object({}, { additionalProperties: { type: 'string' } }) }),
				'additionalProperties must be false, got a schema (at /properties/m)',
			],
			[
				'a root that is not an object',
				{ type: 'string' },
				'root must be type "object", got "string" (at /)',
			],
			[
				'a root that may be null',
				{ type: ['object', 'null'], properties: {} },
				'root must be type "object", got ["object","null"] (at /)',
			],
			[
				'a root union',
				{ anyOf: [object({}), object({})] },
				'root must be type "object", not a union (anyOf) (at /)',
			],
			[
				'a root object with anyOf',
				object({}, { anyOf: [object({}), object({})] }),
				'root must be type "object", not a union (anyOf) (at /)',
			],
			['a root without any type', {}, 'schema has no type (strict mode needs one) (at /)'],
			[
				'a root $ref',
				{ $ref: '#/$defs/a', $defs: { a: object({}) } },
				'root is a $ref; strict mode needs an inline object schema (at /)',
			],
			[
				'a remote $ref',
				object({ a: { $ref: 'https://example.com/a.json' } }),
				'remote $ref "https://example.com/a.json" is not supported (at /properties/a)',
			],
			[
				'a $ref that does not resolve',
				object({ a: { $ref: '#/$defs/missing' } }),
				'$ref "#/$defs/missing" does not resolve (at /properties/a)',
			],
			[
				'a $ref beside constraints',
				object({ a: { $ref: '#', minLength: 1 } }),
				'$ref beside minLength is not supported in strict mode (at /properties/a)',
			],
			[
				'an array without items',
				object({ l: { type: 'array' } }),
				'array without items (at /properties/l)',
			],
			[
				'tuple items',
				object({ l: { type: 'array', items: [{ type: 'string' }] } }),
				'items must be one schema (tuple or boolean items are not supported) (at /properties/l)',
			],
			[
				'a schema without type',
				object({ any: {} }),
				'schema has no type (strict mode needs one) (at /properties/any)',
			],
			[
				'an empty items schema',
				object({ l: { type: 'array', items: {} } }),
				'schema has no type (strict mode needs one) (at /properties/l/items)',
			],
			['a boolean schema', object({ any: true }), 'boolean schema true (at /properties/any)'],
			[
				'a free-form nested object',
				object({ headers: { type: 'object' } }),
				'free-form object (no properties) cannot be closed without losing its keys (at /properties/headers)',
			],
			[
				'a free-form object with empty properties',
				object({ m: object({}) }),
				'free-form object (no properties) cannot be closed without losing its keys (at /properties/m)',
			],
			[
				'required naming an undeclared property',
				object({ a: { type: 'string' } }, { required: ['a', 'b'] }),
				'required names "b", which properties does not declare (at /)',
			],
			[
				'an allOf intersection',
				object({ a: { allOf: [object({}), object({})] } }),
				'allOf with more than one schema is not supported in strict mode (at /properties/a)',
			],
			[
				'allOf beside constraints',
				object({ a: { allOf: [{ type: 'string' }], minLength: 2 } }),
				'allOf beside other keywords is not supported in strict mode (at /properties/a)',
			],
			[
				'a nested $id',
				object({ a: { $id: 'urn:a', type: 'string' } }),
				'nested $id is not supported in strict mode (at /properties/a)',
			],
			[
				'an unsupported keyword inside $defs',
				object({}, { $defs: { d: { oneOf: [] } } }),
				'oneOf is not supported in strict mode (at /$defs/d)',
			],
		])('%s', (_label, schema, expected) => {
			expect(reason(schema)).toBe(expected);
		});
	});
});

describe("toStrictSchema within OpenAI's limits on a strict schema", () => {
	const propertiesNamed = (count: number, prefix = 'p') =>
		Object.fromEntries(
			Array.from({ length: count }, (_, i) => [`${prefix}${i}`, { type: 'string' }]),
		);
	/** An object holding an object… `levels` objects deep, the root the first. */
	const nested = (levels: number): JsonSchema =>
		levels === 1 ? object({ leaf: { type: 'string' } }) : object({ inner: nested(levels - 1) });
	const refusal = (schema: JsonSchema) => {
		const result = toStrictSchema(schema);
		return result.ok ? undefined : result.reason;
	};

	it('takes a schema at each limit', () => {
		expect(refusal(object(propertiesNamed(5_000)))).toBeUndefined();
		expect(refusal(nested(10))).toBeUndefined();
		const values = Array.from({ length: 1_000 }, (_, i) => `v${i}`);
		expect(
			refusal(object({ pick: { type: 'string', enum: values } }, { required: ['pick'] })),
		).toBeUndefined();
	});

	it('refuses one past a limit, counting properties and enum values in every place, definitions too', () => {
		expect(
			refusal(object(propertiesNamed(4_000), { $defs: { more: object(propertiesNamed(1_001)) } })),
		).toBe('5001 object properties, more than the 5000 strict mode takes (at /)');
		expect(refusal(nested(11))).toBe(
			'objects nested 11 levels deep, more than the 10 strict mode takes (at /)',
		);
		const values = (count: number, prefix: string) =>
			Array.from({ length: count }, (_, i) => `${prefix}${i}`);
		expect(
			refusal(
				object(
					{
						a: { type: 'string', enum: values(600, 'a') },
						b: { type: 'array', items: { type: 'string', enum: values(401, 'b') } },
					},
					{ required: ['a', 'b'] },
				),
			),
		).toBe('1001 enum values, more than the 1000 strict mode takes (at /)');
	});

	it('refuses names past 120,000 characters, and a large string enum past 15,000', () => {
		const longNames = Object.fromEntries(
			Array.from({ length: 121 }, (_, i) => [`${i}`.padEnd(1_000, 'x'), { type: 'string' }]),
		);
		expect(refusal(object(longNames))).toMatch(/^names and enum values of 12\d{4} characters/);
		const wide = Array.from({ length: 251 }, (_, i) => `${i}`.padEnd(60, 'v'));
		expect(refusal(object({ pick: { type: 'string', enum: wide } }))).toBe(
			'an enum of more than 250 values with 15060 characters, more than the 15000 strict mode takes (at /)',
		);
		expect(refusal(object({ pick: { type: 'string', enum: wide.slice(0, 250) } }))).toBeUndefined();
	});
});

describe('dropAddedNulls', () => {
	const schema = object(
		{
			city: { type: 'string' },
			unit: { type: 'string' },
			note: { type: ['string', 'null'] },
			home: { $ref: '#/$defs/address' },
			stops: { type: 'array', items: { $ref: '#/$defs/address' } },
		},
		{
			required: ['city'],
			$defs: {
				address: object(
					{ street: { type: 'string' }, zip: { type: 'string' } },
					{ required: ['street'] },
				),
			},
		},
	);

	it('drops the nulls strict mode forced on optional properties, and only those', () => {
		const args = {
			city: null,
			unit: null,
			note: null,
			home: { street: 'Main', zip: null },
			stops: [
				{ street: 'A', zip: null },
				{ street: 'B', zip: '1' },
			],
			extra: null,
		};
		expect(dropAddedNulls(args, schema)).toEqual({
			city: null,
			note: null,
			home: { street: 'Main' },
			stops: [{ street: 'A' }, { street: 'B', zip: '1' }],
			extra: null,
		});
	});

	it('drops an optional object sent as null', () => {
		expect(dropAddedNulls({ city: 'Oslo', home: null }, schema)).toEqual({ city: 'Oslo' });
	});

	it('round-trips with toStrictSchema: what the strict schema forces, the original gets back', () => {
		const original = object(
			{ q: { type: 'string' }, limit: { type: 'integer' } },
			{ required: ['q'] },
		);
		const strictSchema = strict(original);
		expect(strictSchema.required).toEqual(['q', 'limit']);
		expect(dropAddedNulls({ q: 'x', limit: null }, original)).toEqual({ q: 'x' });
	});

	it('follows the anyOf branch an object was sent for: Optional[Model] and a union of models', () => {
		const filter = object(
			{ q: { type: 'string' }, limit: { type: 'integer', default: 10 } },
			{ required: ['q'] },
		);
		const original = object(
			{
				filter: { anyOf: [{ $ref: '#/$defs/Filter' }, { type: 'null' }], default: null },
				target: {
					anyOf: [
						{ type: 'string' },
						object({ id: { type: 'string' }, rev: { type: 'integer' } }, { required: ['id'] }),
						object({ path: { type: 'string' }, line: { type: 'integer' } }, { required: ['path'] }),
					],
				},
				batches: {
					anyOf: [{ type: 'array', items: { $ref: '#/$defs/Filter' } }, { type: 'null' }],
				},
			},
			{ $defs: { Filter: filter } },
		);
		// What the strict schema makes the model send for arguments it leaves out.
		expect((strict(original).$defs as any).Filter.required).toEqual(['q', 'limit']);
		const sent = {
			filter: { q: 'x', limit: null },
			target: { path: 'a.ts', line: null },
			batches: [{ q: 'y', limit: null }],
		};
		const validator = new SchemaValidator();
		expect(validator.check(original, sent).status).toBe('invalid');
		const pruned = dropAddedNulls(sent, original);
		expect(pruned).toEqual({
			filter: { q: 'x' },
			target: { path: 'a.ts' },
			batches: [{ q: 'y' }],
		});
		expect(validator.check(original, pruned).status).toBe('valid');
		// A null for the optional property itself still goes: the anyOf admits it.
		expect(dropAddedNulls({ filter: null, target: 'id-1' }, original)).toEqual({
			filter: null,
			target: 'id-1',
		});
	});

	it('keeps a null the branch it was sent for needs, and drops nothing where two branches fit alike', () => {
		const original = object({
			// The second branch fits {id: null} better: strict mode makes the first one send `path` too.
			target: {
				anyOf: [
					object({ id: { type: 'string' }, path: { type: 'string' } }, { required: ['path'] }),
					object({ id: { type: ['string', 'null'] } }, { required: ['id'] }),
				],
			},
			// Two kinds of list: nothing here tells which one a list was sent for.
			rows: {
				anyOf: [
					{
						type: 'array',
						items: object({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['b'] }),
					},
					{
						type: 'array',
						items: object({ a: { type: ['string', 'null'] } }, { required: ['a'] }),
					},
				],
			},
		});
		const sent = { target: { id: null }, rows: [{ a: null }] };
		expect(dropAddedNulls(sent, original)).toEqual(sent);
		expect(new SchemaValidator().check(original, dropAddedNulls(sent, original)).status).toBe(
			'valid',
		);
	});

	it('reads null as allowed only where type, enum and const all allow it', () => {
		const original = object({
			unit: { type: 'string', enum: ['C', null] },
			either: { type: ['string', 'null'], enum: ['C', null] },
		});
		const strictSchema = strict(original);
		expect(strictSchema.properties).toEqual({
			unit: { type: ['string', 'null'], enum: ['C', null] },
			either: { type: ['string', 'null'], enum: ['C', null] },
		});
		expect(dropAddedNulls({ unit: null, either: null }, original)).toEqual({ either: null });
	});
});
