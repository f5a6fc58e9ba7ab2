/**
 * Every dialect offers a tool's arguments as an object schema, repaired the same way (one rule,
 * lib/schema/objectRoot.ts), since every vendor refuses a function whose parameters are not one.
 */
import type { Tool } from '../../lib/conversation/types';
import { DIALECTS } from '../../lib/dialects/registry';
import type { DialectId } from '../../lib/dialects/types';
import { functionsOf } from '../support/vendorRules';

const dialectIds = Object.keys(DIALECTS) as DialectId[];

function rootOf(dialect: DialectId, inputSchema: Tool['inputSchema']) {
	const { body } = DIALECTS[dialect].buildRequest(
		{ messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'tool', inputSchema }] },
		{ model: 'm', toolChoice: 'auto', stream: false },
	);
	const [fn] = functionsOf(dialect, body as Record<string, unknown>);
	return fn.schema as Record<string, unknown>;
}

const objectType = (dialect: DialectId) => (dialect === 'gemini' ? 'OBJECT' : 'object');

describe.each(dialectIds)('%s', (dialect) => {
	it('sends an empty object schema for a tool without one', () => {
		expect(rootOf(dialect, {})).toMatchObject({ type: objectType(dialect), properties: {} });
	});

	it('adds the object type to a schema that names none, as some servers send', () => {
		const root = rootOf(dialect, { $schema: 'http://json-schema.org/draft-07/schema#' });
		expect(root.type).toBe(objectType(dialect));
	});

	it('sends "object" for a type list that allows an object', () => {
		const root = rootOf(dialect, {
			type: ['object', 'null'],
			properties: { a: { type: 'string' } },
		});
		expect(root.type).toBe(objectType(dialect));
	});

	it('refuses a schema that allows no object, naming the tool, before anything is sent', () => {
		expect(() => rootOf(dialect, { type: 'string' })).toThrow(
			`Tool 'tool' cannot be offered to a model: its input schema has type "string", and a tool's arguments are always an object.`,
		);
	});
});
