// An MCP server behind OAuth 2.1 for tests, built from the SDK's own server-side auth pieces: an
// authorization server (metadata, dynamic registration, an authorize endpoint that approves at once,
// PKCE, refresh tokens that work once) on one port, and the MCP server (protected resource metadata,
// bearer tokens, Streamable HTTP at /mcp and legacy SSE at /sse) on another. Besides tools it serves
// resources, prompts, an elicitation and a sampling request, so remote features are tested in one place.
//
// Usage: node oauth-server.mjs [--port N] [--auth-port N] [--token-seconds S] [--scopes "a b"]
//          [--write-scope S] [--no-auth] [--break STEP]
//          [--client-credentials ID:SECRET [--token-auth basic|post]] [--client-key ID=PUBLIC_KEY_FILE] [--idp]
// Prints one JSON line when listening: {"mcp": ".../mcp", "sse": ".../sse", "issuer": ".../", "stats": ".../stats"}.
// --write-scope S: the tool `write` needs scope S besides the token's (403 insufficient_scope without it).
// --break: metadata-html | metadata-invalid | registration | token-html | refresh | unreachable | silent
//          | audience (every tools/call is refused with 401 invalid_token, renewed token or not)
//          | refresh-unavailable (503 temporarily_unavailable) | refresh-error (500 server_error)
// --client-credentials, --client-key, --idp: grants that need nobody, see machineGrants.mjs; the
//          first line then names the identity provider as "idp" too.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import express from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
	createOAuthMetadata,
	getOAuthProtectedResourceMetadataUrl,
	mcpAuthMetadataRouter,
	mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
	InvalidGrantError,
	InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import {
	CallToolRequestSchema,
	CreateMessageResultSchema,
	ElicitResultSchema,
	GetPromptRequestSchema,
	ListPromptsRequestSchema,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ListToolsRequestSchema,
	McpError,
	ErrorCode,
	ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { commandLine, fatal } from './commandLine.mjs';
import { jsonRpcError, mcpSessions, reply } from './sessions.mjs';
import { machineGrantsOf, machineGrantsRouter } from './machineGrants.mjs';

const options = parseArgs(process.argv.slice(2));
const stats = {
	registrations: 0,
	authorizations: 0,
	tokens: 0,
	refreshes: 0,
	mcpRequests: 0,
	clientCredentials: 0,
	jwtBearer: 0,
	tokenExchanges: 0,
	signIns: 0,
};

function parseArgs(argv) {
	const values = commandLine(argv, {
		port: { type: 'string', default: '0' },
		'auth-port': { type: 'string', default: '0' },
		'token-seconds': { type: 'string', default: '3600' },
		scopes: { type: 'string', default: 'mcp:tools' },
		'write-scope': { type: 'string' },
		'no-auth': { type: 'boolean', default: false },
		break: { type: 'string' },
		'client-credentials': { type: 'string' },
		'token-auth': { type: 'string', default: 'basic' },
		'client-key': { type: 'string' },
		idp: { type: 'boolean', default: false },
	});
	const breaks = [
		'metadata-html',
		'metadata-invalid',
		'registration',
		'token-html',
		'refresh',
		'unreachable',
		'silent',
		'audience',
		'refresh-unavailable',
		'refresh-error',
	];
	if (values.break !== undefined && !breaks.includes(values.break))
		fatal(`--break wants one of ${breaks.join(', ')}`);
	return {
		port: Number(values.port),
		authPort: Number(values['auth-port']),
		tokenSeconds: Number(values['token-seconds']),
		scopes: values.scopes.split(' ').filter(Boolean),
		writeScope: values['write-scope'],
		auth: !values['no-auth'],
		break: values.break,
		machineGrants: machineGrantsOf(values),
	};
}

// ---- Authorization server: everything in memory, every authorization approved at once.

class ClientsStore {
	clients = new Map();
	async getClient(id) {
		return this.clients.get(id);
	}
	async registerClient(client) {
		stats.registrations++;
		this.clients.set(client.client_id, client);
		return client;
	}
}

class ApprovingProvider {
	clientsStore = new ClientsStore();
	codes = new Map();
	accessTokens = new Map();
	refreshTokens = new Map();

	async authorize(client, params, res) {
		stats.authorizations++;
		if (!client.redirect_uris.includes(params.redirectUri)) {
			res
				.status(400)
				.json({ error: 'invalid_request', error_description: 'Unregistered redirect_uri' });
			return;
		}
		const code = randomUUID();
		this.codes.set(code, { client, params });
		const target = new URL(params.redirectUri);
		target.searchParams.set('code', code);
		if (params.state !== undefined) target.searchParams.set('state', params.state);
		res.redirect(target.href);
	}

	async challengeForAuthorizationCode(_client, code) {
		const grant = this.codes.get(code);
		if (!grant) throw new InvalidGrantError('Unknown authorization code');
		return grant.params.codeChallenge;
	}

	async exchangeAuthorizationCode(client, code) {
		const grant = this.codes.get(code);
		if (!grant || grant.client.client_id !== client.client_id) {
			throw new InvalidGrantError('Unknown authorization code');
		}
		this.codes.delete(code);
		const scopes = grant.params.scopes?.length ? grant.params.scopes : options.scopes;
		return this.issue(client.client_id, scopes, grant.params.resource);
	}

	async exchangeRefreshToken(client, refreshToken) {
		const grant = this.refreshTokens.get(refreshToken);
		// A refresh token works once: a client that sends it twice in parallel loses its authorization.
		this.refreshTokens.delete(refreshToken);
		if (!grant || grant.clientId !== client.client_id) {
			throw new InvalidGrantError('Unknown or used refresh token');
		}
		stats.refreshes++;
		return this.issue(client.client_id, grant.scopes, grant.resource);
	}

	issue(clientId, scopes, resource) {
		stats.tokens++;
		const accessToken = `at-${randomBytes(12).toString('hex')}`;
		const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
		const expiresAt = Date.now() + options.tokenSeconds * 1000;
		this.accessTokens.set(accessToken, { clientId, scopes, resource, expiresAt });
		this.refreshTokens.set(refreshToken, { clientId, scopes, resource });
		return {
			access_token: accessToken,
			token_type: 'bearer',
			expires_in: options.tokenSeconds,
			refresh_token: refreshToken,
			scope: scopes.join(' '),
		};
	}

	async verifyAccessToken(token) {
		const grant = this.accessTokens.get(token);
		if (!grant || grant.expiresAt < Date.now())
			throw new InvalidTokenError('Invalid or expired token');
		return {
			token,
			clientId: grant.clientId,
			scopes: grant.scopes,
			expiresAt: Math.floor(grant.expiresAt / 1000),
			resource: grant.resource,
		};
	}
}

const provider = new ApprovingProvider();

// ---- The MCP server.

const resources = Array.from({ length: 5 }, (_, index) => ({
	uri: `memo://notes/${index + 1}`,
	name: `note-${index + 1}`,
	mimeType: 'text/plain',
}));
const resourceTemplates = Array.from({ length: 3 }, (_, index) => ({
	uriTemplate: `memo://drafts/${index + 1}/{name}`,
	name: `draft-${index + 1}`,
}));
const prompts = Array.from({ length: 3 }, (_, index) => ({
	name: `prompt-${index + 1}`,
	description: `Prompt number ${index + 1}`,
	arguments: [{ name: 'topic', required: index === 0 }],
}));

const withoutArguments = (name, description) => ({
	name,
	description,
	inputSchema: { type: 'object' },
});
const tools = [
	withoutArguments('whoami', "The token's client and scopes"),
	withoutArguments('client', 'What the client declared at initialize'),
	{
		name: 'echo',
		description: 'Returns its text',
		inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
	},
	{
		name: 'wait',
		description: 'Answers after ms milliseconds (a token may expire meanwhile)',
		inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
	},
	withoutArguments('write', 'Needs the write scope'),
	{
		name: 'ask',
		description: 'Asks the user for details (elicitation), with the message given or its own',
		inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
	},
	withoutArguments('sample', 'Asks the client for a model answer (sampling)'),
];

// Each listing pages by PAGE_SIZE; a cursor is the next offset.
const PAGE_SIZE = 2;

function page(items, cursor, key) {
	const offset = cursor === undefined ? 0 : Number(cursor);
	if (!Number.isInteger(offset) || offset < 0 || offset > items.length) {
		throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`);
	}
	const next = offset + PAGE_SIZE;
	return {
		[key]: items.slice(offset, next),
		...(next < items.length ? { nextCursor: String(next) } : {}),
	};
}

const text = (value) => ({ content: [{ type: 'text', text: value }] });

const ELICITATION_SCHEMA = {
	type: 'object',
	properties: {
		name: { type: 'string', default: 'Ada' },
		count: { type: 'integer', default: 3 },
		color: { type: 'string', enum: ['red', 'green'], default: 'green' },
		confirm: { type: 'boolean', default: true },
	},
	required: ['name'],
};

function createMcpServer() {
	const server = new Server(
		{ name: 'oauth-server', version: '1.0.0' },
		{ capabilities: { tools: {}, resources: {}, prompts: {} } },
	);
	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
	server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
		const { name, arguments: args = {} } = request.params;
		if (name === 'whoami') {
			const info = extra.authInfo;
			return text(JSON.stringify({ clientId: info?.clientId, scopes: info?.scopes ?? [] }));
		}
		if (name === 'client') {
			return text(
				JSON.stringify({
					info: server.getClientVersion(),
					capabilities: server.getClientCapabilities(),
				}),
			);
		}
		if (name === 'echo') return text(String(args.text));
		if (name === 'wait') {
			await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
			return text('waited');
		}
		if (name === 'write') return text('written');
		if (name === 'ask') {
			const answer = await extra.sendRequest(
				{
					method: 'elicitation/create',
					params: {
						mode: 'form',
						message: args.message ?? 'Who is asking?',
						requestedSchema: ELICITATION_SCHEMA,
					},
				},
				ElicitResultSchema,
			);
			return text(JSON.stringify(answer));
		}
		if (name === 'sample') {
			try {
				const answer = await extra.sendRequest(
					{
						method: 'sampling/createMessage',
						params: {
							messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
							maxTokens: 10,
						},
					},
					CreateMessageResultSchema,
				);
				return text(JSON.stringify(answer));
			} catch (error) {
				return {
					isError: true,
					content: [{ type: 'text', text: `sampling failed: ${error.message}` }],
				};
			}
		}
		throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
	});
	server.setRequestHandler(ListResourcesRequestSchema, (request) =>
		page(resources, request.params?.cursor, 'resources'),
	);
	server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) =>
		page(resourceTemplates, request.params?.cursor, 'resourceTemplates'),
	);
	server.setRequestHandler(ReadResourceRequestSchema, (request) => {
		const { uri } = request.params;
		if (!resources.some((resource) => resource.uri === uri)) {
			throw new McpError(-32002, `Resource not found: ${uri}`);
		}
		return { contents: [{ uri, mimeType: 'text/plain', text: `contents of ${uri}` }] };
	});
	server.setRequestHandler(ListPromptsRequestSchema, (request) =>
		page(prompts, request.params?.cursor, 'prompts'),
	);
	server.setRequestHandler(GetPromptRequestSchema, (request) => {
		const prompt = prompts.find((candidate) => candidate.name === request.params.name);
		if (!prompt)
			throw new McpError(ErrorCode.InvalidParams, `Prompt not found: ${request.params.name}`);
		const topic = request.params.arguments?.topic ?? 'anything';
		return {
			description: prompt.description,
			messages: [{ role: 'user', content: { type: 'text', text: `Tell me about ${topic}` } }],
		};
	});
	return server;
}

function listen(app, port) {
	return new Promise((resolve, reject) => {
		const server = app.listen(port, '127.0.0.1', () => resolve(server));
		server.on('error', reject);
	});
}

/** A port where nothing answers (unreachable), or where a connection is accepted and never answered (silent). */
async function deadEnd(silent) {
	const server = createNetServer(() => undefined);
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	if (!silent) await new Promise((resolve) => server.close(resolve));
	return `http://127.0.0.1:${port}/`;
}

async function start() {
	const authApp = express();
	const authServer = await listen(authApp, options.authPort);
	const issuer = new URL(`http://127.0.0.1:${authServer.address().port}/`);
	const mcpApp = express();
	const mcpServer = await listen(mcpApp, options.port);
	const base = `http://127.0.0.1:${mcpServer.address().port}`;
	const mcpUrl = new URL(`${base}/mcp`);

	// Parsed here so a broken step can look at the grant; the SDK's handlers skip a parsed body.
	authApp.use(express.urlencoded({ extended: false }));
	authApp.use((req, res, next) => {
		if (options.break === 'registration' && req.path === '/register') {
			return res
				.status(400)
				.json({ error: 'invalid_client_metadata', error_description: 'Registration is closed' });
		}
		if (options.break === 'token-html' && req.path === '/token') {
			return res.status(502).type('html').send('<html><body>Bad gateway</body></html>');
		}
		if (options.break === 'refresh' && req.body?.grant_type === 'refresh_token') {
			return res
				.status(400)
				.json({ error: 'invalid_grant', error_description: 'Refresh token revoked' });
		}
		if (options.break?.startsWith('refresh-') && req.body?.grant_type === 'refresh_token') {
			const [status, error] =
				options.break === 'refresh-unavailable'
					? [503, 'temporarily_unavailable']
					: [500, 'server_error'];
			return res.status(status).json({ error, error_description: 'The token service is down' });
		}
		if (options.break === 'metadata-invalid' && req.path.startsWith('/.well-known/')) {
			return res.json({ issuer: issuer.href });
		}
		next();
	});
	if (options.machineGrants)
		authApp.use(
			machineGrantsRouter(options.machineGrants, {
				issuer,
				defaultScopes: options.scopes,
				tokenSeconds: options.tokenSeconds,
				issue: (clientId, scopes, resource) =>
					provider.issue(clientId, scopes, resource && new URL(resource)),
				stats,
			}),
		);
	authApp.use(mcpAuthRouter({ provider, issuerUrl: issuer, scopesSupported: options.scopes }));

	const authorizationServer =
		options.break === 'unreachable' || options.break === 'silent'
			? await deadEnd(options.break === 'silent')
			: issuer.href;
	mcpApp.get('/stats', (_req, res) => res.json(stats));
	if (options.break === 'metadata-html') {
		mcpApp.use('/.well-known', (_req, res) =>
			res.type('html').send('<html><body>Sign in</body></html>'),
		);
	}
	// The legacy SSE endpoint is a resource of its own, with its own metadata, as on a server that has both.
	const sseUrl = new URL(`${base}/sse`);
	for (const resourceServerUrl of [mcpUrl, sseUrl])
		mcpApp.use(
			mcpAuthMetadataRouter({
				oauthMetadata: {
					...createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported: options.scopes }),
					issuer: authorizationServer,
				},
				resourceServerUrl,
				scopesSupported: options.scopes,
			}),
		);
	const bearer = requireBearerAuth({
		verifier: provider,
		resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
	});
	const guard = options.auth ? bearer : (_req, _res, next) => next();
	mcpApp.use(['/mcp', '/sse', '/messages'], (req, _res, next) => {
		stats.mcpRequests++;
		next();
	});
	mcpApp.use(
		['/mcp', '/sse', '/messages'],
		guard,
		express.json(),
		requireWriteScope(mcpUrl),
		refuseCalls(mcpUrl, sseUrl),
	);

	const sessions = mcpSessions((transport) => createMcpServer().connect(transport));
	mcpApp.all('/mcp', (req, res) => sessions.streamable(req, res, req.body));
	mcpApp.get('/sse', (_req, res) => sessions.sseStream(res));
	mcpApp.post('/sse', (_req, res) =>
		reply(res, 405, jsonRpcError('Method not allowed'), { Allow: 'GET' }),
	);
	mcpApp.post('/messages', (req, res) =>
		sessions.sseMessage(String(req.query.sessionId ?? ''), req, res, req.body),
	);

	console.log(
		JSON.stringify({
			mcp: mcpUrl.href,
			sse: `${base}/sse`,
			issuer: issuer.href,
			stats: `${base}/stats`,
			...(options.machineGrants?.idp && { idp: new URL('idp/', issuer).href }),
		}),
	);
}

