import { randomUUID } from 'node:crypto';
import { ClientOAuth2 } from '@n8n/client-oauth2';
import {
	ConnectionPool,
	configKey,
	oauthSession,
	secretsOf,
	type HttpServerConfig,
} from '../../lib/mcp';
import type { OAuthOptions, OAuthTokens } from '../../lib/mcp';
import { headlessAuthorize } from '../support/headlessAuthorize';
import {
	authorizeHeadlessly,
	N8N_CALLBACK,
	startOAuthServer,
	stopOAuthServers,
	type OAuthServerHandle,
} from '../support/oauthServer';

const pools: ConnectionPool[] = [];
function newPool(connectTimeoutMs = 20_000): ConnectionPool {
	const pool = new ConnectionPool({ maxSize: 4, idleTimeoutMs: 60_000, connectTimeoutMs });
	pools.push(pool);
	return pool;
}
afterAll(async () => {
	await Promise.all(pools.map((pool) => pool.closeAll()));
	await stopOAuthServers();
});

function httpConfig(url: string, options: Partial<OAuthOptions> = {}): HttpServerConfig {
	return {
		transport: 'http',
		url,
		headers: {},
		mode: 'streamableHttp',
		oauth: oauthSession({ id: randomUUID(), redirectUrl: N8N_CALLBACK, ...options }),
	};
}

const textOf = (result: { content: unknown }) =>
	(result.content as Array<{ type: string; text: string }>)[0].text;

/** What n8n holds after its Connect button: a registered client and tokens, from a headless authorization. */
const connectedCredential = authorizeHeadlessly;

/**
 * How long the renewal tests' tokens live: short, so that they expire within a test, and long
 * enough that a renewed token still lives when a loaded machine gets to send it.
 */
const TOKEN_SECONDS = 3;
/** A wait past a token's lifetime. */
const pastExpiry = () => new Promise((resolve) => setTimeout(resolve, TOKEN_SECONDS * 1000 + 100));

/**
 * Connects, waits past the server's token lifetime, then makes `count` calls at once: their
 * answers, and how many refreshes the server saw meanwhile.
 */
async function callsAfterExpiry(
	server: OAuthServerHandle,
	config: HttpServerConfig,
	count: number,
) {
	const pool = newPool();
	await pool.use(config, (connection) => connection.listTools());
	await pastExpiry();
	const before = await server.stats();
	const results = await pool.use(config, (connection) =>
		Promise.all(
			Array.from({ length: count }, (_, index) =>
				connection.callTool('echo', { text: `call ${index}` }, { timeoutMs: 10_000 }),
			),
		),
	);
	return {
		texts: results.map(textOf),
		refreshes: (await server.stats()).refreshes - before.refreshes,
	};
}

