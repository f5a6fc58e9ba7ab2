import type { Icon, INodeProperties } from 'n8n-workflow';
import { namedValuesProperty } from './namedValues';

/** The MCP Client node's icon, which every MCP server credential shows. */
export const MCP_SERVER_ICON: Icon = {
	light: 'file:../nodes/McpClient/mcp.svg',
	dark: 'file:../nodes/McpClient/mcp.dark.svg',
};

/** The transport choice every MCP-over-HTTP credential offers. */
export const mcpTransportProperty: INodeProperties = {
	displayName: 'Transport',
	name: 'transport',
	type: 'options',
	default: 'auto',
	options: [
		{
			name: 'Automatic',
			value: 'auto',
			description: 'Streamable HTTP, falling back to SSE when the server does not speak it',
		},
		{ name: 'Streamable HTTP', value: 'streamableHttp' },
		{ name: 'Server-Sent Events (Legacy)', value: 'sse' },
	],
};

/**
 * The connection of an OAuth2 credential: the MCP endpoint as n8n's own `serverUrl` (which its
 * Connect button discovers from), the transport, and headers sent besides the token.
 */
export function mcpOAuth2ConnectionProperties(serverUrlHelp: string): INodeProperties[] {
	return [
		{
			displayName: 'MCP Server URL',
			name: 'serverUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.com/mcp',
			description: serverUrlHelp,
		},
		mcpTransportProperty,
		namedValuesProperty({
			displayName: 'Extra Headers',
			name: 'headers',
			entryName: 'header',
			entryDisplayName: 'Header',
			description:
				'Sent on every request to the MCP server besides the OAuth token, values exactly as typed',
		}),
	];
}