/** The tool `write` needs --write-scope: a token without it gets 403 insufficient_scope, naming every scope needed. */
function requireWriteScope(mcpUrl) {
	return (req, res, next) => {
		const call = req.body;
		if (!options.writeScope || call?.method !== 'tools/call' || call.params?.name !== 'write')
			return next();
		const scopes = req.auth?.scopes ?? [];
		if (scopes.includes(options.writeScope)) return next();
		const needed = [...new Set([...scopes, options.writeScope])].join(' ');
		res
			.status(403)
			.set(
				'WWW-Authenticate',
				`Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${getOAuthProtectedResourceMetadataUrl(mcpUrl)}"`,
			)
			.json({ error: 'insufficient_scope', error_description: `Needs ${options.writeScope}` });
	};
}

/** --break audience: a tools/call is refused as a token meant for another resource is, whatever the token. */
function refuseCalls(mcpUrl, sseUrl) {
	return (req, res, next) => {
		if (options.break !== 'audience' || req.body?.method !== 'tools/call') return next();
		const resource = req.baseUrl === '/mcp' ? mcpUrl : sseUrl;
		res
			.status(401)
			.set(
				'WWW-Authenticate',
				`Bearer error="invalid_token", error_description="Token audience mismatch", resource_metadata="${getOAuthProtectedResourceMetadataUrl(resource)}"`,
			)
			.json({ error: 'invalid_token', error_description: 'Token audience mismatch' });
	};
}

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
start().catch((error) => fatal(error.stack ?? String(error)));
