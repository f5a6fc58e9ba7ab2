import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpOAuth2ConnectionProperties, MCP_SERVER_ICON } from '../nodes/shared/mcpHttpProperties';

/**
 * An MCP server behind OAuth 2.1, signed in with n8n's Connect button. It extends n8n's own MCP
 * OAuth2 credential, whose server side discovers the authorization server from the MCP URL,
 * registers n8n as a client and signs in with PKCE; n8n keeps and renews the tokens.
 */
export class McpServerOAuth2Api implements ICredentialType {
	name = 'mcpServerOAuth2Api';

	extends = ['mcpOAuth2Api'];

	displayName = 'MCP Server (OAuth2)';

	icon = MCP_SERVER_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#remote-servers';

	properties: INodeProperties[] = [
		{
			displayName:
				'Needs n8n 1.119 or later (its MCP OAuth2 sign-in). On an older n8n, choose the connection "HTTP with OAuth2 (Endpoints by Hand)" in the node instead.',
			name: 'versionNotice',
			type: 'notice',
			default: '',
		},
		...mcpOAuth2ConnectionProperties(
			'The MCP endpoint. Connect finds its authorization server there (protected resource metadata), registers n8n as a client and signs you in with PKCE.',
		),
	];
}
