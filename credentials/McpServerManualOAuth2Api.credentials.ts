import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpOAuth2ConnectionProperties, MCP_SERVER_ICON } from '../nodes/shared/mcpHttpProperties';

/**
 * An MCP server behind OAuth 2.1 for an n8n without MCP OAuth2 sign-in: n8n's generic OAuth2
 * credential with PKCE, its authorization server's URLs and client entered by hand.
 */
export class McpServerManualOAuth2Api implements ICredentialType {
	name = 'mcpServerManualOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'MCP Server (OAuth2, Endpoints by Hand)';

	icon = MCP_SERVER_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#remote-servers';

	properties: INodeProperties[] = [
		// MCP authorization requires PKCE (OAuth 2.1).
		{ displayName: 'Grant Type', name: 'grantType', type: 'hidden', default: 'pkce' },
		...mcpOAuth2ConnectionProperties(
			"The MCP endpoint. The authorization and token URLs below are its authorization server's: its /.well-known/oauth-authorization-server lists them.",
		),
	];
}
