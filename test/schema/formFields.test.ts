import { formValuesToArguments, schemaToFormFields } from '../../lib/schema/formFields';
import { optionsOf } from '../support/formFields';

const schema = {
	type: 'object',
	properties: {
		path: { type: 'string', description: 'File to read' },
		head: { type: 'integer', title: 'First lines' },
		verbose: { type: ['boolean', 'null'] },
		mode: { enum: ['fast', 'exact', null] },
		filter: { type: 'object' },
		tags: { type: 'array', items: { type: 'string' } },
	},
	required: ['path'],
};

describe('form fields from an input schema', () => {
	it('gives one field per property with its type, options and required flag', () => {
		expect(schemaToFormFields(schema)).toEqual([
			{
				id: 'path',
				displayName: 'path',
				required: true,
				type: 'string',
				description: 'File to read',
			},
			{ id: 'head', displayName: 'First lines', required: false, type: 'number' },
			{ id: 'verbose', displayName: 'verbose', required: false, type: 'boolean' },
			{
				id: 'mode',
				displayName: 'mode',
				required: false,
				type: 'options',
				options: optionsOf('fast', 'exact'),
			},
			{ id: 'filter', displayName: 'filter', required: false, type: 'object' },
			{ id: 'tags', displayName: 'tags', required: false, type: 'array' },
		]);
		expect(schemaToFormFields({ type: 'object' })).toEqual([]);
	});

	it('turns typed text into arguments and leaves out empty optional fields', () => {
		expect(
			formValuesToArguments(
				{ path: '', head: '10', verbose: 'true', mode: null, filter: '{"a":1}', tags: '["x"]' },
				schema,
			),
		).toEqual({ path: '', head: 10, verbose: true, filter: { a: 1 }, tags: ['x'] });
		// What cannot be converted is kept for the schema check to report.
		expect(formValuesToArguments({ path: 'a', head: 'ten', filter: '{oops' }, schema)).toEqual({
			path: 'a',
			head: 'ten',
			filter: '{oops',
		});
	});
});

describe('form fields from the schemas Python servers write (pydantic, FastMCP)', () => {
	const pydantic = {
		type: 'object',
		$defs: {
			Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
			Unit: { enum: ['metric', 'imperial'], type: 'string' },
		},
		properties: {
			count: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, title: 'Count' },
			address: { $ref: '#/$defs/Address', description: 'Where to deliver' },
			unit: { anyOf: [{ $ref: '#/$defs/Unit' }, { type: 'null' }] },
			either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
		},
		required: ['address'],
	};

	it('reads the type of an optional value (int | None) and of a nested model ($ref)', () => {
		expect(schemaToFormFields(pydantic)).toEqual([
			{ id: 'count', displayName: 'Count', required: false, type: 'number' },
			{
				id: 'address',
				displayName: 'address',
				required: true,
				type: 'object',
				description: 'Where to deliver',
			},
			{
				id: 'unit',
				displayName: 'unit',
				required: false,
				type: 'options',
				options: [
					{ name: 'metric', value: 'metric' },
					{ name: 'imperial', value: 'imperial' },
				],
			},
			{ id: 'either', displayName: 'either', required: false, type: 'string' },
		]);
	});

	it('turns what is typed into the arguments those types ask for', () => {
		expect(
			formValuesToArguments({ count: '5', address: '{"city":"Oslo"}', either: '7' }, pydantic),
		).toEqual({ count: 5, address: { city: 'Oslo' }, either: '7' });
	});
});
