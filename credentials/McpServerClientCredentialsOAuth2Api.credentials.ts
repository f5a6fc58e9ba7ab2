import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { mcpOAuth2ConnectionProperties, MCP_SERVER_ICON } from '../nodes/shared/mcpHttpProperties';

/**
 * An MCP server whose authorization server grants tokens to a client on its own (OAuth client
 * credentials): no person signs in, so scheduled and webhook workflows can use it. The node gets
 * the tokens itself, from the authorization server the MCP URL names, and renews them before they
 * expire.
 */
export class McpServerClientCredentialsOAuth2Api implements ICredentialType {
	name = 'mcpServerClientCredentialsOAuth2Api';

	displayName = 'MCP Server (OAuth2 Client Credentials)';

	icon = MCP_SERVER_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#remote-servers';

	properties: INodeProperties[] = [
		{
			displayName:
				'For servers that give a registered client (a service account) its own access: nobody signs in. The client ID and its secret or key come from whoever runs the authorization server.',
			name: 'clientCredentialsNotice',
			type: 'notice',
			default: '',
		},
		...mcpOAuth2ConnectionProperties(
			'The MCP endpoint. Its OAuth metadata (/.well-known/oauth-protected-resource) names the authorization server the client credentials go to.',
		),
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
		},
		{
			displayName: 'Client Authentication',
			name: 'clientAuthentication',
			type: 'options',
			default: 'clientSecret',
			options: [
				{
					name: 'Client Secret',
					value: 'clientSecret',
					description:
						"Sent by HTTP Basic or in the request body, as the authorization server's metadata says",
				},
				{
					name: 'Private Key (Signed JWT)',
					value: 'privateKey',
					description:
						'Each token request carries a short-lived JWT the key signs (private_key_jwt); the authorization server holds the public key',
				},
			],
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { clientAuthentication: ['clientSecret'] } },
		},
		{
			displayName: 'Private Key',
			name: 'privateKey',
			type: 'string',
			typeOptions: { password: true, rows: 5 },
			default: '',
			placeholder: '-----BEGIN PRIVATE KEY-----',
			displayOptions: { show: { clientAuthentication: ['privateKey'] } },
			description: 'The PEM text, from its BEGIN line to its END line (not encrypted)',
		},
		{
			displayName: 'Signing Algorithm',
			name: 'signingAlgorithm',
			type: 'options',
			default: 'RS256',
			displayOptions: { show: { clientAuthentication: ['privateKey'] } },
			options: [
				{ name: 'RS256 (RSA Key)', value: 'RS256' },
				{ name: 'RS384 (RSA Key)', value: 'RS384' },
				{ name: 'RS512 (RSA Key)', value: 'RS512' },
				{ name: 'PS256 (RSA Key)', value: 'PS256' },
				{ name: 'ES256 (P-256 Key)', value: 'ES256' },
				{ name: 'ES384 (P-384 Key)', value: 'ES384' },
				{ name: 'EdDSA (Ed25519 Key)', value: 'EdDSA' },
			],
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: '',
			description:
				'Space-separated scopes to ask for. Empty: those the MCP server lists in its metadata, or none.',
		},
		{
			displayName: 'Authorization Server',
			name: 'authorizationServer',
			type: 'string',
			default: '',
			placeholder: 'https://auth.example.com',
			description:
				'The issuer URL the client is registered with. When set, the client credentials go there only, and a server that names another authorization server is refused. Empty: the one the MCP server names.',
		},
	];
}
