// The grants of oauth-server.mjs that need nobody at a browser, which the SDK's authorization
// server does not offer: client credentials (a client secret by Basic or in the body, or a
// private_key_jwt assertion checked with the client's public key), and enterprise-managed access:
// an identity provider (under /idp) that signs users in, exchanges their ID token for an ID-JAG
// (RFC 8693), which the token endpoint takes in the JWT bearer grant (RFC 7523).
import { constants, createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import express from 'express';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const VERIFY = {
	RS256: ['sha256', {}],
	PS256: [
		'sha256',
		{ padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
	],
	ES256: ['sha256', { dsaEncoding: 'ieee-p1363' }],
	ES384: ['sha384', { dsaEncoding: 'ieee-p1363' }],
	EdDSA: [null, {}],
};

/**
 * What the command line asks for: `--client-credentials ID:SECRET` (with `--token-auth basic|post`),
 * `--client-key ID=PUBLIC_KEY_FILE`, `--idp`. Undefined when none.
 */
export function machineGrantsOf(values) {
	const secret = values['client-credentials'];
	const keyed = values['client-key'];
	if (!secret && !keyed && !values.idp) return undefined;
	const [secretId, clientSecret] = secret ? splitOnce(secret, ':') : [];
	const [keyId, keyFile] = keyed ? splitOnce(keyed, '=') : [];
	return {
		secretClient: secretId && { id: secretId, secret: clientSecret },
		keyClient: keyId && { id: keyId, key: createPublicKey(readFileSync(keyFile, 'utf8')) },
		tokenAuth: values['token-auth'] === 'post' ? 'client_secret_post' : 'client_secret_basic',
		idp: values.idp,
	};
}

function splitOnce(text, separator) {
	const at = text.indexOf(separator);
	return [text.slice(0, at), text.slice(at + 1)];
}

/**
 * Routes on the authorization server, ahead of the SDK's: its metadata naming these grants, the
 * token endpoint for them, and the identity provider. `issue(clientId, scopes, resource)` makes
 * the tokens; `stats` counts each grant.
 */
export function machineGrantsRouter(grants, { issuer, defaultScopes, tokenSeconds, issue, stats }) {
	const router = express.Router();
	const idTokens = new Map();
	const assertions = new Map();
	const usedJtis = new Set();
	const methods = [
		...(grants.secretClient ? [grants.tokenAuth] : []),
		...(grants.keyClient ? ['private_key_jwt'] : []),
	];
	router.get('/.well-known/oauth-authorization-server', (_req, res) =>
		res.json({
			issuer: issuer.href,
			token_endpoint: new URL('token', issuer).href,
			authorization_endpoint: new URL('authorize', issuer).href,
			response_types_supported: ['code'],
			grant_types_supported: ['client_credentials', ...(grants.idp ? [JWT_BEARER] : [])],
			token_endpoint_auth_methods_supported: methods,
			token_endpoint_auth_signing_alg_values_supported: Object.keys(VERIFY),
			scopes_supported: defaultScopes,
		}),
	);
	const fail = (res, status, error, description) =>
		res.status(status).json({ error, error_description: description });
	router.post('/token', (req, res, next) => {
		const grantType = req.body?.grant_type;
		if (grantType !== 'client_credentials' && grantType !== JWT_BEARER) return next();
		const clientId = authenticate(req, grants, issuer, usedJtis);
		if (typeof clientId !== 'string') return fail(res, 401, 'invalid_client', clientId.why);
		const scopes = req.body.scope ? req.body.scope.split(' ') : defaultScopes;
		if (grantType === 'client_credentials') {
			stats.clientCredentials++;
			return res.json(withoutRefresh(issue(clientId, scopes, req.body.resource)));
		}
		const grant = assertions.get(req.body.assertion);
		assertions.delete(req.body.assertion);
		if (!grant || grant.clientId !== clientId || grant.audience !== issuer.href)
			return fail(res, 400, 'invalid_grant', 'Unknown, used or foreign identity assertion');
		stats.jwtBearer++;
		res.json(withoutRefresh(issue(clientId, scopes, grant.resource)));
	});
	if (grants.idp) {
		// Test-only: signs a user in at once, as a person at the identity provider's page would.
		router.post('/idp/sign-in', (_req, res) => {
			const idToken = fakeJwt({
				sub: 'ada@example.com',
				exp: Math.floor(Date.now() / 1000) + tokenSeconds,
			});
			idTokens.set(idToken, Date.now() + tokenSeconds * 1000);
			stats.signIns++;
			res.json({ id_token: idToken });
		});
		router.post('/idp/token', (req, res) => {
			const body = req.body ?? {};
			if (body.grant_type !== TOKEN_EXCHANGE || body.requested_token_type !== ID_JAG)
				return fail(res, 400, 'unsupported_grant_type', 'Only token exchange for an ID-JAG');
			const expiresAt = idTokens.get(body.subject_token);
			if (!expiresAt || expiresAt < Date.now())
				return fail(res, 400, 'invalid_grant', 'Unknown or expired ID token');
			if (!body.audience || !body.resource)
				return fail(res, 400, 'invalid_request', 'audience and resource are required');
			const jag = fakeJwt({ jti: randomUUID(), aud: body.audience, resource: body.resource });
			assertions.set(jag, {
				clientId: grants.secretClient?.id,
				audience: body.audience,
				resource: body.resource,
			});
			stats.tokenExchanges++;
			res.json({
				access_token: jag,
				issued_token_type: ID_JAG,
				token_type: 'N_A',
				expires_in: 300,
			});
		});
	}
	return router;
}

/** The client's ID when it proved itself as the metadata says; else why not. */
function authenticate(req, grants, issuer, usedJtis) {
	const { secretClient, keyClient, tokenAuth } = grants;
	if (req.body.client_assertion_type === ASSERTION_TYPE && keyClient)
		return checkAssertion(req.body.client_assertion, keyClient, issuer, usedJtis);
	if (!secretClient) return { why: 'This client must sign a client assertion' };
	const header = req.headers.authorization ?? '';
	let given;
	if (tokenAuth === 'client_secret_basic' && header.startsWith('Basic ')) {
		const decoded = Buffer.from(header.slice(6), 'base64').toString();
		given = splitOnce(decoded, ':').map(decodeURIComponent);
	} else if (tokenAuth === 'client_secret_post' && !header) {
		given = [req.body.client_id, req.body.client_secret];
	} else return { why: `Authenticate with ${tokenAuth}` };
	if (given[0] !== secretClient.id || given[1] !== secretClient.secret)
		return { why: 'Invalid client credentials' };
	return secretClient.id;
}

function checkAssertion(assertion, client, issuer, usedJtis) {
	const [header, payload, signature] = String(assertion).split('.');
	const { alg } = JSON.parse(Buffer.from(header, 'base64url').toString());
	const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
	const [hash, options] = VERIFY[alg] ?? [];
	if (options === undefined) return { why: `Unsupported alg ${alg}` };
	const signed = verify(
		hash,
		Buffer.from(`${header}.${payload}`),
		{ key: client.key, ...options },
		Buffer.from(signature, 'base64url'),
	);
	if (!signed) return { why: 'The client assertion signature does not verify' };
	if (claims.iss !== client.id || claims.sub !== client.id) return { why: 'Wrong iss or sub' };
	if (claims.aud !== issuer.href) return { why: `Wrong audience ${claims.aud}` };
	if (!(claims.exp * 1000 > Date.now())) return { why: 'The client assertion expired' };
	if (usedJtis.has(claims.jti)) return { why: 'The client assertion was used before' };
	usedJtis.add(claims.jti);
	return client.id;
}

function withoutRefresh({ refresh_token: _refresh, ...tokens }) {
	return tokens;
}

/** A token shaped as a JWT whose signature nobody checks here (the identity provider keeps what it issued). */
function fakeJwt(claims) {
	const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
	return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.${randomBytes(16).toString('base64url')}`;
}
