// MCP over HTTP for the test servers: Streamable HTTP sessions found by their Mcp-Session-Id and
// legacy SSE streams found by their sessionId, each session with an MCP server of its own.
import { randomUUID } from 'node:crypto';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** A JSON answer on Node's response (express's response is one too). */
export function reply(res, status, body, headers = {}) {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
}

export const jsonRpcError = (message, code = -32000) => ({
	jsonrpc: '2.0',
	error: { code, message },
	id: null,
});

/**
 * The sessions of one HTTP server. `connect(transport)` connects a new MCP server to a session's
 * transport; `onEnd(sessionId)` hears of a Streamable HTTP session that ended; `streamOptions` go
 * to each Streamable HTTP transport (an event store that makes its streams resumable, say).
 */
export function mcpSessions(connect, onEnd = () => {}, streamOptions = {}) {
	const streamable = new Map();
	const sse = new Map();
	return {
		/**
		 * A request to the Streamable HTTP endpoint. `body` is its parsed JSON where a framework
		 * already read it; otherwise `readBody()` reads the body of a request that opens a session
		 * (a session's own requests are read by its transport).
		 */
		async streamable(req, res, body, readBody = async () => body) {
			const sessionId = req.headers['mcp-session-id'];
			if (sessionId !== undefined) {
				const transport = streamable.get(sessionId);
				// 404 tells the client its session is gone and it must initialize again.
				if (!transport) return reply(res, 404, jsonRpcError('Session not found'));
				return transport.handleRequest(req, res, body);
			}
			if (req.method !== 'POST')
				return reply(res, 400, jsonRpcError('Missing Mcp-Session-Id header'));
			let initialization;
			try {
				initialization = await readBody();
			} catch {
				return reply(res, 400, jsonRpcError('Parse error', ErrorCode.ParseError));
			}
			if (!isInitializeRequest(initialization))
				return reply(res, 400, jsonRpcError('Missing Mcp-Session-Id header'));
			const transport = new StreamableHTTPServerTransport({
				...streamOptions,
				sessionIdGenerator: () => randomUUID(),
				onsessioninitialized: (id) => streamable.set(id, transport),
			});
			transport.onclose = () => {
				streamable.delete(transport.sessionId);
				onEnd(transport.sessionId);
			};
			await connect(transport);
			await transport.handleRequest(req, res, initialization);
		},

		/** A GET of the SSE endpoint: a new stream, whose messages come by `sseMessage`. */
		async sseStream(res) {
			const transport = new SSEServerTransport('/messages', res);
			sse.set(transport.sessionId, transport);
			transport.onclose = () => sse.delete(transport.sessionId);
			await connect(transport);
		},

		/** A POST to /messages?sessionId=…, for the SSE stream of that session. */
		sseMessage(sessionId, req, res, body) {
			const transport = sse.get(sessionId);
			if (!transport) return reply(res, 404, jsonRpcError('Session not found'));
			return transport.handlePostMessage(req, res, body);
		},
	};
}
