import { lookup as dnsLookup } from 'node:dns';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type LookupFunction, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { outboundRequest, type OutboundResponse } from '../../lib/http/outbound';
import { readText } from '../../lib/model/http';
import {
	ConnectionPool,
	outboundFetch,
	oauthSession,
	type EgressFilter,
	type HttpServerConfig,
	type OAuthOptions,
	type OAuthTokens,
} from '../../lib/mcp';
import { headlessAuthorize } from '../support/headlessAuthorize';
import { startOAuthServer, stopOAuthServers, type OAuthServerHandle } from '../support/oauthServer';

const pools: ConnectionPool[] = [];
function newPool(): ConnectionPool {
	const pool = new ConnectionPool({ maxSize: 2, idleTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
	pools.push(pool);
	return pool;
}
const servers: Server[] = [];
const sockets = new Set<Socket>();
async function listen(server: Server): Promise<string> {
	servers.push(server);
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterAll(async () => {
	await Promise.all(pools.map((pool) => pool.closeAll()));
	for (const socket of sockets) socket.destroy();
	await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
	await stopOAuthServers();
});

/** A forward proxy that records what passes: CONNECT tunnels and plain absolute-form requests. */
async function startRecordingProxy() {
	const passed: string[] = [];
	const proxy = createServer((req, res) => {
		passed.push(`${req.method} ${req.url}`);
		const target = new URL(req.url!);
		const upstream = httpRequest(
			target,
			{ method: req.method, headers: req.headers },
			(answer: IncomingMessage) => {
				res.writeHead(answer.statusCode!, answer.headers);
				answer.pipe(res);
			},
		);
		req.pipe(upstream);
	});
	proxy.on('connect', (req: IncomingMessage, client: Socket) => {
		passed.push(`CONNECT ${req.url}`);
		const [host, port] = req.url!.split(':');
		const upstream = connect(Number(port), host, () => {
			client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
			upstream.pipe(client);
			client.pipe(upstream);
		});
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on('error', () => undefined);
		}
	});
	return { url: await listen(proxy), passed };
}

function withProxyEnvironment(variables: Record<string, string>, work: () => Promise<void>) {
	const names = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];
	const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
	for (const name of names) delete process.env[name];
	Object.assign(process.env, variables);
	return work().finally(() => {
		for (const name of names) {
			if (saved[name] === undefined) delete process.env[name];
			else process.env[name] = saved[name];
		}
	});
}

const hostOf = (url: string) => new URL(url).host;

/** A server config whose OAuth session authorizes headlessly (or uses the tokens given). */
function oauthConfig(url: string, session: Partial<OAuthOptions> = {}): HttpServerConfig {
	return {
		transport: 'http',
		url,
		headers: {},
		mode: 'streamableHttp',
		oauth: oauthSession({ id: randomUUID(), authorize: headlessAuthorize, ...session }),
	};
}

describe('MCP over HTTP through the proxy of the environment', () => {
	let server: OAuthServerHandle;
	beforeAll(async () => {
		server = await startOAuthServer();
	});

	it('sends the MCP requests and every OAuth request through HTTP_PROXY', async () => {
		const proxy = await startRecordingProxy();
		await withProxyEnvironment({ HTTP_PROXY: proxy.url }, async () => {
			await newPool().use(oauthConfig(server.mcp), (connection) => connection.listTools());
		});
		expect(proxy.passed).toEqual(
			expect.arrayContaining([`CONNECT ${hostOf(server.mcp)}`, `CONNECT ${hostOf(server.issuer)}`]),
		);
	});

	it('goes direct to a host NO_PROXY names', async () => {
		const proxy = await startRecordingProxy();
		await withProxyEnvironment(
			{ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' },
			async () => {
				await newPool().use(oauthConfig(server.mcp), (connection) => connection.listTools());
			},
		);
		expect(proxy.passed).toEqual([]);
	});
});

/** A server that answers 404 to everything, keeping each request's headers (`seen`) and the rest. */
async function startRecorder() {
	const seen: IncomingMessage['headers'][] = [];
	const requests: Array<{ method?: string; url?: string; body: string }> = [];
	const url = await listen(
		createServer((req, res) => {
			seen.push(req.headers);
			let body = '';
			req.on('data', (chunk: Buffer) => (body += chunk.toString()));
			req.on('end', () => {
				requests.push({ method: req.method, url: req.url, body });
				res.writeHead(404).end('not here');
			});
		}),
	);
	return { url, seen, requests };
}
async function startRedirector(target: string, status = 307) {
	return listen(
		createServer((req, res) => {
			req.resume();
			res.writeHead(status, { Location: `${target}${req.url}` }).end();
		}),
	);
}

describe('redirects to another origin', () => {
	it('never carry the configured headers there: the redirect is not followed, and the error says so', async () => {
		const recorder = await startRecorder();
		const redirector = await startRedirector(recorder.url);
		const config: HttpServerConfig = {
			transport: 'http',
			url: `${redirector}/mcp`,
			headers: { Authorization: 'Bearer header-secret-1234', 'X-Api-Key': 'key-secret-5678' },
			mode: 'auto',
		};
		await expect(newPool().use(config, (connection) => connection.listTools())).rejects.toThrow(
			new RegExp(`Redirect to ${recorder.url}/mcp not followed`),
		);
		expect(recorder.seen).toEqual([]);
	});

	it('never carry a credential header a request names there, with or without an egress policy', async () => {
		const recorder = await startRecorder();
		const redirector = await startRedirector(recorder.url);
		for (const egress of [undefined, egressPolicy().filter]) {
			const send = outboundFetch({
				serverUrl: new URL(`${redirector}/mcp`),
				headers: {},
				uncancellableTimeoutMs: 5_000,
				egress,
			});
			const response = await send(`${redirector}/.well-known/oauth-protected-resource`, {
				headers: { 'X-Api-Key': 'key-secret-5678', Accept: 'application/json' },
			});
			expect(response.status).toBe(404);
		}
		expect(recorder.seen).toHaveLength(2);
		for (const seen of recorder.seen) {
			expect(seen['x-api-key']).toBeUndefined();
			expect(seen.accept).toBe('application/json');
		}
	});

	it("never carry an OAuth request's body there (its client secret, refresh token or code): the redirect is the answer", async () => {
		const recorder = await startRecorder();
		const secrets =
			'grant_type=refresh_token&refresh_token=rt-secret-1234&client_secret=cs-secret-5678';
		for (const status of [307, 308]) {
			const redirector = await startRedirector(recorder.url, status);
			const send = outboundFetch({
				serverUrl: new URL(`${redirector}/mcp`),
				headers: {},
				uncancellableTimeoutMs: 5_000,
			});
			const response = await send(`${redirector}/token`, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams(secrets),
			});
			expect(response.status).toBe(status);
			expect(response.headers.get('location')).toBe(`${recorder.url}/token`);
		}
		// A redirect that drops the body (303, or 302 of a POST) is followed, as fetch follows it.
		const seeOther = await startRedirector(recorder.url, 303);
		const send = outboundFetch({
			serverUrl: new URL(`${seeOther}/mcp`),
			headers: {},
			uncancellableTimeoutMs: 5_000,
		});
		const followed = await send(`${seeOther}/token`, { method: 'POST', body: secrets });
		expect(followed.status).toBe(404);
		expect(recorder.requests).toEqual([{ method: 'GET', url: '/token', body: '' }]);
	});

	it('never carry an OAuth token there', async () => {
		const server = await startOAuthServer();
		const recorder = await startRecorder();
		let tokens: OAuthTokens | undefined;
		const granted = oauthConfig(server.mcp, { onTokens: (kept) => void (tokens = kept) });
		await newPool().use(granted, (connection) => connection.listTools());
		const redirector = await startRedirector(recorder.url);
		const config = oauthConfig(`${redirector}/mcp`, { tokens, authorize: undefined });
		await expect(newPool().use(config, (connection) => connection.listTools())).rejects.toThrow(
			/not followed/,
		);
		expect(recorder.seen).toEqual([]);
	});
});

/** An egress policy as n8n's SSRF protection gives it: hosts (host:port) it refuses, and the names it resolved. */
function egressPolicy(refused: string[] = []) {
	const resolved: string[] = [];
	const refuse = (host: string) => ({ ok: false as const, error: new Error(`${host} is blocked`) });
	const filter: EgressFilter = {
		validateUrl: async (url) => (refused.includes(url.host) ? refuse(url.host) : { ok: true }),
		validateConnectionHost: (host) => (refused.includes(host) ? refuse(host) : { ok: true }),
		createSecureLookup: () =>
			((hostname, options, callback) => {
				resolved.push(hostname);
				dnsLookup(hostname, options, callback);
			}) as LookupFunction,
	};
	return { filter, resolved };
}

describe("the host's egress policy", () => {
	let server: OAuthServerHandle;
	beforeAll(async () => {
		server = await startOAuthServer();
	});

	it('refuses a server it blocks before any request, saying which and why', async () => {
		const { filter } = egressPolicy([hostOf(server.mcp)]);
		const before = await server.stats();
		const config = { ...oauthConfig(server.mcp), egress: filter };
		await expect(newPool().use(config, (connection) => connection.listTools())).rejects.toThrow(
			`The outbound network policy refused the request to ${server.mcp}: ${hostOf(server.mcp)} is blocked`,
		);
		expect((await server.stats()).mcpRequests).toBe(before.mcpRequests);
	});

	it('resolves the hosts it allows through its lookup', async () => {
		const open = await startOAuthServer(['--no-auth']);
		const { filter, resolved } = egressPolicy();
		const config: HttpServerConfig = {
			transport: 'http',
			url: open.mcp.replace('127.0.0.1', 'localhost'),
			headers: {},
			mode: 'streamableHttp',
			egress: filter,
		};
		const tools = await newPool().use(config, (connection) => connection.listTools());
		expect(tools.length).toBeGreaterThan(0);
		expect(resolved).toContain('localhost');
	});

	it('checks each redirect an OAuth request follows, and stops at a host it blocks', async () => {
		const recorder = await startRecorder();
		const redirector = await startRedirector(recorder.url);
		const { filter } = egressPolicy([hostOf(recorder.url)]);
		const send = outboundFetch({
			serverUrl: new URL(`${redirector}/mcp`),
			headers: {},
			uncancellableTimeoutMs: 5_000,
			egress: filter,
		});
		await expect(send(`${redirector}/.well-known/oauth-protected-resource`)).rejects.toThrow(
			`refused the request to ${recorder.url}/.well-known/oauth-protected-resource`,
		);
		expect(recorder.seen).toEqual([]);
	});

	it('follows a redirect it allows, leaving the authorization header behind at another origin', async () => {
		const recorder = await startRecorder();
		const redirector = await startRedirector(recorder.url);
		const send = outboundFetch({
			serverUrl: new URL(`${redirector}/mcp`),
			headers: {},
			uncancellableTimeoutMs: 5_000,
			egress: egressPolicy().filter,
		});
		const response = await send(`${redirector}/.well-known/oauth-authorization-server`, {
			headers: { Authorization: 'Basic c2VjcmV0LXZhbHVl' },
		});
		expect(response.status).toBe(404);
		expect(recorder.seen).toHaveLength(1);
		expect(recorder.seen[0].authorization).toBeUndefined();
	});
});

describe('model calls (undici requests on the same outbound path)', () => {
	const post = { method: 'POST', body: '{"model":"m"}' };
	const textOf = async (response: OutboundResponse) => readText(response.body);

	it('follow a 307 with the method and body kept, leaving every credential header behind at another origin', async () => {
		const recorder = await startRecorder();
		const redirector = await startRedirector(recorder.url);
		const response = await outboundRequest()(`${redirector}/v1/chat/completions?x=1`, {
			...post,
			headers: {
				authorization: 'Bearer sk-model-secret',
				'x-api-key': 'sk-ant-secret',
				'x-goog-api-key': 'AIza-secret',
				'x-gateway-token': 'gateway-secret',
				'content-type': 'application/json',
			},
		});
		expect(response.status).toBe(404);
		expect(await textOf(response)).toBe('not here');
		expect(recorder.requests).toEqual([
			{ method: 'POST', url: '/v1/chat/completions?x=1', body: '{"model":"m"}' },
		]);
		const [seen] = recorder.seen;
		for (const name of ['authorization', 'x-api-key', 'x-goog-api-key', 'x-gateway-token'])
			expect(seen[name]).toBeUndefined();
		expect(seen['content-type']).toBe('application/json');
		expect(seen['user-agent']).toMatch(/^n8n-nodes-tool-calling\/\d+\.\d+\.\d+/);
	});

	it('name the package in User-Agent, unless the request names an agent of its own in any case', async () => {
		const recorder = await startRecorder();
		const send = outboundRequest();
		await textOf(await send(`${recorder.url}/v1/models`, { method: 'GET', headers: {} }));
		await textOf(
			await send(`${recorder.url}/v1/models`, {
				method: 'GET',
				headers: { 'User-Agent': 'gateway-client/2' },
			}),
		);
		expect(recorder.seen.map((headers) => headers['user-agent'])).toEqual([
			expect.stringMatching(/^n8n-nodes-tool-calling\/\d+\.\d+\.\d+$/),
			'gateway-client/2',
		]);
	});

	it('keep the credential headers on a redirect within the origin', async () => {
		const recorder = await startRecorder();
		const sameOrigin = await listen(
			createServer((req, res) => {
				req.resume();
				if (req.url === '/moved') res.writeHead(307, { Location: '/here' }).end();
				else {
					recorder.seen.push(req.headers);
					res.writeHead(200).end('{}');
				}
			}),
		);
		await textOf(
			await outboundRequest()(`${sameOrigin}/moved`, {
				...post,
				headers: { 'x-api-key': 'sk-ant-secret' },
			}),
		);
		expect(recorder.seen.map((headers) => headers['x-api-key'])).toEqual(['sk-ant-secret']);
	});

	it('turn a 303 into a GET without the body or the headers that describe it, as fetch does, but a HEAD stays HEAD', async () => {
		const recorder = await startRecorder();
		const redirector = await startRedirector(recorder.url, 303);
		await textOf(
			await outboundRequest()(`${redirector}/answer`, {
				...post,
				headers: { 'content-type': 'application/json', accept: 'application/json' },
			}),
		);
		expect(recorder.requests).toEqual([{ method: 'GET', url: '/answer', body: '' }]);
		expect(recorder.seen[0]['content-type']).toBeUndefined();
		expect(recorder.seen[0].accept).toBe('application/json');
		await textOf(await outboundRequest()(`${redirector}/probe`, { method: 'HEAD', headers: {} }));
		expect(recorder.requests[1]).toEqual({ method: 'HEAD', url: '/probe', body: '' });
	});

	it('fail after 20 redirects, as fetch does, rather than answer with the last redirect', async () => {
		let hops = 0;
		const loop = await listen(
			createServer((req, res) => {
				hops++;
				req.resume();
				res.writeHead(302, { Location: '/again' }).end();
			}),
		);
		await expect(
			outboundRequest()(`${loop}/v1/models`, { method: 'GET', headers: {} }),
		).rejects.toThrow('Redirected more than 20 times: last to /again');
		expect(hops).toBe(21);
	});

	it('stop at a redirect to a host the policy blocks, before any request reaches it', async () => {
		const recorder = await startRecorder();
		const redirector = await startRedirector(recorder.url);
		const send = outboundRequest({ egress: egressPolicy([hostOf(recorder.url)]).filter });
		await expect(send(`${redirector}/v1/messages`, { ...post, headers: {} })).rejects.toThrow(
			`The outbound network policy refused the request to ${recorder.url}/v1/messages: ${hostOf(recorder.url)} is blocked`,
		);
		expect(recorder.seen).toEqual([]);
	});

	it('go through HTTP_PROXY, and direct to a host NO_PROXY names', async () => {
		const recorder = await startRecorder();
		const proxy = await startRecordingProxy();
		await withProxyEnvironment({ HTTP_PROXY: proxy.url }, async () => {
			await textOf(
				await outboundRequest()(`${recorder.url}/v1/models`, { method: 'GET', headers: {} }),
			);
		});
		expect(proxy.passed).toEqual([`CONNECT ${hostOf(recorder.url)}`]);
		await withProxyEnvironment({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, async () => {
			await textOf(
				await outboundRequest()(`${recorder.url}/v1/models`, { method: 'GET', headers: {} }),
			);
		});
		expect(proxy.passed).toHaveLength(1);
		expect(recorder.requests).toHaveLength(2);
	});

	it('go direct to a host NO_PROXY names under a policy that blocks the proxy, which they never reach', async () => {
		const recorder = await startRecorder();
		const proxy = await startRecordingProxy();
		// The proxy's host as a connection host (no port): the recorder's URL, with its port, passes.
		const blocksTheProxy = egressPolicy([new URL(proxy.url).hostname]).filter;
		await withProxyEnvironment({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, async () => {
			const answer = await outboundRequest({ egress: blocksTheProxy })(
				`${recorder.url}/v1/models`,
				{ method: 'GET', headers: {} },
			);
			expect(answer.status).toBe(404);
			expect(await textOf(answer)).toBe('not here');
		});
		expect(proxy.passed).toEqual([]);
		expect(recorder.requests).toHaveLength(1);
	});

	it('send HTTPS direct when only HTTP_PROXY is set, as n8n does, and check no proxy for it', async () => {
		const proxy = await startRecordingProxy();
		// A port nothing listens on: the request fails, after reaching no proxy.
		const closed = await listen(createServer());
		const port = new URL(closed).port;
		await new Promise((resolve) => servers.pop()!.close(resolve));
		const blocksTheProxy = egressPolicy([hostOf(proxy.url)]).filter;
		await withProxyEnvironment({ HTTP_PROXY: proxy.url }, async () => {
			await expect(
				outboundRequest({ egress: blocksTheProxy })(`https://localhost:${port}/v1/models`, {
					method: 'GET',
					headers: {},
				}),
			).rejects.toThrow(/ECONNREFUSED|fetch failed|connect/);
		});
		expect(proxy.passed).toEqual([]);
	});

	it('decode a body that comes compressed, and fail on one that only says it is', async () => {
		const answer = JSON.stringify({ choices: [{ message: { content: 'Hello!' } }] });
		const server = await listen(
			createServer((req, res) => {
				req.resume();
				res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
				res.end(req.url === '/broken' ? answer : gzipSync(answer));
			}),
		);
		const send = outboundRequest();
		const request = { ...post, headers: { 'accept-encoding': 'gzip' } };
		expect(await textOf(await send(`${server}/v1/chat/completions`, request))).toBe(answer);
		// A body that says gzip but is not: reading it fails, rather than giving bytes as text.
		await expect(textOf(await send(`${server}/broken`, request))).rejects.toThrow(
			/incorrect header check/,
		);
	});

	it('decode stacked codings in the order they were applied (five at most), and read an empty answer that names one', async () => {
		const answer = JSON.stringify({ choices: [{ message: { content: 'Hello!' } }] });
		const server = await listen(
			createServer((req, res) => {
				req.resume();
				if (req.url === '/empty') res.writeHead(204, { 'content-encoding': 'gzip' }).end();
				else if (req.url === '/six')
					res.writeHead(200, { 'content-encoding': Array(6).fill('gzip').join(', ') }).end();
				else if (req.url === '/twice') {
					// The header twice: undici gives its values as a list.
					res.setHeader('content-encoding', ['gzip', 'br']);
					res.writeHead(200).end(brotliCompressSync(gzipSync(answer)));
				} else
					res
						.writeHead(200, { 'content-encoding': 'GZIP, br' })
						.end(brotliCompressSync(gzipSync(answer)));
			}),
		);
		const send = outboundRequest();
		const request = { ...post, headers: {} };
		expect(await textOf(await send(`${server}/listed`, request))).toBe(answer);
		expect(await textOf(await send(`${server}/twice`, request))).toBe(answer);
		expect(await textOf(await send(`${server}/empty`, request))).toBe('');
		await expect(send(`${server}/six`, request)).rejects.toThrow(
			'The answer stacks 6 content codings; at most 5 are read',
		);
	});

	it('end when the caller aborts, the error saying so', async () => {
		const silent = await listen(createServer(() => undefined));
		const controller = new AbortController();
		const sent = outboundRequest()(`${silent}/v1/chat/completions`, {
			...post,
			headers: {},
			signal: controller.signal,
		});
		setTimeout(() => controller.abort(new Error('the turn was cancelled')), 50);
		await expect(sent).rejects.toThrow('the turn was cancelled');
	});
});
