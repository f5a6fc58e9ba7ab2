/**
 * A local HTTP endpoint that stands in for a vendor's model API, because no model API is reachable
 * from the machines the tests run on. One core serves every vendor: it records each request and
 * answers model calls from a queue of scripted turns (turns.ts); a wire module per vendor
 * (dialects.ts lists them) speaks that vendor's exact wire format, following its API reference,
 * its SDK's type definitions and published captures of its replies.
 *
 * Every vendor's documented rules for tools (../vendorRules.ts) are checked too, and a request
 * that breaks one is refused with a 400, as the vendor would refuse it.
 *
 * Each model call that passes the vendor's checks consumes one turn, so an SDK retry after a 429
 * or 5xx consumes the next one too. The same scripted answer is served whole or streamed, as the
 * request asks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WIRES, type DialectId, type RequestBodies } from './dialects';
import type { AnswerTurn, Turn } from './turns';
import { ruleViolations } from '../vendorRules';
import { isRecord } from './wire';
import type { ModelCall, ModelEntry, Wire, WireOptions, WireReply, WireRequest } from './wire';

export interface RecordedRequest<Body = unknown> {
	method: string;
	/** Path and query as sent, e.g. `/v1/chat/completions`. */
	path: string;
	/** Lower-cased names, repeated headers joined with `, `. */
	headers: Record<string, string>;
	/** The parsed JSON body, undefined when empty or not JSON; typed for reading, never checked. */
	body: Body | undefined;
}

export interface StandInOptions extends WireOptions {
	/** What the vendor's model list names: ids, or whole entries in its shape. */
	models?: ModelEntry[];
	/** When set, requests must carry this key the vendor's way, or get its refusal. */
	apiKey?: string;
	/**
	 * The path the API is served under, in place of the vendor's own (`/openai/deployments/gpt4o`, as
	 * Azure OpenAI serves a deployment); a request outside it is not found.
	 */
	basePath?: string;
	/** The model list's answer as given, in place of the vendor's shape (a compatible server's own). */
	modelListBody?: unknown;
	/**
	 * Called before each frame of a streamed answer is written, and awaited: a benchmark paces the
	 * frames with it as a model writes them, and notes when the first text event goes out.
	 */
	beforeStreamFrame?: (frame: string) => void | Promise<void>;
}

export interface StandIn<Body = unknown> {
	dialect: DialectId;
	/** What a user puts in the credential's Base URL for this vendor. */
	baseURL: string;
	requests: Array<RecordedRequest<Body>>;
	/** TCP connections the endpoint accepted: fewer than requests when the client keeps them alive. */
	connections(): number;
	/** Queues replies, consumed one per model call in order. */
	script(...turns: Turn[]): void;
	/** Scripted replies not yet consumed. */
	remaining(): number;
	close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const parts: Buffer[] = [];
		req.on('data', (part: Buffer) => parts.push(part));
		req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
		req.on('error', reject);
	});
}

function write(res: ServerResponse, data: string): Promise<void> {
	return new Promise((resolve, reject) =>
		res.write(data, (err) => (err ? reject(err) : resolve())),
	);
}

function serialized(reply: WireReply): { headers: Record<string, string>; text: string } {
	if (typeof reply.body === 'string') return { headers: reply.headers ?? {}, text: reply.body };
	return {
		headers: { 'content-type': 'application/json', ...reply.headers },
		text: JSON.stringify(reply.body),
	};
}

function send(
	res: ServerResponse,
	reply: WireReply,
	extraHeaders: Record<string, string> = {},
): void {
	const { headers, text } = serialized(reply);
	res.writeHead(reply.status, { ...headers, ...extraHeaders });
	res.end(text);
}

async function toWireRequest(req: IncomingMessage): Promise<WireRequest> {
	const text = await readBody(req);
	let body: unknown;
	try {
		body = text === '' ? undefined : JSON.parse(text);
	} catch {
		body = undefined;
	}
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(req.headers)) {
		if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
	}
	const url = req.url ?? '/';
	const parsed = new URL(url, 'http://stand-in');
	return {
		method: req.method ?? 'GET',
		url,
		pathname: parsed.pathname,
		query: parsed.searchParams,
		headers,
		body,
		text,
	};
}