describe('OAuth 2.1 against a protected MCP server', () => {
	let server: OAuthServerHandle;
	beforeAll(async () => {
		server = await startOAuthServer(['--write-scope', 'mcp:write']);
	});

	it('discovers, registers, authorizes with PKCE and calls, handing the tokens and client back', async () => {
		const handed: OAuthTokens[] = [];
		const config = httpConfig(server.mcp, {
			authorize: headlessAuthorize,
			onTokens: (tokens) => void handed.push(tokens),
		});
		const pool = newPool();
		const result = await pool.use(config, async (connection) => {
			expect((await connection.listTools()).map((tool) => tool.name)).toContain('whoami');
			return connection.callTool('whoami', {}, { timeoutMs: 5_000 });
		});
		expect(JSON.parse(textOf(result))).toMatchObject({ scopes: ['mcp:tools'] });
		expect(handed).toHaveLength(1);
		expect(handed[0]).toMatchObject({ token_type: 'bearer', refresh_token: expect.any(String) });
		const secrets = secretsOf(config);
		expect(secrets).toEqual(
			expect.arrayContaining([handed[0].access_token, handed[0].refresh_token]),
		);
	});

	it('uses stored tokens without a new authorization, as n8n hands them over', async () => {
		const stored = await connectedCredential(server);
		const before = await server.stats();
		const config = httpConfig(server.mcp, { tokens: stored.tokens, client: stored.client });
		const pool = newPool();
		await pool.use(config, (connection) =>
			connection.callTool('echo', { text: 'hi' }, { timeoutMs: 5_000 }),
		);
		const after = await server.stats();
		expect(after.authorizations).toBe(before.authorizations);
		expect(after.registrations).toBe(before.registrations);
		expect(secretsOf(config)).toEqual(expect.arrayContaining([stored.client.client_secret]));
	});

	it('names the scope a 403 insufficient_scope asks for, when nobody can authorize again', async () => {
		const stored = await connectedCredential(server);
		const config = httpConfig(server.mcp, { tokens: stored.tokens, client: stored.client });
		const pool = newPool();
		const failure = pool.use(config, (connection) =>
			connection.callTool('write', {}, { timeoutMs: 5_000 }),
		);
		await expect(failure).rejects.toThrow(
			/needs a new OAuth authorization with scope "mcp:tools mcp:write": reconnect the credential and grant that scope/,
		);
		const message = await failure.catch((error: Error) => error.message);
		for (const secret of secretsOf(config)) expect(message).not.toContain(secret);
	});

	it('steps up to the scope a call needs when it can authorize again', async () => {
		const config = httpConfig(server.mcp, { authorize: headlessAuthorize });
		const pool = newPool();
		const result = await pool.use(config, (connection) =>
			connection.callTool('write', {}, { timeoutMs: 5_000 }),
		);
		expect(textOf(result)).toBe('written');
	});

	it('sends the token on the legacy SSE transport too', async () => {
		const stored = await connectedCredential(server);
		const config = {
			...httpConfig(server.sse, { tokens: stored.tokens, client: stored.client }),
			mode: 'sse' as const,
		};
		const pool = newPool();
		const result = await pool.use(config, (connection) =>
			connection.callTool('echo', { text: 'over sse' }, { timeoutMs: 5_000 }),
		);
		expect(textOf(result)).toBe('over sse');
	});

	it('over the legacy SSE transport, tells a refused message as the server refused it, not as an OAuth step', async () => {
		const stored = await connectedCredential(server);
		const config = {
			...httpConfig(server.sse, { tokens: stored.tokens, client: stored.client }),
			mode: 'sse' as const,
		};
		const pool = newPool();
		const before = await server.stats();
		const failure = pool.use(config, (connection) =>
			connection.callTool('write', {}, { timeoutMs: 5_000 }),
		);
		// The SDK's SSE transport does not step up on a 403 as Streamable HTTP does.
		await expect(failure).rejects.toThrow(
			'The MCP server refused the request for lack of OAuth scope (insufficient_scope): it needs "mcp:tools mcp:write". Reconnect the credential with that scope.',
		);
		expect((await server.stats()).registrations).toBe(before.registrations);
	});

	it('hides the client secret however many times the tokens were renewed', async () => {
		const client = { client_id: 'client-1', client_secret: 'client-secret-7c1e' };
		const options = {
			id: randomUUID(),
			client,
			tokens: { access_token: 'a0', token_type: 'Bearer' },
		};
		const session = oauthSession(options);
		for (let renewal = 1; renewal <= 40; renewal++)
			await session.saveTokens({
				access_token: `a${renewal}`,
				refresh_token: `r${renewal}`,
				id_token: `i${renewal}`,
				token_type: 'Bearer',
				expires_in: 3600,
			});
		// The next execution hands the same credential again.
		oauthSession({ ...options, tokens: { access_token: 'a40', token_type: 'Bearer' } });
		expect(session.secrets()).toEqual(expect.arrayContaining([client.client_secret, 'a40', 'r40']));
		// Tokens long replaced are let go.
		expect(session.secrets()).not.toContain('a1');
	});

	it('keys the pool on the authorization, not on its current token', () => {
		const id = randomUUID();
		const first = httpConfig(server.mcp, {
			id,
			tokens: { access_token: 'first-token', token_type: 'bearer' },
		});
		const second = httpConfig(server.mcp, {
			id,
			tokens: { access_token: 'second-token', token_type: 'bearer' },
		});
		expect(first.oauth).toBe(second.oauth);
		expect(configKey(first)).toBe(configKey(second));
		expect(configKey(first)).not.toBe(configKey(httpConfig(server.mcp)));
		expect(secretsOf(second)).toEqual(expect.arrayContaining(['first-token', 'second-token']));
	});
});

