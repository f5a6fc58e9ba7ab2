import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import {
	ConnectionPool,
	oauthSession,
	type HttpServerConfig,
	type OAuthClientInformationMixed,
	type OAuthTokens,
} from '../../lib/mcp';
import { headlessAuthorize } from './headlessAuthorize';
import { childEnv, OAUTH_SERVER } from './servers';

export interface OAuthServerHandle {
	/** Streamable HTTP endpoint, the protected resource. */
	mcp: string;
	/** Legacy SSE endpoint of the same server. */
	sse: string;
	/** The authorization server, another origin. */
	issuer: string;
	/** The identity provider (with --idp), on the authorization server's origin. */
	idp?: string;
	/** Counts of registrations, authorizations, tokens, refreshes and MCP requests so far. */
	stats(): Promise<Record<string, number>>;
	output(): string;
	stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Starts test/servers/oauth-server.mjs with the given arguments; resolves with its URLs once it listens. */
export async function startOAuthServer(args: string[] = []): Promise<OAuthServerHandle> {
	const child = spawn(process.execPath, [OAUTH_SERVER, ...args], {
		env: childEnv(),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	running.add(child);
	child.unref();
	let output = '';
	child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
		output = (output + chunk).slice(-16_000);
	});
	const firstLine = await new Promise<string>((resolve, reject) => {
		const lines = createInterface({ input: child.stdout! });
		const timer = setTimeout(
			() => reject(new Error(`oauth-server did not start\n${output}`)),
			30_000,
		);
		lines.once('line', (line) => {
			clearTimeout(timer);
			resolve(line);
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`oauth-server exited with ${code}\n${output}`));
		});
	});
	const urls = JSON.parse(firstLine) as {
		mcp: string;
		sse: string;
		issuer: string;
		idp?: string;
		stats: string;
	};
	return {
		...urls,
		stats: async () => (await fetch(urls.stats)).json() as Promise<Record<string, number>>,
		output: () => output,
		stop: () => stopChild(child),
	};
}

async function stopChild(child: ChildProcess): Promise<void> {
	running.delete(child);
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise((resolve) => child.once('exit', resolve));
	child.kill('SIGTERM');
	await exited;
}

export async function stopOAuthServers(): Promise<void> {
	await Promise.all([...running].map(stopChild));
}

/** A registered client and its tokens, from a headless authorization: what n8n holds after Connect. */
export async function authorizeHeadlessly(
	server: OAuthServerHandle,
): Promise<{ tokens: OAuthTokens; client: OAuthClientInformationMixed }> {
	const saved: { tokens?: OAuthTokens; client?: OAuthClientInformationMixed } = {};
	const pool = new ConnectionPool({ maxSize: 1, idleTimeoutMs: 60_000, connectTimeoutMs: 20_000 });
	const config: HttpServerConfig = {
		transport: 'http',
		url: server.mcp,
		headers: {},
		mode: 'streamableHttp',
		oauth: oauthSession({
			id: randomUUID(),
			redirectUrl: N8N_CALLBACK,
			authorize: headlessAuthorize,
			onTokens: (tokens) => void (saved.tokens = tokens),
			onClient: (client) => void (saved.client = client),
		}),
	};
	try {
		await pool.use(config, (connection) => connection.listTools());
	} finally {
		await pool.closeAll();
	}
	return { tokens: saved.tokens!, client: saved.client! };
}

/** n8n's OAuth2 callback, where the authorization server sends the code. */
export const N8N_CALLBACK = 'http://localhost:5678/rest/oauth2-credential/callback';

/**
 * The MCP Server (OAuth2) credential as n8n keeps it after Connect: the fields its dynamic client
 * registration wrote, and the token endpoint's answer as `oauthTokenData` with n8n's expiry stamp.
 */
export async function connectedOAuthCredential(
	server: OAuthServerHandle,
	extra: ICredentialDataDecryptedObject = {},
): Promise<ICredentialDataDecryptedObject> {
	const { tokens, client } = await authorizeHeadlessly(server);
	const { issuer: _issuer, ...tokenData } = tokens;
	return {
		serverUrl: server.mcp,
		transport: 'streamableHttp',
		headers: {},
		useDynamicClientRegistration: true,
		grantType: 'authorizationCode',
		authentication: 'body',
		usePkce: true,
		authUrl: new URL('authorize', server.issuer).href,
		accessTokenUrl: new URL('token', server.issuer).href,
		clientId: client.client_id,
		clientSecret: client.client_secret ?? '',
		scope: tokens.scope ?? '',
		oauthTokenData: {
			...tokenData,
			n8n_expires_at: String(Date.now() + (tokens.expires_in ?? 3600) * 1000),
		},
		...extra,
	};
}