/** The request as the vendor's wire reads it, served under `basePath` in place of the vendor's own. */
function servedUnder(
	request: WireRequest,
	basePath: string | undefined,
	vendorBasePath: string,
): WireRequest {
	if (basePath === undefined) return request;
	const inside = request.pathname.startsWith(`${basePath}/`);
	// A path outside the base path matches none of the vendor's routes.
	const pathname = inside
		? `${vendorBasePath}${request.pathname.slice(basePath.length)}`
		: `/not-served${request.pathname}`;
	return { ...request, pathname };
}

/** Serves an answer whole or streamed; with `cutAfter`, drops the connection part way. */
async function serveAnswer(
	res: ServerResponse,
	wire: Wire,
	turn: AnswerTurn,
	call: ModelCall,
	request: WireRequest,
	cutAfter: number | undefined,
	beforeFrame?: StandInOptions['beforeStreamFrame'],
): Promise<void> {
	if (!call.stream) {
		const reply = wire.answer(turn, call, request);
		if (cutAfter === undefined) return send(res, reply);
		const { headers, text } = serialized(reply);
		res.writeHead(reply.status, headers);
		await write(res, text.slice(0, Math.floor(text.length / 2)));
		res.socket?.end();
		return;
	}
	const { headers, frames } = wire.stream(turn, call, request);
	res.writeHead(200, headers);
	res.flushHeaders();
	for (const [n, frame] of frames.entries()) {
		if (n === cutAfter) break;
		await beforeFrame?.(frame);
		await write(res, frame);
	}
	// Ending the socket (not the response) flushes what was written, then closes before the stream's end.
	if (cutAfter !== undefined) res.socket?.end();
	else res.end();
}

export async function startStandIn<D extends DialectId>(
	dialect: D,
	options: StandInOptions = {},
): Promise<StandIn<RequestBodies[D]>> {
	const wire = WIRES[dialect](options);
	const requests: Array<RecordedRequest<RequestBodies[D]>> = [];
	const turns: Turn[] = [];
	const sockets = new Set<Socket>();
	let connections = 0;

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const request = servedUnder(await toWireRequest(req), options.basePath, wire.basePath);
		const { method, url, headers, body } = request;
		requests.push({ method, path: url, headers, body: body as RequestBodies[D] | undefined });
		for (const [name, value] of Object.entries(wire.replyHeaders())) res.setHeader(name, value);

		const refused = wire.checkAuth(request, options.apiKey);
		if (refused) return send(res, refused);
		const route = wire.route(request);
		if (!route) return send(res, wire.notFound(request));
		if (route.kind === 'models')
			return send(res, {
				status: 200,
				body: options.modelListBody ?? wire.modelList(options.models),
			});
		const invalid = wire.validate(request);
		if (invalid) return send(res, invalid);
		// The vendor's documented rules for tools, refused the way the vendor refuses a bad request.
		const broken = isRecord(body) ? ruleViolations(dialect, body) : [];
		if (broken.length > 0)
			return send(res, wire.error(400, { message: `Invalid tools: ${broken.join('; ')}` }));

		const turn = turns.shift();
		if (!turn) {
			// x-should-retry stops the SDKs retrying, so the test fails at once on this message.
			const called = `${method} ${request.pathname}`;
			const message = `The stand-in's script ran out: nothing scripted for request ${requests.length} (${called}).`;
			return send(res, wire.error(500, { message }), { 'x-should-retry': 'false' });
		}
		switch (turn.kind) {
			case 'answer':
				return serveAnswer(res, wire, turn, route, request, undefined, options.beforeStreamFrame);
			case 'cut':
				return serveAnswer(res, wire, turn.answer, route, request, turn.afterChunks);
			case 'error':
				return send(
					res,
					wire.error(turn.status, turn.fields, turn.retryAfterSeconds),
					turn.headers,
				);
			case 'raw':
				res.writeHead(turn.status, turn.headers);
				res.end(turn.body);
				return;
		}
	}

	const server = createServer((req, res) => {
		handle(req, res).catch(() => {
			// The client went away mid-reply (an aborted stream, say): nothing is left to answer.
			res.destroy();
		});
	});
	server.on('connection', (socket) => {
		connections++;
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		dialect,
		baseURL: `http://127.0.0.1:${port}${options.basePath ?? wire.basePath}`,
		requests,
		connections: () => connections,
		script(...more) {
			turns.push(...more);
		},
		remaining: () => turns.length,
		close() {
			// Connections the client pools, or that are mid-request, would hold close() open: end them now.
			for (const socket of sockets) socket.destroy();
			return new Promise((resolve, reject) =>
				server.close((err) => (err ? reject(err) : resolve())),
			);
		},
	};
}
