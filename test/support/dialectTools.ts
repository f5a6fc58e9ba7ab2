import type { Tool } from '../../lib/conversation/types';

/**
 * Tools the dialect tests share: an MCP tool whose dotted name every vendor but Gemini must have
 * mapped, and an echo in the two forms a server may list it (no schema at all, or a text property).
 */
export const weather: Tool = {
	name: 'weather.get',
	description: 'Current weather',
	inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
	server: 'weather',
	mcpName: 'weather.get',
	annotations: { readOnlyHint: true },
	outputSchema: { type: 'object' },
};

/** The same tool with an optional enum, which strict mode must make nullable and required. */
export const weatherWithUnit: Tool = {
	...weather,
	inputSchema: {
		type: 'object',
		properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['C', 'F'] } },
		required: ['city'],
	},
};

export const echoWithoutSchema: Tool = { name: 'echo', title: 'Echo back', inputSchema: {} };

export const echoText: Tool = {
	name: 'echo',
	inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

/** A schema strict mode cannot close: it allows properties it does not name. */
export const loose: Tool = {
	name: 'loose',
	inputSchema: {
		type: 'object',
		properties: { meta: { type: 'object' } },
		additionalProperties: true,
	},
};
