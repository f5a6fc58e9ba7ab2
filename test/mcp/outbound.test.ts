import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
	ConnectionPool,
	oauthSession,
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

describe('redirects to another origin', () => {
	async function startRecorder() {
		const seen: IncomingMessage['headers'][] = [];
		const url = await listen(
			createServer((req, res) => {
				seen.push(req.headers);
				res.writeHead(404).end();
			}),
		);
		return { url, seen };
	}
	async function startRedirector(target: string) {
		return listen(
			createServer((req, res) => {
				req.resume();
				res.writeHead(307, { Location: `${target}${req.url}` }).end();
			}),
		);
	}

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
