import type { INodeProperties } from 'n8n-workflow';

/**
 * A picker for one of the server's tools, resources or prompts: from the live list (searchable),
 * or typed (expressions work there).
 */
export function serverItemLocator(options: {
	displayName: string;
	name: string;
	operation: string;
	searchListMethod: string;
	typed: { displayName: string; name: string; placeholder: string };
	description?: string;
}): INodeProperties {
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		displayOptions: { show: { operation: [options.operation] } },
		...(options.description && { description: options.description }),
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: options.searchListMethod, searchable: true },
			},
			{ ...options.typed, type: 'string' },
		],
	};
}
