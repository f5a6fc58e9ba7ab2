import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
	StreamableHTTPClientTransport,
	StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createRedactor } from '../json/redact';
import { OWN_PACKAGE } from '../util/manifest';
import { timerMs } from '../util/timers';
import {
	secretsOf,
	type HttpServerConfig,
	type McpServerConfig,
	type StdioServerConfig,
} from './config';
import { recoverAuthorization } from './oauth/recovery';
import { OAUTH_REQUEST_TIMEOUT_MS } from './oauth/trail';
import { outboundFetch } from '../http/outbound';
import { HttpExchanges, RESUME_ATTEMPTS } from './httpExchanges';
import type { MessageReader } from './localAnswers';
import { capabilitiesOf, ServerRequests, type SamplingCapability } from './serverRequests';
import { StderrTail } from './stderrTail';
import { StdioTransport, type SpawnedProcess } from './stdioTransport';

export const CLIENT_INFO = { name: OWN_PACKAGE.name, version: OWN_PACKAGE.version };

export interface ConnectedClient {
	client: Client;
	transport: Transport;
	protocolVersion: string;
	transportName: 'stdio' | 'streamableHttp' | 'sse';
	/** Answers the server's elicitation and sampling requests for the call they belong to. */
	serverRequests: ServerRequests;
	/** Reads the server's messages: how large they may be, and the answers it makes up. */
	reader: MessageReader;
	stderr?: StderrTail;
	pid?: number;
}

/** Connects and initializes; `onSpawned` learns of a stdio server's process as soon as it runs. */
export async function connectClient(
	config: McpServerConfig,
	connectTimeoutMs: number,
	onSpawned?: (process: SpawnedProcess) => void,
): Promise<ConnectedClient> {
	if (config.transport === 'stdio') return connectStdio(config, connectTimeoutMs, onSpawned);
	// An OAuth request that hangs fails before the connect does, so the error names its step.
	const requestTimeoutMs = Math.min(OAUTH_REQUEST_TIMEOUT_MS, (connectTimeoutMs * 3) / 4);
	const over = (kind: 'streamableHttp' | 'sse', leftMs = connectTimeoutMs) => {
		const { transport, reader } = httpTransport(kind, config, requestTimeoutMs);
		return connectOver(kind, transport, reader, config.sampling, connectTimeoutMs, leftMs);
	};
	if (config.mode === 'sse') return over('sse');
	const started = Date.now();
	try {
		return await over('streamableHttp');
	} catch (error) {
		// The legacy transport gets what is left of the one connect timeout, not a second one.
		const left = connectTimeoutMs - (Date.now() - started);
		if (config.mode === 'auto' && refusesStreamableHttp(error) && left > 0)
			return over('sse', left);
		throw error;
	}
}

async function connectStdio(
	config: StdioServerConfig,
	connectTimeoutMs: number,
	onSpawned?: (process: SpawnedProcess) => void,
): Promise<ConnectedClient> {
	// Only the configured environment plus PATH reaches the child: none of n8n's own variables.
	const stderr = new StderrTail(createRedactor({ secrets: secretsOf(config) }).all);
	const transport = new StdioTransport(
		{
			command: config.command,
			args: config.args,
			env: { PATH: process.env.PATH ?? '', ...config.env },
			cwd: config.cwd || undefined,
		},
		stderr,
		onSpawned,
	);
	try {
		const connected = await connectOver(
			'stdio',
			transport,
			transport,
			config.sampling,
			connectTimeoutMs,
		);
		return { ...connected, stderr, pid: transport.pid };
	} catch (error) {
		const output = stderr.read();
		throw new Error(
			`${(error as Error).message}${output ? `\nThe server's stderr:\n${output}` : ''}`,
		);
	}
}

/** A Streamable HTTP or legacy SSE transport, and the reader that watches its exchanges. */
function httpTransport(
	kind: 'streamableHttp' | 'sse',
	config: HttpServerConfig,
	requestTimeoutMs: number,
): { transport: Transport; reader: HttpExchanges } {
	const url = new URL(config.url);
	const reader = new HttpExchanges(kind === 'streamableHttp');
	const options = httpOptions(config, url, reader, requestTimeoutMs);
	const transport =
		kind === 'sse'
			? new SSEClientTransport(url, options)
			: new StreamableHTTPClientTransport(url, {
					...options,
					// The SDK's own delays; the attempts are counted by the reader, which ends the call after the last.
					reconnectionOptions: {
						initialReconnectionDelay: 1000,
						maxReconnectionDelay: 30_000,
						reconnectionDelayGrowFactor: 1.5,
						maxRetries: RESUME_ATTEMPTS,
					},
				});
	if (config.oauth) recoverAuthorization(transport, config.oauth);
	// Set before the client connects, which calls it ahead of its own handler for every message.
	transport.onmessage = (message) => reader.delivered(message);
	return { transport, reader };
}

/**
 * Headers, proxy and deadlines through our fetch, whose answers the reader watches; in OAuth mode
 * the session watches it too, and authorizes.
 */
function httpOptions(
	config: HttpServerConfig,
	url: URL,
	reader: HttpExchanges,
	requestTimeoutMs: number,
) {
	let fetch = outboundFetch({
		serverUrl: url,
		headers: config.headers,
		uncancellableTimeoutMs: requestTimeoutMs,
		egress: config.egress,
	});
	if (config.oauth) {
		const session = config.oauth;
		fetch = session.trail.observe(fetch, url, () => session.currentAccessToken());
		config.oauth.bind(url, fetch);
	}
	return { fetch: reader.watch(fetch), authProvider: config.oauth };
}

/** A legacy SSE-only server answers the Streamable HTTP POST with 400, 404 or 405 (spec's backwards-compatibility rule). */
function refusesStreamableHttp(error: unknown): boolean {
	return error instanceof StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0);
}

/** Connects within `leftMs` (what is left of the connect timeout; all of it by default). */
async function connectOver(
	transportName: ConnectedClient['transportName'],
	transport: Transport,
	reader: MessageReader,
	sampling: SamplingCapability | undefined,
	connectTimeoutMs: number,
	leftMs = connectTimeoutMs,
): Promise<ConnectedClient> {
	let protocolVersion = '';
	const setVersion = transport.setProtocolVersion?.bind(transport);
	transport.setProtocolVersion = (version: string) => {
		protocolVersion = version;
		setVersion?.(version);
	};
	const client = new Client(CLIENT_INFO, { capabilities: capabilitiesOf(sampling) });
	const serverRequests = new ServerRequests(client, reader.answers, sampling !== undefined);
	// The SDK's timeout covers initialize only; the deadline covers the transport's start too (an
	// SSE stream that never names its endpoint would wait forever).
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() =>
				reject(
					new Error(
						`Connecting timed out after ${connectTimeoutMs} ms: the server did not complete the MCP handshake`,
					),
				),
			timerMs(leftMs),
		);
	});
	const connecting = client.connect(transport, { timeout: timerMs(leftMs) });
	connecting.catch(() => undefined);
	try {
		await Promise.race([connecting, deadline]);
	} catch (error) {
		await client.close().catch(() => undefined);
		throw error;
	} finally {
		clearTimeout(timer);
	}
	return { client, transport, protocolVersion, transportName, serverRequests, reader };
}
