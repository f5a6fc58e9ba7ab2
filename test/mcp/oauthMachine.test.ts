import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
	ConnectionPool,
	oauthSession,
	secretsOf,
	type HttpServerConfig,
	type MachineGrant,
	type OAuthClientInformationMixed,
} from '../../lib/mcp';
import { startOAuthServer, stopOAuthServers, type OAuthServerHandle } from '../support/oauthServer';

/** Authorization with nobody present, against test/servers/oauth-server.mjs's machine grants. */
const pools: ConnectionPool[] = [];
afterAll(async () => {
	await Promise.all(pools.map((pool) => pool.closeAll()));
	await stopOAuthServers();
});

const CLIENT = { client_id: 'nightly-report', client_secret: 'cs-7f3a9e1c5b2d' };
const keyDir = mkdtempSync(path.join(os.tmpdir(), 'client-keys-'));

/** A key pair: the private key as PEM, the public key in a file for the server. */
function keyPair(type: 'ec' | 'rsa' | 'ed25519', file: string) {
	const { privateKey, publicKey } =
		type === 'ec'
			? generateKeyPairSync('ec', { namedCurve: 'P-256' })
			: type === 'rsa'
				? generateKeyPairSync('rsa', { modulusLength: 2048 })
				: generateKeyPairSync('ed25519');
	const publicFile = path.join(keyDir, file);
	writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
	return { pem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicFile };
}

function machineConfig(
	server: OAuthServerHandle,
	grant: MachineGrant,
	client: OAuthClientInformationMixed = CLIENT,
): HttpServerConfig {
	return {
		transport: 'http',
		url: server.mcp,
		headers: {},
		mode: 'streamableHttp',
		oauth: oauthSession({ id: randomUUID(), client, grant }),
	};
}

async function whoami(config: HttpServerConfig): Promise<{ clientId: string; scopes: string[] }> {
	const pool = new ConnectionPool({ maxSize: 2, idleTimeoutMs: 60_000, connectTimeoutMs: 20_000 });
	pools.push(pool);
	const result = await pool.use(config, (connection) =>
		connection.callTool('whoami', {}, { timeoutMs: 10_000 }),
	);
	return JSON.parse((result.content as Array<{ text: string }>)[0].text);
}

const clientSecretServer = (tokenAuth: 'basic' | 'post', extra: string[] = []) =>
	startOAuthServer([
		'--client-credentials',
		`${CLIENT.client_id}:${CLIENT.client_secret}`,
		'--token-auth',
		tokenAuth,
		...extra,
	]);

describe('client credentials with a client secret', () => {
	it.each(['basic', 'post'] as const)(
		'gets a token with the secret sent as the metadata says (%s), nobody signing in',
		async (tokenAuth) => {
			const server = await clientSecretServer(tokenAuth);
			const config = machineConfig(server, { kind: 'clientCredentials' });
			expect(await whoami(config)).toEqual({ clientId: CLIENT.client_id, scopes: ['mcp:tools'] });
			expect(await server.stats()).toMatchObject({
				clientCredentials: 1,
				registrations: 0,
				authorizations: 0,
			});
		},
	);

	it('asks for a new token shortly before the old one expires, with no person and no 401', async () => {
		const server = await clientSecretServer('basic', ['--token-seconds', '3']);
		const config = machineConfig(server, { kind: 'clientCredentials' });
		await whoami(config);
		// The first connection's first request went without a token and was refused (401).
		const firstRequests = (await server.stats()).mcpRequests;
		// The margin is a quarter of a 3 s token's life: at 2.4 s the token still holds, and is renewed.
		await new Promise((resolve) => setTimeout(resolve, 2_400));
		await whoami(config);
		const stats = await server.stats();
		expect(stats.clientCredentials).toBe(2);
		// The second connection sent the same requests with the new token, none refused first.
		expect(stats.mcpRequests - firstRequests).toBe(firstRequests - 1);
	});

	it('names the token step and what to check when the secret is wrong, without the secret', async () => {
		const server = await clientSecretServer('basic');
		const wrong = { ...CLIENT, client_secret: 'cs-wrong-0b8d4f' };
		const config = machineConfig(server, { kind: 'clientCredentials' }, wrong);
		const failure = await whoami(config).then(
			() => new Error('no failure'),
			(error: Error) => error,
		);
		expect(failure.message).toMatch(
			/^OAuth token failed: http:\/\/127\.0\.0\.1:\d+\/token answered HTTP 401: invalid_client \(Invalid client credentials\)\..* The authorization server granted no token for the client credentials: check the client ID, its secret or private key/,
		);
		expect(failure.message).not.toContain('cs-wrong-0b8d4f');
	});
});

