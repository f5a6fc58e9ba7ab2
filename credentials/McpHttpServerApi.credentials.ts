import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpTransportProperty, MCP_SERVER_ICON } from '../nodes/shared/mcpHttpProperties';
import { namedValuesProperty } from '../nodes/shared/namedValues';

export class McpHttpServerApi implements ICredentialType {
	name = 'mcpHttpServerApi';

	displayName = 'MCP Server (HTTP)';

	icon = MCP_SERVER_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.com/mcp',
			description: 'The MCP endpoint: the Streamable HTTP path, or the SSE path of a legacy server',
		},
		mcpTransportProperty,
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			default: 'none',
			options: [
				{ name: 'None', value: 'none' },
				{ name: 'Bearer Token', value: 'bearer' },
				{ name: 'Custom Headers', value: 'headers' },
			],
		},
		{
			displayName: 'Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authentication: ['bearer'] } },
			description: 'Sent as "Authorization: Bearer …" on every request',
		},
		namedValuesProperty({
			displayName: 'Headers',
			name: 'headers',
			entryName: 'header',
			entryDisplayName: 'Header',
			description: 'Sent on every request of every transport, values exactly as typed',
			displayOptions: { show: { authentication: ['headers'] } },
		}),
	];
}