describe('OAuth token renewal', () => {
	let server: OAuthServerHandle;
	beforeAll(async () => {
		server = await startOAuthServer(['--token-seconds', String(TOKEN_SECONDS)]);
	});

	it('renews a token about to expire before using it, on the same connection, and hands the new tokens back', async () => {
		const handed: OAuthTokens[] = [];
		const config = httpConfig(server.mcp, {
			authorize: headlessAuthorize,
			onTokens: (tokens) => void handed.push(tokens),
		});
		const pool = newPool();
		const call = () =>
			pool.use(config, async (connection) => ({
				connection,
				result: await connection.callTool('echo', { text: 'again' }, { timeoutMs: 5_000 }),
			}));
		const first = await call();
		await pastExpiry();
		const second = await call();
		expect(second.connection).toBe(first.connection);
		expect(textOf(second.result)).toBe('again');
		expect(handed).toHaveLength(2);
		expect(handed[1].access_token).not.toBe(handed[0].access_token);
		expect(secretsOf(config)).toEqual(expect.arrayContaining([handed[1].access_token]));
		expect(pool.size).toBe(1);
	});

	it('renews once when the server refuses an expired token to many calls at once', async () => {
		const stored = await connectedCredential(server);
		const handed: OAuthTokens[] = [];
		// No expiry known (n8n keeps the token endpoint's answer as it came): the server's 401 says it.
		const config = httpConfig(server.mcp, {
			tokens: stored.tokens,
			client: stored.client,
			onTokens: (tokens) => void handed.push(tokens),
		});
		const { texts, refreshes } = await callsAfterExpiry(server, config, 5);
		expect(texts).toEqual(['call 0', 'call 1', 'call 2', 'call 3', 'call 4']);
		expect(refreshes).toBe(1);
		expect(new Set(handed.map((tokens) => tokens.access_token)).size).toBe(1);
	});
});

/** What n8n's refresh helper does for the session: a refresh grant at the token endpoint, by the caller. */
async function refreshAtTokenEndpoint(
	server: OAuthServerHandle,
	client: NonNullable<OAuthOptions['client']>,
	refreshToken: string,
): Promise<OAuthTokens> {
	const response = await fetch(new URL('token', server.issuer), {
		method: 'POST',
		body: new URLSearchParams({
			grant_type: 'refresh_token',
			refresh_token: refreshToken,
			client_id: client.client_id,
			client_secret: client.client_secret ?? '',
		}),
	});
	if (!response.ok) throw new Error(`refresh answered ${response.status}`);
	return (await response.json()) as OAuthTokens;
}