describe('client credentials with a private key (private_key_jwt)', () => {
	it.each([
		['ES256', 'ec'],
		['RS256', 'rsa'],
		['PS256', 'rsa'],
		['EdDSA', 'ed25519'],
	] as const)('signs the client assertion with %s', async (algorithm, type) => {
		const { pem, publicFile } = keyPair(type, `${algorithm}.pem`);
		const server = await startOAuthServer(['--client-key', `${CLIENT.client_id}=${publicFile}`]);
		const config = machineConfig(
			server,
			{ kind: 'clientCredentials', privateKey: { pem, algorithm } },
			{ client_id: CLIENT.client_id },
		);
		expect((await whoami(config)).clientId).toBe(CLIENT.client_id);
		// The key is a secret with and without its armour.
		const secrets = secretsOf(config);
		expect(secrets).toContain(pem.trim());
		expect(
			secrets.some((secret) => pem.includes(secret.slice(0, 64)) && !secret.includes('-')),
		).toBe(true);
	});

	it('fails with the server saying why when the key is not the registered one', async () => {
		const registered = keyPair('ec', 'registered.pem');
		const other = keyPair('ec', 'other.pem');
		const server = await startOAuthServer([
			'--client-key',
			`${CLIENT.client_id}=${registered.publicFile}`,
		]);
		const config = machineConfig(
			server,
			{ kind: 'clientCredentials', privateKey: { pem: other.pem, algorithm: 'ES256' } },
			{ client_id: CLIENT.client_id },
		);
		await expect(whoami(config)).rejects.toThrow(
			/^OAuth token failed: .*answered HTTP 401: invalid_client \(The client assertion signature does not verify\)/,
		);
	});

	it.each([
		['not a key', 'ES256', /^The private key could not be read: paste it whole as PEM/],
		['rsa', 'ES256', /^The private key is an RSA key, which cannot sign ES256/],
		['ec', 'RS256', /^The private key is an EC \(prime256v1\) key, which cannot sign RS256/],
		['ec', 'HS256', /^The signing algorithm "HS256" is not one of RS256/],
	] as const)(
		'refuses a key (%s) that cannot sign %s before any request',
		(key, algorithm, error) => {
			const pem =
				key === 'not a key' ? 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' : keyPair(key, 'x.pem').pem;
			const failure = (() => {
				try {
					oauthSession({
						id: randomUUID(),
						client: { client_id: 'c' },
						grant: { kind: 'clientCredentials', privateKey: { pem, algorithm } },
					});
				} catch (error) {
					return error as Error;
				}
				return new Error('no failure');
			})();
			expect(failure.message).toMatch(error);
			expect(failure.message).not.toContain(pem.slice(30, 60));
		},
	);
});

describe('enterprise-managed authorization (identity token → ID-JAG → token)', () => {
	async function signIn(server: OAuthServerHandle): Promise<string> {
		const answer = await fetch(new URL('sign-in', server.idp), { method: 'POST' });
		return ((await answer.json()) as { id_token: string }).id_token;
	}

	function enterprise(server: OAuthServerHandle, idToken: () => Promise<string>): MachineGrant {
		return {
			kind: 'enterprise',
			identityProvider: { tokenUrl: new URL('token', server.idp).href, clientId: 'n8n-at-idp' },
			idToken,
		};
	}

	it('exchanges the identity token at the identity provider, then the assertion for a token', async () => {
		const server = await clientSecretServer('basic', ['--idp']);
		const idToken = await signIn(server);
		const config = machineConfig(
			server,
			enterprise(server, async () => idToken),
		);
		expect((await whoami(config)).clientId).toBe(CLIENT.client_id);
		expect(await server.stats()).toMatchObject({
			tokenExchanges: 1,
			jwtBearer: 1,
			authorizations: 0,
		});
		// The identity token and the assertion are secrets from then on.
		expect(secretsOf(config)).toContain(idToken);
	});

	it('asks for a current identity token at each renewal', async () => {
		const server = await clientSecretServer('basic', ['--idp', '--token-seconds', '3']);
		let asked = 0;
		const config = machineConfig(
			server,
			enterprise(server, () => {
				asked++;
				return signIn(server);
			}),
		);
		await whoami(config);
		await new Promise((resolve) => setTimeout(resolve, 2_400));
		await whoami(config);
		expect(asked).toBe(2);
		expect(await server.stats()).toMatchObject({ tokenExchanges: 2, jwtBearer: 2 });
	});

	it('names the token exchange and what to check when the identity provider refuses', async () => {
		const server = await clientSecretServer('basic', ['--idp']);
		const config = machineConfig(
			server,
			enterprise(server, async () => 'eyJ.revoked.token'),
		);
		await expect(whoami(config)).rejects.toThrow(
			/^OAuth token exchange failed: http:\/\/127\.0\.0\.1:\d+\/idp\/token answered HTTP 400: invalid_grant \(Unknown or expired ID token\)\..*The identity provider did not exchange your identity token/,
		);
	});
});
