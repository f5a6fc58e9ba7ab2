import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { namedValuesProperty } from '../nodes/shared/namedValues';
import { MCP_SERVER_ICON } from '../nodes/shared/mcpHttpProperties';

export class McpStdioServerApi implements ICredentialType {
	name = 'mcpStdioServerApi';

	displayName = 'MCP Server (Command Line)';

	icon = MCP_SERVER_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Command',
			name: 'command',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'npx',
			description: 'The program that starts the MCP server. It runs on the n8n machine.',
		},
		{
			displayName: 'Arguments',
			name: 'arguments',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			default: {},
			placeholder: 'Add Argument',
			description: 'One entry per argument, passed as they are: no shell splitting or quoting',
			options: [
				{
					displayName: 'Argument',
					name: 'argument',
					values: [{ displayName: 'Value', name: 'value', type: 'string', default: '' }],
				},
			],
		},
		namedValuesProperty({
			displayName: 'Environment Variables',
			name: 'environment',
			entryName: 'variable',
			entryDisplayName: 'Variable',
			description:
				"The server's whole environment besides PATH: none of n8n's own variables are passed on. Add HOME here if the server needs it.",
		}),
		{
			displayName: 'Working Folder',
			name: 'cwd',
			type: 'string',
			default: '',
			placeholder: '/home/node/mcp',
			description: 'Folder the server starts in. Empty: the folder n8n runs in.',
		},
	];
}
