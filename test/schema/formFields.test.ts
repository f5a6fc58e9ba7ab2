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
