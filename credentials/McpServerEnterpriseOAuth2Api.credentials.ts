import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpOAuth2ConnectionProperties, MCP_SERVER_ICON } from '../nodes/shared/mcpHttpProperties';

/**
 * An MCP server your company's identity provider grants access to (enterprise-managed
 * authorization, "cross-app access"). Connect signs you in at the identity provider once, with
 * n8n's OAuth2; from then on the node exchanges your identity token there for an identity
 * assertion (ID-JAG) and that at the MCP server's authorization server for a token, with nobody
 * present.
 */
export class McpServerEnterpriseOAuth2Api implements ICredentialType {
	name = 'mcpServerEnterpriseOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'MCP Server (Enterprise Sign-In, OAuth2)';

	icon = MCP_SERVER_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#remote-servers';

	properties: INodeProperties[] = [
		{
			displayName:
				"For MCP servers your company's identity provider (Okta, Microsoft Entra ID…) gives access to. Connect signs you in at the identity provider once; workflows then reach the MCP server on your behalf with nobody present.",
			name: 'enterpriseNotice',
			type: 'notice',
			default: '',
		},
		...mcpOAuth2ConnectionProperties(
			"The MCP endpoint. Its OAuth metadata names the authorization server your identity provider's assertion goes to.",
		),
		{
			displayName: 'MCP Client ID',
			name: 'mcpClientId',
			type: 'string',
			default: '',
			required: true,
			description: "This n8n's client ID at the MCP server's authorization server",
		},
		{
			displayName: 'MCP Client Secret',
			name: 'mcpClientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: "This n8n's client secret at the MCP server's authorization server",
		},
		{
			displayName: 'MCP Scope',
			name: 'mcpScope',
			type: 'string',
			default: '',
			description:
				'Space-separated scopes to ask the MCP server for. Empty: those it lists in its metadata, or none.',
		},
		{
			displayName:
				'Your identity provider: where Connect signs you in. Register n8n there as a web application with the OAuth Redirect URL above, allowed to exchange tokens for this MCP server.',
			name: 'identityProviderNotice',
			type: 'notice',
			default: '',
		},
		// The sign-in is a classic authorization code grant at the identity provider.
		{ displayName: 'Grant Type', name: 'grantType', type: 'hidden', default: 'authorizationCode' },
		{
			displayName: 'Identity Provider Authorization URL',
			name: 'authUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.okta.com/oauth2/v1/authorize',
		},
		{
			displayName: 'Identity Provider Token URL',
			name: 'accessTokenUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.okta.com/oauth2/v1/token',
			description: 'Used to sign in, and to exchange your identity token for the MCP server',
		},
		{
			displayName: 'Identity Provider Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
		},
		{
			displayName: 'Identity Provider Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Identity Provider Scope',
			name: 'scope',
			type: 'string',
			default: 'openid email profile offline_access',
			description:
				'Must hold openid (the identity token); offline_access keeps you signed in for unattended runs',
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
		{ displayName: 'Authentication', name: 'authentication', type: 'hidden', default: 'header' },
	];
}