describe('OAuth token renewal through the caller', () => {
	let server: OAuthServerHandle;
	beforeAll(async () => {
		server = await startOAuthServer(['--token-seconds', String(TOKEN_SECONDS)]);
	});

	/** A credential whose renewals the caller makes, counted; the session never refreshes on its own. */
	async function renewedByCaller(expiresAt?: number) {
		const stored = await connectedCredential(server);
		let current = stored.tokens;
		const renewals: OAuthTokens[] = [];
		const config = httpConfig(server.mcp, {
			tokens: stored.tokens,
			client: stored.client,
			expiresAt,
			renew: async () => {
				current = await refreshAtTokenEndpoint(server, stored.client, current.refresh_token!);
				renewals.push(current);
				return current;
			},
		});
		return { config, renewals };
	}

	const echo = (config: HttpServerConfig, pool: ConnectionPool) =>
		pool.use(config, (connection) =>
			connection.callTool('echo', { text: 'renewed' }, { timeoutMs: 5_000 }),
		);

	it('renews a token about to expire through the caller, not at the token endpoint itself', async () => {
		const { config, renewals } = await renewedByCaller(Date.now() + TOKEN_SECONDS * 1000);
		const pool = newPool();
		const before = await server.stats();
		// Within the last quarter of its lifetime, where renewal starts, and not past it.
		await new Promise((resolve) => setTimeout(resolve, TOKEN_SECONDS * 1000 - 400));
		expect(textOf(await echo(config, pool))).toBe('renewed');
		expect(renewals).toHaveLength(1);
		expect((await server.stats()).refreshes - before.refreshes).toBe(1);
		expect(secretsOf(config)).toEqual(expect.arrayContaining([renewals[0].access_token]));
	});

	it('renews through the caller once when the server refuses an expired token', async () => {
		const { config, renewals } = await renewedByCaller();
		const { texts, refreshes } = await callsAfterExpiry(server, config, 3);
		expect(texts).toEqual(['call 0', 'call 1', 'call 2']);
		expect(renewals).toHaveLength(1);
		expect(refreshes).toBe(1);
	});

	it('renews again when the renewed token expires in turn a few seconds later', async () => {
		const { config, renewals } = await renewedByCaller();
		const pool = newPool();
		await pool.use(config, (connection) => connection.listTools());
		const before = await server.stats();
		for (const round of [1, 2]) {
			await pastExpiry();
			expect(textOf(await echo(config, pool))).toBe('renewed');
			expect(renewals).toHaveLength(round);
		}
		expect((await server.stats()).refreshes - before.refreshes).toBe(2);
	});

	it("a renewal the caller refuses names the refresh step with the caller's reason", async () => {
		const stored = await connectedCredential(server);
		await pastExpiry();
		const before = await server.stats();
		const config = httpConfig(server.mcp, {
			tokens: stored.tokens,
			client: stored.client,
			renew: () => Promise.reject(new Error('The credential "Remote" needs to be reconnected.')),
		});
		const failure = newPool().use(config, (connection) => connection.listTools());
		await expect(failure).rejects.toThrow(
			/^OAuth refresh failed: .*\/token could not be renewed through the credential: The credential "Remote" needs to be reconnected\..*reconnect the credential/,
		);
		expect((await server.stats()).refreshes).toBe(before.refreshes);
	});
});

