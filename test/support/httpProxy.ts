import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The next tools/call the proxy was told to take over, and the means to answer it. */
export interface TakenCall {
	res: http.ServerResponse;
	/** Sends the request on to the server; its response is not passed back yet. */
	forward(): Promise<Response>;
	/** Passes the server's response back (status, headers, body as it comes). */
	relay(upstream: Response): Promise<void>;
}

const FORWARDED_HEADERS = [
	'content-type',
	'accept',
	'mcp-session-id',
	'mcp-protocol-version',
	'last-event-id',
];

/**
 * A proxy on loopback in front of an MCP server over HTTP. It passes every request on, except the
 * next tools/call it is told to take over: the test answers that one itself, as a misbehaving
 * server (or a proxy between) would.
 */
export async function mcpProxy(target: string) {
	let takeOver: ((call: TakenCall) => Promise<void> | void) | undefined;
	/** The streams a client asked to resume (a GET with Last-Event-ID). */
	const resumed: string[] = [];
	let resumeAnswer: { status: number; headers: Record<string, string> } | undefined;
	const server = http.createServer((req, res) => {
		if (req.method === 'GET' && req.headers['last-event-id'] !== undefined) {
			resumed.push(String(req.headers['last-event-id']));
			const answer = resumeAnswer;
			resumeAnswer = undefined;
			if (answer) return void res.writeHead(answer.status, answer.headers).end();
		}
		// A stream cut when the test ends its server ends the answer it was passing on.
		handle(req, res).catch(() => res.destroy());
	});
	const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const body = Buffer.concat(chunks);
		const forward = () =>
			fetch(target, {
				method: req.method,
				headers: Object.fromEntries(
					FORWARDED_HEADERS.filter((name) => req.headers[name] !== undefined).map((name) => [
						name,
						String(req.headers[name]),
					]),
				),
				body: req.method === 'POST' ? body : undefined,
			});
		const relay = async (upstream: Response) => {
			res.writeHead(
				upstream.status,
				Object.fromEntries(
					[...upstream.headers].filter(
						([name]) => !['content-length', 'transfer-encoding', 'connection'].includes(name),
					),
				),
			);
			if (upstream.body) for await (const chunk of upstream.body) res.write(chunk);
			res.end();
		};
		const taken = takeOver;
		if (taken && body.includes('"tools/call"')) {
			takeOver = undefined;
			await taken({ res, forward, relay });
			return;
		}
		await relay(await forward());
	};
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
		resumed,
		/** The next resumption (a GET with Last-Event-ID) is answered with this status, unforwarded. */
		answerNextResume(status: number, headers: Record<string, string> = {}) {
			resumeAnswer = { status, headers };
		},
		/** The next tools/call is answered by `handler`. */
		takeNextCall(handler: (call: TakenCall) => Promise<void> | void) {
			takeOver = handler;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
