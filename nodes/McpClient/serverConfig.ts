import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	RequestHelperFunctions,
} from 'n8n-workflow';
import {
	jwtExpiry,
	oauthSession,
	type EgressFilter,
	type HttpServerConfig,
	type HttpTransportMode,
	type McpServerConfig,
	type OAuthTokens,
	type StdioServerConfig,
} from '../../lib/mcp';
import { namedValuesToRecord } from '../shared/namedValues';
import { savedNode } from '../shared/parameters';

export type ConnectionType =
	'stdio' | 'http' | 'oauth2' | 'oauth2Manual' | 'clientCredentials' | 'enterprise';

/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- credential type names, not secrets */
export const CREDENTIAL_TYPES: Record<ConnectionType, string> = {
	stdio: 'mcpStdioServerApi',
	http: 'mcpHttpServerApi',
	oauth2: 'mcpServerOAuth2Api',
	oauth2Manual: 'mcpServerManualOAuth2Api',
	clientCredentials: 'mcpServerClientCredentialsOAuth2Api',
	enterprise: 'mcpServerEnterpriseOAuth2Api',
};
/* eslint-enable @n8n/community-nodes/no-hardcoded-secrets */

/** What n8n brings to a server configuration besides the credential's data. */
export interface CredentialHost {
	/** The credential's id: an OAuth2 authorization is known by it, its tokens change. */
	credentialId: string;
	/** Renews the OAuth2 tokens and saves them to the credential. */
	renew: () => Promise<OAuthTokens>;
	/** n8n's outbound policy (SSRF protection), where this n8n has one. */
	egress?: EgressFilter;
}

/** The node's credential as a server configuration, with n8n's token renewal and egress policy. */
export async function serverConfigFor(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	connectionType: ConnectionType,
): Promise<McpServerConfig> {
	const type = CREDENTIAL_TYPES[connectionType];
	const credentials = await context.getCredentials(type);
	const helpers = context.helpers as Partial<RequestHelperFunctions>;
	const refresh = helpers.refreshOAuth2Token;
	const host: CredentialHost = {
		credentialId: savedNode(context).credentials?.[type]?.id ?? type,
		renew: refresh
			? async () => (await refresh.call(context as IExecuteFunctions, type)) as OAuthTokens
			: () => Promise.reject(new Error(NO_RENEWAL)),
		egress: helpers.getSecureEgressFilter?.(),
	};
	return serverConfigFromCredentials(connectionType, credentials, host);
}

const NO_RENEWAL =
	'this n8n offers nodes no OAuth2 token renewal (helpers.refreshOAuth2Token); reconnect the credential when its token expires';

export function serverConfigFromCredentials(
	connectionType: ConnectionType,
	credentials: ICredentialDataDecryptedObject,
	host: CredentialHost,
): McpServerConfig {
	if (connectionType === 'stdio') return stdioConfig(credentials);
	if (connectionType === 'http') return { ...httpConfig(credentials), egress: host.egress };
	if (connectionType === 'clientCredentials') return clientCredentialsConfig(credentials, host);
	if (connectionType === 'enterprise') return enterpriseConfig(credentials, host);
	return oauthConfig(credentials, host);
}

/** The MCP endpoint, transport and extra headers every OAuth2 credential has. */
function oauthServer(credentials: ICredentialDataDecryptedObject, host: CredentialHost) {
	return {
		transport: 'http' as const,
		url: String(credentials.serverUrl ?? '').trim(),
		headers: namedValuesToRecord(credentials.headers, 'header'),
		mode: (credentials.transport as HttpTransportMode | undefined) ?? 'auto',
		egress: host.egress,
	};
}

const text = (value: unknown) => String(value ?? '').trim();

/**
 * Client credentials: the session gets the tokens and renews them itself, in this process; the
 * client proves itself by its secret or by a JWT its private key signs.
 */
function clientCredentialsConfig(
	credentials: ICredentialDataDecryptedObject,
	host: CredentialHost,
): HttpServerConfig {
	const byKey = credentials.clientAuthentication === 'privateKey';
	const issuer = text(credentials.authorizationServer);
	return {
		...oauthServer(credentials, host),
		oauth: oauthSession({
			id: host.credentialId,
			client: {
				client_id: text(credentials.clientId),
				...(!byKey && { client_secret: String(credentials.clientSecret ?? '') }),
				...(issuer && { issuer }),
			},
			grant: {
				kind: 'clientCredentials',
				...(byKey && {
					privateKey: {
						pem: String(credentials.privateKey ?? ''),
						algorithm: String(credentials.signingAlgorithm ?? 'RS256'),
					},
				}),
			},
			scope: text(credentials.scope) || undefined,
		}),
	};
}

/** An identity token that expires within this long is renewed before it is exchanged. */
const ID_TOKEN_MARGIN_MS = 60_000;