describe('OAuth failures name the step and never hang', () => {
	const cases: Array<[string, RegExp]> = [
		[
			'metadata-html',
			/^OAuth discovery failed: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp answered HTTP 200 with text\/html, not JSON/,
		],
		[
			'metadata-invalid',
			/^OAuth discovery failed: .*\/\.well-known\/oauth-authorization-server answered metadata that is not valid: authorization_endpoint/,
		],
		[
			'registration',
			/^OAuth registration failed: .*\/register answered HTTP 400: invalid_client_metadata \(Registration is closed\).*register one by hand/,
		],
		[
			'token-html',
			/^OAuth token failed: .*\/token answered HTTP 502 with text\/html, not JSON.*client ID, client secret and redirect URL/,
		],
		[
			'unreachable',
			/^OAuth discovery failed: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server could not be reached \(ECONNREFUSED\)/,
		],
	];
	it.each(cases)('%s', async (fault, expected) => {
		const server = await startOAuthServer(['--break', fault]);
		const pool = newPool();
		const started = Date.now();
		const failure = pool.use(
			httpConfig(server.mcp, { authorize: headlessAuthorize }),
			(connection) => connection.listTools(),
		);
		await expect(failure).rejects.toThrow(expected);
		expect(Date.now() - started).toBeLessThan(10_000);
		await server.stop();
	});

	it('an authorization server that accepts and never answers ends within the connect timeout, naming discovery', async () => {
		const server = await startOAuthServer(['--break', 'silent']);
		const pool = newPool(4_000);
		const started = Date.now();
		const failure = pool.use(
			httpConfig(server.mcp, { authorize: headlessAuthorize }),
			(connection) => connection.listTools(),
		);
		await expect(failure).rejects.toThrow(/^OAuth discovery failed: .* did not answer in time/);
		expect(Date.now() - started).toBeLessThan(6_000);
		await server.stop();
	});

	it('a refused refresh says to reconnect, naming the refresh step', async () => {
		const server = await startOAuthServer(['--break', 'refresh', '--token-seconds', '1']);
		const stored = await connectedCredential(server);
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		const config = httpConfig(server.mcp, { tokens: stored.tokens, client: stored.client });
		const failure = newPool().use(config, (connection) => connection.listTools());
		await expect(failure).rejects.toThrow(
			/^OAuth refresh failed: .*\/token answered HTTP 400: invalid_grant \(Refresh token revoked\).*reconnect the credential/,
		);
		const message = await failure.catch((error: Error) => error.message);
		expect(message).not.toContain(stored.tokens.refresh_token);
		// The next use (the next execution, with the same credential) is told the same, not "authorize anew".
		const again = httpConfig(server.mcp, { id: config.oauth!.id, ...stored });
		await expect(newPool().use(again, (connection) => connection.listTools())).rejects.toThrow(
			/^OAuth refresh failed: .*invalid_grant/,
		);
		await server.stop();
	});

	it('a server that refuses the renewed token too gets one renewal and one more try per call, on either transport', async () => {
		const server = await startOAuthServer(['--break', 'audience']);
		for (const [url, mode] of [
			[server.mcp, 'streamableHttp'],
			[server.sse, 'sse'],
		] as const) {
			const config = { ...httpConfig(url, await connectedCredential(server)), mode };
			const pool = newPool();
			await pool.use(config, (connection) => connection.listTools());
			const before = await server.stats();
			const failure = pool.use(config, (connection) =>
				connection.callTool('echo', { text: 'refused' }, { timeoutMs: 5_000 }),
			);
			await expect(failure).rejects.toThrow(/refused|401/);
			const after = await server.stats();
			expect(after.refreshes - before.refreshes).toBe(1);
			expect(after.mcpRequests - before.mcpRequests).toBeLessThanOrEqual(3);
			if (mode === 'sse')
				await expect(failure).rejects.toThrow(
					/^The MCP server refused the OAuth token again after it was renewed \(HTTP 401\)/,
				);
		}
		await server.stop();
	});

	it.each(['refresh-unavailable', 'refresh-error'])(
		'a token endpoint down for a moment (%s) before expiry leaves the token in use until it expires, renewed by the session or through n8n',
		async (down) => {
			const server = await startOAuthServer(['--break', down]);
			const stored = await connectedCredential(server);
			// n8n's renewal (helpers.refreshOAuth2Token) refreshes with this client and lets its errors through.
			const throughN8n = async () => {
				const client = new ClientOAuth2({
					clientId: stored.client.client_id,
					clientSecret: stored.client.client_secret,
					accessTokenUri: new URL('token', server.issuer).href,
				});
				const { access_token, refresh_token = '', token_type } = stored.tokens;
				const token = client.createToken({ access_token, refresh_token, token_type });
				return (await token.refresh()).data as unknown as OAuthTokens;
			};
			for (const renew of [undefined, throughN8n]) {
				// The token expires in 10 s, so it is due for renewal now.
				const soon = httpConfig(server.mcp, { ...stored, renew, expiresAt: Date.now() + 10_000 });
				const result = await newPool().use(soon, (connection) =>
					connection.callTool('echo', { text: 'still valid' }, { timeoutMs: 5_000 }),
				);
				expect(textOf(result)).toBe('still valid');
				// Once expired, the failed renewal is the error, told as the server's trouble, not the credential's.
				const expired = httpConfig(server.mcp, { ...stored, renew, expiresAt: Date.now() - 1 });
				const failure = newPool().use(expired, (connection) => connection.listTools());
				await expect(failure).rejects.toThrow(
					/^OAuth refresh failed: \S+\/token (answered HTTP 50[03]: \w+ \(The token service is down\)|could not be renewed through the credential: .+)\. The authorization server could not renew the access token just now/,
				);
			}
			await server.stop();
		},
	);

	it('a credential whose server URL changed discovers the new server', async () => {
		const [first, second] = await Promise.all([
			startOAuthServer(),
			startOAuthServer(['--token-seconds', '3']),
		]);
		const id = randomUUID();
		const firstUse = httpConfig(first.mcp, { id, authorize: headlessAuthorize });
		await newPool().use(firstUse, (connection) => connection.listTools());
		// Tokens of the second server that have expired: renewing them needs its own discovery.
		// (3 s tokens: the renewed one must outlive a busy machine's pause before it is used.)
		const stored = await connectedCredential(second);
		await new Promise((resolve) => setTimeout(resolve, 3_100));
		const secondUse = httpConfig(second.mcp, { id, ...stored });
		const tools = await newPool().use(secondUse, (connection) => connection.listTools());
		expect(tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'whoami' })]));
		await Promise.all([first.stop(), second.stop()]);
	});
});
