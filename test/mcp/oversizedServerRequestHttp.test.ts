/**
 * A server request too large to read over Streamable HTTP, on the call's own response stream,
 * whatever the order of its keys: refused unread, never taken for the call's answer. The server is
 * a raw HTTP one, so that it can write the request's params before its method, as serializers
 * that do not keep key order do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionPool, type ServerRequestEvent } from '../../lib/mcp';

let server: http.Server;
let order: 'method-first' | 'params-first' = 'params-first';
let url: string;
const pool = new ConnectionPool({ maxSize: 2, idleTimeoutMs: 60_000, connectTimeoutMs: 30_000 });

beforeAll(async () => {
	let pendingCall: { id: unknown; res: http.ServerResponse } | undefined;
	server = http.createServer((req, res) => {
		if (req.method !== 'POST') {
			res.writeHead(405).end();
			return;
		}
		const chunks: Buffer[] = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const message = JSON.parse(Buffer.concat(chunks).toString());
			const json = (body: unknown) =>
				res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
			if (message.method === 'initialize')
				return json({
					jsonrpc: '2.0',
					id: message.id,
					result: {
						protocolVersion: message.params.protocolVersion,
						capabilities: { tools: {} },
						serverInfo: { name: 'params-first-http', version: '1.0.0' },
					},
				});
			if (message.method === 'tools/list')
				return json({
					jsonrpc: '2.0',
					id: message.id,
					result: { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] },
				});
			if (message.method === 'tools/call') {
				pendingCall = { id: message.id, res };
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				const params = {
					mode: 'form',
					message: 'x'.repeat(11 * 1024 * 1024),
					requestedSchema: { type: 'object', properties: {} },
				};
				const request =
					order === 'params-first'
						? { params, method: 'elicitation/create', jsonrpc: '2.0', id: 'e-1' }
						: { method: 'elicitation/create', params, jsonrpc: '2.0', id: 'e-1' };
				res.write(`data: ${JSON.stringify(request)}\n\n`);
				return;
			}
			if (message.method === undefined && message.id === 'e-1' && pendingCall) {
				res.writeHead(202).end();
				const text = message.error
					? `failed: ${message.error.message}`
					: JSON.stringify(message.result);
				pendingCall.res.end(
					`data: ${JSON.stringify({ jsonrpc: '2.0', id: pendingCall.id, result: { content: [{ type: 'text', text }] } })}\n\n`,
				);
				pendingCall = undefined;
				return;
			}
			res.writeHead(202).end();
			return;
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
	await pool.closeAll();
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

it.each(['method-first', 'params-first'] as const)(
	'a server request written %s, too large to read, is refused unread over Streamable HTTP, not taken for the answer',
	async (written) => {
		order = written;
		const asks: ServerRequestEvent[] = [];
		const result = await pool.use(
			{ transport: 'http', url, headers: {}, mode: 'streamableHttp' },
			(connection) =>
				connection.callTool(
					'ask',
					{},
					{
						timeoutMs: 20_000,
						elicitation: { onServerRequest: (event) => asks.push(event) },
					},
				),
		);
		const text = (result.content[0] as { text: string }).text;
		expect(text).not.toMatch(/The response is more than/);
		expect(text).toMatch(/^failed: The elicitation\/create request is 11\.0 MB/);
		expect(asks).toEqual([expect.objectContaining({ requestBytes: expect.any(Number) })]);
	},
);
