import type { AddClientAuthentication } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { clientAssertion, pemBody, signingKey, type SigningKey } from './jwt';
import { OAUTH_REQUEST_TIMEOUT_MS, TOKEN_EXCHANGE } from './trail';

/**
 * A grant that needs nobody at a browser. Client credentials: the client itself is authorized
 * (OAuth 2.1 section 4.2), by its secret (Basic or in the body, as the server's metadata says) or
 * by a JWT its private key signs (private_key_jwt, RFC 7523). Enterprise-managed: the user's
 * identity token from the company's identity provider is exchanged there for an identity
 * assertion (an ID-JAG, RFC 8693 token exchange), which the MCP server's authorization server
 * takes for a token (the JWT bearer grant, RFC 7523).
 */
export type MachineGrant = ClientCredentialsGrant | EnterpriseGrant;

export interface ClientCredentialsGrant {
	kind: 'clientCredentials';
	/** Sign a client assertion instead of sending a client secret. */
	privateKey?: { pem: string; algorithm: string };
}

export interface EnterpriseGrant {
	kind: 'enterprise';
	identityProvider: {
		/** The identity provider's token endpoint, where the identity token is exchanged. */
		tokenUrl: string;
		/** The client the identity token was issued to, at the identity provider. */
		clientId: string;
		clientSecret?: string;
	};
	/** The user's identity token (an OpenID Connect ID token), current: renewed by the caller when it expired. */
	idToken: () => Promise<string>;
}

const GRANT_TYPES = {
	clientCredentials: 'client_credentials',
	enterprise: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
} as const;

const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const JWT_CLIENT_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export function grantTypeOf(grant: MachineGrant): string {
	return GRANT_TYPES[grant.kind];
}

/** The token request of a grant: its type, the scope, and the identity assertion of an enterprise grant. */
export function machineTokenRequest(
	grant: MachineGrant,
	scope: string | undefined,
	assertion?: string,
): URLSearchParams {
	const params = new URLSearchParams({ grant_type: grantTypeOf(grant) });
	if (scope) params.set('scope', scope);
	if (assertion) params.set('assertion', assertion);
	return params;
}

/** The key a grant signs with, read once: a key that does not fit fails here, naming why. */
export function signingKeyOf(grant: MachineGrant): SigningKey | undefined {
	if (grant.kind !== 'clientCredentials' || !grant.privateKey) return undefined;
	return signingKey(grant.privateKey.pem, grant.privateKey.algorithm);
}

/** Values of a grant that must never be shown: a private key (with and without its armour), a client secret. */
export function grantSecrets(grant: MachineGrant): string[] {
	if (grant.kind === 'enterprise') {
		const secret = grant.identityProvider.clientSecret;
		return secret ? [secret] : [];
	}
	const pem = grant.privateKey?.pem.trim();
	return pem ? [pem, pemBody(pem)] : [];
}

/**
 * Client authentication by a signed assertion (private_key_jwt): its audience is the authorization
 * server's issuer, or its token endpoint where the metadata names none. `onAssertion` learns of
 * each one, to be hidden like a token.
 */
export function privateKeyJwtAuthentication(
	key: SigningKey,
	clientId: string,
	onAssertion: (assertion: string) => void,
): AddClientAuthentication {
	return (_headers, params, url, metadata) => {
		const assertion = clientAssertion(key, clientId, String(metadata?.issuer ?? url));
		onAssertion(assertion);
		params.set('client_assertion_type', JWT_CLIENT_ASSERTION);
		params.set('client_assertion', assertion);
	};
}

/** Where an identity assertion is meant for: the authorization server, for the MCP server as a resource. */
export interface AssertionTarget {
	/** The authorization server's issuer. */
	audience: string;
	/** The MCP server's resource identifier. */
	resource: string;
	scope?: string;
}

/**
 * Exchanges the user's identity token at the identity provider for an identity assertion for the
 * target (RFC 8693; the ID-JAG profile): the client authenticates with HTTP Basic when it has a
 * secret, by its ID in the body when not. Its failures are the trail's to describe (the request
 * goes through the session's fetch). `hold` learns of the tokens, to be hidden.
 */
export async function exchangeIdentityToken(
	grant: EnterpriseGrant,
	target: AssertionTarget,
	fetch: FetchLike,
	hold: (token: string) => void,
): Promise<string> {
	const { tokenUrl, clientId, clientSecret } = grant.identityProvider;
	const idToken = await grant.idToken();
	hold(idToken);
	const body = new URLSearchParams({
		grant_type: TOKEN_EXCHANGE,
		requested_token_type: ID_JAG,
		subject_token: idToken,
		subject_token_type: ID_TOKEN,
		audience: target.audience,
		resource: target.resource,
		...(target.scope && { scope: target.scope }),
	});
	const headers = new Headers({
		'Content-Type': 'application/x-www-form-urlencoded',
		Accept: 'application/json',
	});
	if (clientSecret) {
		const encode = (value: string) => encodeURIComponent(value);
		headers.set(
			'Authorization',
			`Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`,
		);
	} else body.set('client_id', clientId);
	const response = await fetch(tokenUrl, {
		method: 'POST',
		headers,
		body,
		signal: AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS),
	});
	const answer = (await response.json().catch(() => undefined)) as
		{ access_token?: unknown; issued_token_type?: unknown } | undefined;
	if (!response.ok || typeof answer?.access_token !== 'string') {
		throw new Error(
			`The identity provider did not exchange the identity token (HTTP ${response.status})`,
		);
	}
	if (answer.issued_token_type !== undefined && answer.issued_token_type !== ID_JAG) {
		throw new Error(
			`The identity provider issued a ${String(answer.issued_token_type)}, not an identity assertion (ID-JAG)`,
		);
	}
	hold(answer.access_token);
	return answer.access_token;
}
