import { describeIssues, SchemaValidator } from '../../lib/schema/validator';

const weather = {
	type: 'object',
	properties: {
		city: { type: 'string', minLength: 1 },
		unit: { enum: ['C', 'F'] },
		when: { type: 'string', format: 'date' },
		stops: {
			type: 'array',
			items: { type: 'object', properties: { at: { type: 'integer' } }, required: ['at'] },
		},
	},
	required: ['city'],
	additionalProperties: false,
};

describe('SchemaValidator', () => {
	it('ignores a format it does not know, as servers use their own, without a console warning', () => {
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		try {
			const schema = { type: 'object', properties: { icon: { type: 'string', format: 'json' } } };
			expect(new SchemaValidator().check(schema, { icon: 'not json' })).toEqual({
				status: 'valid',
			});
			expect(warn).not.toHaveBeenCalled();
		} finally {
			warn.mockRestore();
		}
	});

	it('accepts valid arguments and reports every problem of invalid ones with path and rule', () => {
		const validator = new SchemaValidator();
		expect(validator.check(weather, { city: 'Oslo', unit: 'C', when: '2026-12-02' })).toEqual({
			status: 'valid',
		});

		const result = validator.check(weather, {
			unit: 'K',
			when: 'tomorrow',
			stops: [{ at: 'noon' }],
			wind: true,
		});
		expect(result.status).toBe('invalid');
		const text = describeIssues(result.status === 'invalid' ? result.issues : []);
		expect(text).toContain(
			"- the arguments object must have required property 'city' (schema rule #/required)",
		);
		expect(text).toContain(
			"- the arguments object has an undeclared property 'wind' (schema rule #/additionalProperties)",
		);
		expect(text).toContain(
			'\'/unit\' must be one of ["C","F"] (schema rule #/properties/unit/enum)',
		);
		expect(text).toContain('\'/when\' must match format "date"');
		expect(text).toContain(
			"'/stops/0/at' must be integer (schema rule #/properties/stops/items/properties/at/type)",
		);
	});

	it('compiles each distinct schema once, whatever its key order', () => {
		const validator = new SchemaValidator();
		for (let i = 0; i < 100; i++) validator.check(weather, { city: `c${i}` });
		validator.check(
			{
				required: ['city'],
				additionalProperties: false,
				properties: weather.properties,
				type: 'object',
			},
			{},
		);
		expect(validator.cachedSchemaCount).toBe(1);
		validator.check({ type: 'object' }, {});
		expect(validator.cachedSchemaCount).toBe(2);
	});

	it('lets go of schemas it no longer caches, however many distinct ones it compiled', () => {
		const validator = new SchemaValidator();
		const held = () => {
			const { draft2020 } = (validator as any).compilers;
			return [draft2020._cache.size, draft2020.scope._values.validate.size];
		};
		for (let n = 0; n < 1500; n++)
			validator.check(
				{ type: 'object', properties: { file: { enum: [`report-${n}.csv`] } } },
				{ file: 'x' },
			);
		expect(validator.cachedSchemaCount).toBe(1000);
		for (const count of held()) expect(count).toBeLessThanOrEqual(1000);
	});

	it('follows $schema: draft-07 tuples with items arrays, 2020-12 with prefixItems', () => {
		const validator = new SchemaValidator();
		const draft07 = {
			$schema: 'http://json-schema.org/draft-07/schema#',
			type: 'array',
			items: [{ type: 'string' }, { type: 'number' }],
		};
		expect(validator.check(draft07, ['a', 1]).status).toBe('valid');
		expect(validator.check(draft07, [1, 'a']).status).toBe('invalid');
		const draft2020 = {
			$schema: 'https://json-schema.org/draft/2020-12/schema',
			type: 'array',
			prefixItems: [{ type: 'string' }],
		};
		expect(validator.check(draft2020, [1]).status).toBe('invalid');
	});

	it('checks tuples and draft 4 bounds that a schema does not name its draft for', () => {
		const validator = new SchemaValidator();
		const tuple = {
			type: 'object',
			properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
		};
		expect(validator.check(tuple, { pair: ['a', 1] }).status).toBe('valid');
		expect(validator.check(tuple, { pair: [1, 'a'] }).status).toBe('invalid');
		for (const $schema of [undefined, 'http://json-schema.org/draft-04/schema#']) {
			const draft04 = {
				...($schema && { $schema }),
				id: 'http://example.com/limits',
				type: 'object',
				properties: {
					below: { type: 'number', maximum: 5, exclusiveMaximum: true },
					upTo: { type: 'number', maximum: 5, exclusiveMaximum: false },
				},
			};
			expect(validator.check(draft04, { below: 4.9, upTo: 5 }).status).toBe('valid');
			expect(validator.check(draft04, { below: 5 })).toEqual({
				status: 'invalid',
				issues: [expect.objectContaining({ instancePath: '/below', message: 'must be < 5' })],
			});
			expect(validator.check(draft04, { upTo: 5.1 }).status).toBe('invalid');
		}
	});

	it("keeps draft 2020-12's keywords beside a tuple written as items", () => {
		const validator = new SchemaValidator();
		const tuple = { type: 'array', items: [{ type: 'string' }], additionalItems: false };
		const schema = {
			type: 'object',
			properties: {
				pair: tuple,
				some: { type: 'array', contains: { type: 'string' }, minContains: 0 },
				prefixed: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } },
				closed: { type: 'object', properties: { a: {} }, unevaluatedProperties: false },
			},
		};
		expect(
			validator.check(schema, { pair: ['a'], some: [1], prefixed: ['x', 1], closed: { a: 1 } }),
		).toEqual({ status: 'valid' });
		const wrong = validator.check(schema, {
			pair: ['a', 'b'],
			prefixed: ['x', 'y'],
			closed: { a: 1, b: 2 },
		});
		expect(wrong.status === 'invalid' && wrong.issues.map((issue) => issue.instancePath)).toEqual([
			'/pair',
			'/prefixed/1',
			'/closed',
		]);
	});

	it('says which value const asks for and which property is undeclared', () => {
		const validator = new SchemaValidator();
		const schema = {
			type: 'object',
			properties: { kind: { const: 'order' } },
			unevaluatedProperties: false,
		};
		const result = validator.check(schema, { kind: 'refund', extra: 1 });
		expect(result.status === 'invalid' && result.issues.map((issue) => issue.message)).toEqual([
			'must be "order"',
			"has an undeclared property 'extra'",
		]);
	});

	it('tolerates vendor keywords and reuse of one $id by different schemas', () => {
		const validator = new SchemaValidator();
		expect(
			validator.check(
				{
					type: 'object',
					'x-google-hint': 1,
					$id: 'https://tools.example/input.json',
					properties: { a: { type: 'string' } },
				},
				{ a: 'x' },
			).status,
		).toBe('valid');
		expect(
			validator.check(
				{
					type: 'object',
					$id: 'https://tools.example/input.json',
					properties: { a: { type: 'number' } },
				},
				{ a: 'x' },
			).status,
		).toBe('invalid');
	});

	it('checks a schema that refers to its own root, with or without an $id of its own', () => {
		const tree = {
			type: 'object',
			properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
			required: ['name'],
		};
		const validator = new SchemaValidator();
		for (const schema of [tree, { ...tree, $id: 'https://example.com/tree.json' }]) {
			expect(
				validator.check(schema, { name: 'a', children: [{ name: 'b', children: [] }] }),
			).toEqual({
				status: 'valid',
			});
			expect(validator.check(schema, { name: 'a', children: [{ children: [] }] })).toMatchObject({
				status: 'invalid',
				issues: [{ instancePath: '/children/0', message: "must have required property 'name'" }],
			});
		}
	});

	it('says it could not check when a schema cannot compile, without fetching remote refs', () => {
		const validator = new SchemaValidator();
		const result = validator.check({ $ref: 'https://example.com/schema.json' }, {});
		expect(result.status).toBe('unchecked');
		expect(result.status === 'unchecked' && result.reason).toMatch(
			/can't resolve reference|resolve/i,
		);
	});

	it('checks a pattern that may take exponential time in the linear-time engine, and the rest', () => {
		const validator = new SchemaValidator();
		// 40 characters: hours of backtracking for each of these patterns in JavaScript's engine.
		const slow = `${'a'.repeat(40)}!`;
		const schema = {
			type: 'object',
			properties: {
				slug: { type: 'string', pattern: '^(a+)+$' },
				tags: { type: 'object', propertyNames: { pattern: '^(a|a?)+$' } },
				labels: {
					type: 'object',
					patternProperties: { '^(\\w+\\s?)*$': { type: 'number' } },
					additionalProperties: false,
				},
				code: { type: 'string', pattern: '^\\d{3}-\\d{4}$' },
			},
			required: ['slug'],
		};
		expect(
			validator.check(schema, { slug: slow, tags: { [slow]: 1 }, labels: { [slow]: 1 } }),
		).toMatchObject({
			status: 'invalid',
			issues: [
				{ instancePath: '/slug', message: 'must match pattern "^(a+)+$"' },
				{ instancePath: '/tags', message: 'must match pattern "^(a|a?)+$"' },
				{ instancePath: '/tags', message: 'property name must be valid' },
				{ instancePath: '/labels', message: `has an undeclared property '${slow}'` },
			],
		});
		expect(
			validator.check(schema, { slug: 'aaa', tags: { aa: 1 }, labels: { 'ab cd': 1 } }),
		).toEqual({ status: 'valid' });
		expect(validator.check(schema, { slug: 'aaa', labels: { 'ab cd': 'x' } })).toMatchObject({
			status: 'invalid',
			issues: [{ instancePath: '/labels/ab cd', message: 'must be number' }],
		});
		expect(validator.check(schema, { code: 'abc' })).toEqual({
			status: 'invalid',
			issues: [
				expect.objectContaining({ message: "must have required property 'slug'" }),
				expect.objectContaining({
					instancePath: '/code',
					message: 'must match pattern "^\\d{3}-\\d{4}$"',
				}),
			],
		});
	});

	it("checks a pattern that may take polynomial time in the linear-time engine, with JavaScript's meaning", () => {
		const validator = new SchemaValidator();
		const schema = { type: 'string', pattern: '^\\s*\\w*\\s*\\w*\\s*$' };
		// JavaScript's \s holds the no-break space and the line separator; RE2's does not.
		for (const value of ['ab cd', '\u00a0ab\u00a0cd\u2028', ''])
			expect(validator.check(schema, value)).toEqual({ status: 'valid' });
		// A hostile server's output, 100 KB: JavaScript's engine takes seconds on 2 KB of it, and
		// the cube of its length.
		const hostile = validator.check(schema, `${' '.repeat(100_000)}!`);
		expect(hostile).toMatchObject({
			status: 'invalid',
			issues: [{ instancePath: '', message: 'must match pattern "^\\s*\\w*\\s*\\w*\\s*$"' }],
		});
		expect(hostile).not.toHaveProperty('skipped');
	});

	it('leaves out a pattern that may take too long and the linear-time engine cannot run, names it, and checks the rest', () => {
		const validator = new SchemaValidator();
		const schema = {
			type: 'object',
			properties: {
				slug: { type: 'string', pattern: '^(?=a)(a+)+$' },
				labels: {
					type: 'object',
					patternProperties: { '^(\\w)(\\w+\\s?)*\\1$': { type: 'number' } },
					additionalProperties: false,
				},
				code: { type: 'string', pattern: '^\\d{3}-\\d{4}$' },
			},
		};
		const skipped =
			'pattern "^(?=a)(a+)+$" was not checked: it repeats a group that can match the same text in many ways, which can take exponential time to match, and the linear-time engine cannot run it: it looks ahead or behind; ' +
			'pattern "^(\\\\w)(\\\\w+\\\\s?)*\\\\1$" was not checked: it repeats a group that can match the same text in many ways, which can take exponential time to match, and the linear-time engine cannot run it: it refers back to a group';
		const slow = `${'a'.repeat(40)}!`;
		expect(validator.check(schema, { slug: slow, labels: { [slow]: 1 } })).toEqual({
			status: 'valid',
			skipped,
		});
		expect(validator.check(schema, { slug: slow, code: 'abc' })).toMatchObject({
			status: 'invalid',
			issues: [{ instancePath: '/code' }],
			skipped,
		});
	});

	it.each([
		// ECMAScript's long General_Category names, which RE2 knows by their short ones.
		['^\\s*[\\p{Letter}\\s]+\\s*$', 'Ada 42'],
		["^\\s*[\\p{Letter}\\p{Mark}\\s.'-]+\\s*$", "O'Brien 3"],
		['\\p{Letter}+\\s*\\p{Letter}*$', '123'],
		// RE2 cannot run these; JavaScript checks them, slow only on values thousands of characters long.
		['^\\s*[\\p{sc=Latn}\\s]+\\s*$', 'abc ж'],
		['^\\s*[\\w-.\\s]+\\s*$', 'a/b'],
		['^\\s*[\\w\\ ]+\\s*$', 'a/b'],
		['^\\s*.{1,2000}\\s*$', ''],
	])(
		'checks %s, which may take polynomial time, refusing %j as JavaScript does',
		(pattern, value) => {
			expect(new RegExp(pattern).test(value)).toBe(false);
			const schema = { type: 'object', properties: { name: { type: 'string', pattern } } };
			const result = new SchemaValidator().check(schema, { name: value });
			expect(result).toMatchObject({ status: 'invalid' });
			expect(result).not.toHaveProperty('skipped');
		},
	);

	it('checks a value short enough against a slow pattern the linear-time engine cannot run, and leaves out a longer one, saying so', () => {
		const pattern = '^\\s*[\\p{sc=Latn}\\s]+\\s*$';
		const schema = { type: 'object', properties: { name: { type: 'string', pattern } } };
		const validator = new SchemaValidator();
		expect(validator.check(schema, { name: `${' '.repeat(400)}!` })).toMatchObject({
			status: 'invalid',
		});
		expect(validator.check(schema, { name: `${' '.repeat(5_000)}!` })).toEqual({
			status: 'valid',
			skipped: expect.stringMatching(
				/^pattern ".*" was not checked: .* polynomial time .* it is checked on values of up to 493 characters$/,
			),
		});
		expect(validator.check(schema, { name: 'Ada' })).toEqual({ status: 'valid' });
		// Eight parts in a row: checked on values of up to 30 characters.
		const eight = { type: 'string', pattern: '^(?=a)\\w*\\w*\\w*\\w*\\w*\\w*\\w*\\w*!$' };
		expect(validator.check(eight, `a${'a'.repeat(20)}`)).toMatchObject({ status: 'invalid' });
		expect(validator.check(eight, 'a'.repeat(100))).toEqual({
			status: 'valid',
			skipped: expect.stringMatching(/it is checked on values of up to 30 characters$/),
		});
	});

	it('leaves out a group repeated hundreds of times that may take exponential time, which even the linear-time engine is slow on', () => {
		const pattern = '^(?:[a-z0-9]+\\s*){1,1000}$';
		const schema = { type: 'object', properties: { text: { type: 'string', pattern } } };
		expect(new SchemaValidator().check(schema, { text: `${'a'.repeat(100_000)}!` })).toEqual({
			status: 'valid',
			skipped: `pattern ${JSON.stringify(pattern)} was not checked: it repeats a group that can match the same text in many ways, which can take exponential time to match, and the linear-time engine cannot run it: it repeats a group up to 1000 times, which the linear-time engine writes out as 1000 copies and takes seconds on a long value`,
		});
	});

	it('says it could not check against a schema that refers to itself without end, never throws', () => {
		const validator = new SchemaValidator();
		for (const schema of [
			{ type: 'object', allOf: [{ $ref: '#' }] },
			{ type: 'object', not: { $ref: '#' } },
		]) {
			expect(validator.check(schema, { a: 1 })).toEqual({
				status: 'unchecked',
				reason: expect.stringContaining('the schema refers to itself without end'),
			});
		}
	});

	it('accepts decimal multiples that binary floating point misses, and refuses values off the step', () => {
		const validator = new SchemaValidator();
		const schema = {
			type: 'object',
			properties: {
				price: { type: 'number', multipleOf: 0.01 },
				ratio: { type: 'number', multipleOf: 0.1 },
			},
		};
		for (const args of [{ price: 19.99 }, { price: 0.07 }, { ratio: 0.3 }, { ratio: 0.7 }])
			expect(validator.check(schema, args)).toEqual({ status: 'valid' });
		expect(validator.check(schema, { price: 19.995, ratio: 0.25 })).toMatchObject({
			status: 'invalid',
			issues: [{ instancePath: '/price' }, { instancePath: '/ratio' }],
		});
	});

	it("checks patterns in Python's escapes, and the rest of a schema whose pattern JavaScript cannot compile", () => {
		const validator = new SchemaValidator();
		const schema = {
			type: 'object',
			properties: {
				phone: { type: 'string', pattern: '^\\d{3}\\-\\d{4}$' },
				handle: { type: 'string', pattern: '^\\@[\\w\\:]+$' },
				name: { type: 'string', pattern: '^(?P<first>\\w+)$' },
			},
			required: ['name'],
			additionalProperties: false,
		};
		const skipped = expect.stringMatching(
			/^pattern "\^\(\?P<first>\\\\w\+\)\$" was not checked: it is no JavaScript regular expression: .*Invalid group/,
		);
		expect(validator.check(schema, { name: 'x', phone: '555-1234', handle: '@a:b' })).toEqual({
			status: 'valid',
			skipped,
		});
		expect(validator.check(schema, { nmae: 'x', phone: 'abc', handle: 'a' })).toMatchObject({
			status: 'invalid',
			issues: [
				{ message: "must have required property 'name'" },
				{ message: "has an undeclared property 'nmae'" },
				{ instancePath: '/phone' },
				{ instancePath: '/handle' },
			],
			skipped,
		});
	});

	it('caps the report at ten issues', () => {
		const validator = new SchemaValidator();
		const schema = { type: 'object', additionalProperties: false };
		const args = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i]));
		const result = validator.check(schema, args);
		const text = describeIssues(result.status === 'invalid' ? result.issues : []);
		expect(text.split('\n')).toHaveLength(11);
		expect(text).toContain('- and 5 more');
	});
});