/**
 * Enterprise-managed: n8n keeps the sign-in at the identity provider (its OAuth2, whose answer
 * holds the ID token); the session exchanges the ID token for the MCP server's tokens itself.
 */
function enterpriseConfig(
	credentials: ICredentialDataDecryptedObject,
	host: CredentialHost,
): HttpServerConfig {
	const tokenData = connectedTokens(credentials);
	let idToken = tokenData.id_token;
	const clientSecret = String(credentials.mcpClientSecret ?? '');
	const idpSecret = String(credentials.clientSecret ?? '');
	return {
		...oauthServer(credentials, host),
		oauth: oauthSession({
			id: host.credentialId,
			client: {
				client_id: text(credentials.mcpClientId),
				...(clientSecret && { client_secret: clientSecret }),
			},
			grant: {
				kind: 'enterprise',
				identityProvider: {
					tokenUrl: text(credentials.accessTokenUrl),
					clientId: text(credentials.clientId),
					...(idpSecret && { clientSecret: idpSecret }),
				},
				idToken: async () => {
					if (typeof idToken !== 'string') throw new Error(NO_ID_TOKEN);
					const expiresAt = jwtExpiry(idToken) ?? Infinity;
					if (expiresAt - Date.now() > ID_TOKEN_MARGIN_MS) return idToken;
					idToken = await host.renew().then(
						(tokens) => tokens.id_token,
						(error: Error) => {
							throw new Error(`${SIGN_IN_NOT_RENEWED}: ${error.message}`, { cause: error });
						},
					);
					if (typeof idToken !== 'string') throw new Error(ID_TOKEN_NOT_RENEWED);
					return idToken;
				},
			},
			scope: text(credentials.mcpScope) || undefined,
		}),
	};
}

const NO_ID_TOKEN =
	'The identity provider gave no identity token (id_token) at sign-in: add "openid" to the Identity Provider Scope and connect the credential again';
const SIGN_IN_NOT_RENEWED =
	'Your identity token expired and the sign-in at the identity provider could not be renewed (connect the credential again)';
const ID_TOKEN_NOT_RENEWED =
	'Your identity token expired and the identity provider renewed the sign-in without a new one: connect the credential again (and keep "openid" and "offline_access" in its scope)';

function stdioConfig(credentials: ICredentialDataDecryptedObject): StdioServerConfig {
	const args =
		(credentials.arguments as { argument?: Array<{ value?: string }> } | undefined)?.argument ?? [];
	return {
		transport: 'stdio',
		command: String(credentials.command ?? '').trim(),
		args: args.map((argument) => argument.value ?? ''),
		env: namedValuesToRecord(credentials.environment, 'variable'),
		cwd: String(credentials.cwd ?? '').trim() || undefined,
	};
}

function httpConfig(credentials: ICredentialDataDecryptedObject): HttpServerConfig {
	const headers: Record<string, string> = {};
	if (credentials.authentication === 'bearer')
		headers.Authorization = `Bearer ${String(credentials.token ?? '').trim()}`;
	if (credentials.authentication === 'headers') {
		Object.assign(headers, namedValuesToRecord(credentials.headers, 'header'));
	}
	return {
		transport: 'http',
		url: String(credentials.url ?? '').trim(),
		headers,
		mode: (credentials.transport as HttpTransportMode | undefined) ?? 'auto',
	};
}

/** The credential is saved but was never connected: there is no token to send. */
export class NotConnectedError extends Error {
	constructor() {
		super(
			'The OAuth2 credential is not connected: open it and use "Connect my account" to sign in to the MCP server',
		);
		this.name = 'NotConnectedError';
	}
}

/** The token data n8n keeps after Connect; none: the credential was never connected. */
function connectedTokens(credentials: ICredentialDataDecryptedObject): IDataObject {
	const tokenData = credentials.oauthTokenData as IDataObject | undefined;
	if (typeof tokenData?.access_token !== 'string' || tokenData.access_token === '') {
		throw new NotConnectedError();
	}
	return tokenData;
}

/**
 * An OAuth2 credential as n8n keeps it after Connect: the MCP URL, the client n8n registered (or
 * the one entered) and `oauthTokenData`, the token endpoint's answer plus n8n's `n8n_expires_at`.
 */
function oauthConfig(
	credentials: ICredentialDataDecryptedObject,
	host: CredentialHost,
): HttpServerConfig {
	const tokenData = connectedTokens(credentials);
	const clientSecret = String(credentials.clientSecret ?? '');
	return {
		...oauthServer(credentials, host),
		oauth: oauthSession({
			id: host.credentialId,
			tokens: tokenData as unknown as OAuthTokens,
			expiresAt: Number(tokenData.n8n_expires_at) || undefined,
			client: {
				client_id: String(credentials.clientId ?? ''),
				...(clientSecret && { client_secret: clientSecret }),
			},
			scope: String(credentials.scope ?? '') || undefined,
			renew: host.renew,
		}),
	};
}
