import {
	CallToolResultSchema,
	ErrorCode,
	McpError,
	ResultSchema,
	ToolListChangedNotificationSchema,
	ToolSchema,
	type CallToolResult,
	type JSONRPCMessage,
	type GetPromptResult,
	type Prompt as McpPrompt,
	type ReadResourceResult,
	type Resource as McpResource,
	type ResourceTemplate as McpResourceTemplate,
	type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import {
	StreamableHTTPClientTransport,
	StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/depth';
import { jsonText } from '../json/stringify';
import { formatBytes } from '../util/formatBytes';
import { MAX_TIMER_MS, timerMs } from '../util/timers';
import {
	CallCancelledError,
	CallTimeoutError,
	ConnectionLostError,
	MalformedResultError,
	ResultTooLargeError,
	UnansweredCallError,
} from './callErrors';
import { connectClient, type ConnectedClient } from './transport';
import type { McpServerConfig } from './config';
import type { ElicitationOptions } from './serverRequests';
import { DEFAULT_MAX_MESSAGE_BYTES } from './localAnswers';
import { StdioTransport, type SpawnedProcess } from './stdioTransport';

export type {
	CallToolResult,
	GetPromptResult,
	McpPrompt,
	McpResource,
	McpResourceTemplate,
	McpTool,
	ReadResourceResult,
};

export interface ServerIdentity {
	name: string;
	version: string;
	protocolVersion: string;
	transport: ConnectedClient['transportName'];
}

/** How one `tools/call` is made: its limits and its cancellation. */
export interface ToolCallOptions {
	/** No answer and no progress for this long ends the call; each progress notification restarts the wait. */
	timeoutMs: number;
	/** The call ends after this long however much progress the server reports; 0 or absent: no cap. */
	maxTotalMs?: number;
	/** A larger result (bytes of its JSON) ends the call with ResultTooLargeError; the connection stays. */
	maxResultBytes?: number;
	signal?: AbortSignal;
	/** How to answer the server if it asks for input (elicitation) during the call; declined by default. */
	elicitation?: ElicitationOptions;
}

/** How long one request for resources or prompts may wait for its answer, and its cancellation. */
export interface RequestLimits {
	timeoutMs?: number;
	signal?: AbortSignal;
}

function requestOptions({ timeoutMs, signal }: RequestLimits) {
	return { ...(timeoutMs !== undefined && { timeout: timeoutMs }), ...(signal && { signal }) };
}

/** How long closing waits for a server to confirm the end of its HTTP session. */
const SESSION_END_MS = 2_000;

/** A tool the server listed whose definition breaks the MCP schema: named, never offered nor called. */
export interface InvalidTool {
	name: string;
	reason: string;
}

export interface ToolListing {
	tools: McpTool[];
	invalid: InvalidTool[];
}

/** Stops a server that keeps answering with a cursor from paging forever. */
const MAX_PAGES = 100;
/** Entries one listing takes at most over all its pages: past it, a listing would fill the memory. */
const MAX_LISTED = 100_000;

/** After a call timed out, a server that does not answer a ping within this long is taken for dead. */
const PING_TIMEOUT_MS = 5_000;

/** The SDK's own wait is left at the longest a timer takes: the call's wait, cap and cancel rule. */
const NO_SDK_TIMEOUT = MAX_TIMER_MS;

/** The notifications this client acts on; any other is dropped on arrival. */
const HANDLED_NOTIFICATIONS = new Set([
	'notifications/progress',
	'notifications/cancelled',
	'notifications/tools/list_changed',
]);
/** Past this many handled notifications in a second, a flooding server's are dropped until the next. */
const MAX_NOTIFICATIONS_PER_SECOND = 1_000;

/**
 * One live session with one MCP server. Knows when it has died (process exit, closed stream,
 * unreachable server, no answer to a ping after a timeout) so that the pool can drop it and the
 * next use reconnects. A JSON-RPC error the server sends never counts as its death.
 */
export class McpConnection {
	private alive = true;
	/** A new session replacing the one the server forgot (its 404), made once for every request that met it. */
	private renewal?: { of: ConnectedClient; done: Promise<void> };
	private closing?: Promise<void>;
	private cachedListing?: Promise<ToolListing>;
	private liveness?: Promise<boolean>;
	private readonly closeListeners: Array<() => void> = [];
	/** The result size each call in flight allows: the session reads messages up to the largest. */
	private readonly resultLimits = new Set<{ bytes: number }>();
	/** It did not answer a ping after a timeout. */
	private unresponsive = false;

	private constructor(
		private connected: ConnectedClient,
		/** Connects afresh to the same server: a new session when the server forgot this one. */
		private readonly reconnect: () => Promise<ConnectedClient>,
	) {
		this.attach(connected);
	}

	static async open(
		config: McpServerConfig,
		connectTimeoutMs: number,
		onSpawned?: (process: SpawnedProcess) => void,
	): Promise<McpConnection> {
		const reconnect = () => connectClient(config, connectTimeoutMs, onSpawned);
		return new McpConnection(await reconnect(), reconnect);
	}

	/** The server as its current session's initialize described it. */
	get server(): ServerIdentity {
		const { client, protocolVersion, transportName } = this.connected;
		const info = client.getServerVersion();
		return {
			name: info?.name ?? 'unknown',
			version: info?.version ?? 'unknown',
			protocolVersion,
			transport: transportName,
		};
	}

	private attach(connected: ConnectedClient): void {
		connected.client.onclose = () => {
			if (connected === this.connected) this.markDead();
		};
		connected.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
			this.cachedListing = undefined;
		});
		boundNotifications(connected.transport);
		if (connected.transport instanceof SSEClientTransport) endsWithItsStream(connected);
	}

	get isAlive(): boolean {
		return this.alive;
	}

	get pid(): number | undefined {
		return this.connected.pid;
	}

	onClose(listener: () => void): void {
		this.closeListeners.push(listener);
	}

	/** The valid tools of every page of `tools/list`; see `listing` for the invalid ones. */
	async listTools(options: { fresh?: boolean; timeoutMs?: number } = {}): Promise<McpTool[]> {
		return (await this.listing(options)).tools;
	}

	/**
	 * The valid listed tool of this name. A name the cached listing lacks is listed afresh once
	 * before it counts as unknown: a server redeployed with new tools may not have said so
	 * (a stateless one cannot send `notifications/tools/list_changed`).
	 */
	async findTool(name: string): Promise<McpTool | undefined> {
		const named = (tools: McpTool[]) => tools.find((tool) => tool.name === name);
		return named(await this.listTools()) ?? named(await this.listTools({ fresh: true }));
	}

	/**
	 * Every page of `tools/list`, each tool checked on its own: one broken definition costs that
	 * tool, not the list. `fresh` skips the cache that `notifications/tools/list_changed` clears.
	 */
	listing(options: { fresh?: boolean; timeoutMs?: number } = {}): Promise<ToolListing> {
		if (options.fresh || !this.cachedListing) {
			const listing = this.guard(() => this.fetchListing(options.timeoutMs));
			listing.catch(() => (this.cachedListing = undefined));
			this.cachedListing = listing;
		}
		return this.cachedListing;
	}

	/**
	 * `tools/call` without the SDK's own outputSchema check: the caller validates structuredContent
	 * itself so a mismatch becomes an error result instead of a thrown call. Fails with one of the
	 * errors of callErrors.ts, or the McpError the server answered with.
	 */
	async callTool(
		name: string,
		args: Record<string, unknown>,
		options: ToolCallOptions,
	): Promise<CallToolResult> {
		if (options.signal?.aborted) throw new CallCancelledError(false);
		const limit = { bytes: options.maxResultBytes ?? DEFAULT_MAX_MESSAGE_BYTES };
		this.resultLimits.add(limit);
		this.readUpTo();
		// The wait, the total cap and a cancellation all abort the request, each with its own reason.
		const ending = new AbortController();
		const end = (reason: 'wait' | 'total' | 'cancelled') => ending.abort(reason);
		let wait = setTimeout(() => end('wait'), timerMs(options.timeoutMs));
		const total = options.maxTotalMs
			? setTimeout(() => end('total'), timerMs(options.maxTotalMs))
			: undefined;
		const cancel = () => end('cancelled');
		options.signal?.addEventListener('abort', cancel, { once: true });
		try {
			const result = await this.guard(() =>
				this.connected.serverRequests.during(
					options.elicitation ?? {},
					() =>
						this.connected.client.request(
							{ method: 'tools/call', params: { name, arguments: args } },
							CallToolResultSchema,
							{
								timeout: NO_SDK_TIMEOUT,
								// A progress handler makes the SDK send a progressToken, which servers need to report progress.
								onprogress: () => {
									clearTimeout(wait);
									wait = setTimeout(() => end('wait'), timerMs(options.timeoutMs));
								},
								signal: ending.signal,
							},
						) as Promise<CallToolResult>,
				),
			);
			checkSize(result, limit.bytes);
			return result;
		} catch (error) {
			throw await this.callFailure(error, ending.signal.reason as string | undefined, {
				...options,
				maxResultBytes: limit.bytes,
			});
		} finally {
			clearTimeout(wait);
			clearTimeout(total);
			options.signal?.removeEventListener('abort', cancel);
			this.resultLimits.delete(limit);
			this.readUpTo();
		}
	}

	/** Every page of `resources/list`. */
	listResources(limits: RequestLimits = {}): Promise<McpResource[]> {
		return this.guard(() =>
			this.withCapability('resources/list', 'resources', (params) =>
				this.connected.client
					.listResources(params, requestOptions(limits))
					.then((page) => ({ ...page, items: page.resources })),
			),
		);
	}

	/** Every page of `resources/templates/list`. */
	listResourceTemplates(limits: RequestLimits = {}): Promise<McpResourceTemplate[]> {
		return this.guard(() =>
			this.withCapability('resources/templates/list', 'resources', (params) =>
				this.connected.client
					.listResourceTemplates(params, requestOptions(limits))
					.then((page) => ({ ...page, items: page.resourceTemplates })),
			),
		);
	}

	readResource(uri: string, limits: RequestLimits = {}): Promise<ReadResourceResult> {
		return this.guard(() => {
			this.requireCapability('resources/read', 'resources');
			return this.connected.client.readResource({ uri }, requestOptions(limits));
		});
	}

	/** Every page of `prompts/list`. */
	listPrompts(limits: RequestLimits = {}): Promise<McpPrompt[]> {
		return this.guard(() =>
			this.withCapability('prompts/list', 'prompts', (params) =>
				this.connected.client
					.listPrompts(params, requestOptions(limits))
					.then((page) => ({ ...page, items: page.prompts })),
			),
		);
	}

	getPrompt(
		name: string,
		args: Record<string, string> = {},
		limits: RequestLimits = {},
	): Promise<GetPromptResult> {
		return this.guard(() => {
			this.requireCapability('prompts/get', 'prompts');
			return this.connected.client.getPrompt({ name, arguments: args }, requestOptions(limits));
		});
	}

	/** The server's last stderr lines (stdio only), redacted: the usual explanation of a crash. */
	stderrTail(): string {
		return this.connected.stderr?.read() ?? '';
	}

	/** Ends the session and its server process; resolves once the process is gone. */
	close(): Promise<void> {
		if (!this.closing) {
			// Known before ending starts: the close listeners it calls may ask for it again.
			let ended!: () => void;
			this.closing = new Promise<void>((resolve) => (ended = resolve));
			void this.end().finally(ended);
		}
		return this.closing;
	}

	private async end(): Promise<void> {
		const wasAlive = this.alive;
		this.markDead();
		// A Streamable HTTP session is ended explicitly (DELETE), so a stateful server frees it now.
		const { transport } = this.connected;
		if (wasAlive && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
			await withinMs(SESSION_END_MS, transport.terminateSession()).catch(() => undefined);
		}
		// A server that stopped answering is killed outright; others get to stop by themselves.
		if (this.unresponsive && transport instanceof StdioTransport) await transport.kill();
		await this.connected.client.close().catch(() => undefined);
	}

	private async callFailure(
		error: unknown,
		ended: string | undefined,
		options: ToolCallOptions,
	): Promise<unknown> {
		if (error instanceof ConnectionLostError || error instanceof ResultTooLargeError) return error;
		if (ended === 'cancelled') return new CallCancelledError(true);
		if (ended === 'wait' || ended === 'total') {
			const ms = ended === 'wait' ? options.timeoutMs : options.maxTotalMs!;
			return new CallTimeoutError(ended, ms, await this.answersPing());
		}
		const local = this.connected.reader.answers.failureOf(error);
		if (local?.kind === 'tooLarge')
			return tooLarge(local.bytes, options.maxResultBytes!, local.cut);
		if (local?.kind === 'unanswered') return new UnansweredCallError(local.why);
		if (isSchemaError(error)) return new MalformedResultError(zodSummary(error));
		return error;
	}

	/**
	 * Whether the server still answers, asked once however many calls timed out together. One
	 * that does not is dropped and its process ended: the next call starts it afresh.
	 */
	private answersPing(): Promise<boolean> {
		if (!this.alive) return Promise.resolve(false);
		this.liveness ??= this.connected.client
			.ping({ timeout: PING_TIMEOUT_MS })
			.then(
				() => true,
				() => false,
			)
			.then((answers) => {
				if (!answers) {
					this.unresponsive = true;
					void this.close();
				}
				return answers;
			})
			.finally(() => (this.liveness = undefined));
		return this.liveness;
	}

	/** The session reads messages as large as the most generous call in flight allows. */
	private readUpTo(): void {
		const limits = [...this.resultLimits].map((limit) => limit.bytes);
		this.connected.reader.maxMessageBytes = Math.max(DEFAULT_MAX_MESSAGE_BYTES, ...limits);
	}

	private async fetchListing(timeoutMs?: number): Promise<ToolListing> {
		const raw = await this.allPages('tools/list', async (params) => {
			const page = await this.connected.client.request(
				{ method: 'tools/list', ...(params && { params }) },
				ResultSchema,
				timeoutMs === undefined ? undefined : { timeout: timeoutMs },
			);
			if (!Array.isArray(page.tools))
				throw new MalformedResultError('The server answered tools/list without a tools array');
			const nextCursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
			return { items: page.tools as unknown[], nextCursor };
		});
		const listing: ToolListing = { tools: [], invalid: [] };
		for (const tool of raw) addTool(listing, tool);
		return listing;
	}

	/** Follows nextCursor to the last page; a server that never stops paging is cut off. */
	private async allPages<T>(
		method: string,
		page: (params?: { cursor: string }) => Promise<{ items: T[]; nextCursor?: string }>,
	): Promise<T[]> {
		const items: T[] = [];
		let cursor: string | undefined;
		for (let count = 0; count < MAX_PAGES; count++) {
			const result = await page(cursor === undefined ? undefined : { cursor });
			// One by one: a spread of a page of a few hundred thousand entries overflows the stack.
			for (const item of result.items) items.push(item);
			if (items.length > MAX_LISTED)
				throw new MalformedResultError(
					`The server's ${method} lists more than ${MAX_LISTED} entries, more than can be passed on`,
				);
			cursor = result.nextCursor;
			if (!cursor) return items;
		}
		throw new MalformedResultError(
			`The server kept returning a nextCursor after ${MAX_PAGES} pages of ${method}`,
		);
	}

	private async withCapability<T>(
		method: string,
		capability: 'resources' | 'prompts',
		page: (params?: { cursor: string }) => Promise<{ items: T[]; nextCursor?: string }>,
	): Promise<T[]> {
		this.requireCapability(method, capability);
		const items = await this.allPages(method, page);
		// What an item carries would not be stored or shown (tools too deep are left out when listed).
		if (items.some((item) => nestsDeeperThan(item, MAX_JSON_DEPTH)))
			throw new MalformedResultError(
				`An entry of the server's ${method} nests deeper than ${MAX_JSON_DEPTH} levels, more than can be passed on`,
			);
		return items;
	}

	/** A clear answer for resources and prompts where the server would only say "Method not found". */
	private requireCapability(method: string, capability: 'resources' | 'prompts'): void {
		if (this.connected.client.getServerCapabilities()?.[capability] === undefined) {
			throw new McpError(
				ErrorCode.MethodNotFound,
				`The server offers no ${capability} (it declared no ${capability} capability), so ${method} cannot be used`,
			);
		}
	}

	/**
	 * A failure of the transport itself (not a JSON-RPC error the server sent) means this session is
	 * gone. A session the server forgot (restarted, or expired it: 404) is replaced, as MCP asks, and
	 * the request sent once more on the new one: the server never processed it, so even a tools/call
	 * runs once.
	 */
	private async guard<T>(request: () => Promise<T>, resent = false): Promise<T> {
		const connected = this.connected;
		try {
			return await request();
		} catch (error) {
			if (!resent && this.alive && isForgottenSession(error, connected)) {
				const renewed = await this.renewSession(connected).then(
					() => true,
					() => false,
				);
				if (renewed) return this.guard(request, true);
			}
			// The SDK fails the pending requests of a closed transport with its own McpError, of the
			// code -32000 that servers send too: that the connection (or the request's session,
			// replaced) closed first tells them apart.
			const closed = !this.alive || connected !== this.connected;
			if (closed && error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
				throw new ConnectionLostError('The connection closed');
			if (!this.alive || isTransportFailure(error)) void this.close();
			// An answer that breaks the MCP schema, said in a line (zod's own error is read-only).
			if (isSchemaError(error)) throw new MalformedResultError(zodSummary(error));
			throw error;
		}
	}

	/** Connects anew in place of the forgotten session; the tools are listed afresh after it. */
	private renewSession(forgotten: ConnectedClient): Promise<void> {
		if (this.connected !== forgotten) return Promise.resolve();
		if (this.renewal?.of !== forgotten) {
			const done = this.reconnect().then(async (fresh) => {
				if (!this.alive) {
					await fresh.client.close().catch(() => undefined);
					throw new ConnectionLostError('The connection closed');
				}
				this.connected = fresh;
				this.attach(fresh);
				this.cachedListing = undefined;
				// The server has no such session to end: the old client is closed here only.
				await forgotten.client.close().catch(() => undefined);
			});
			this.renewal = { of: forgotten, done };
		}
		return this.renewal.done;
	}

	private markDead(): void {
		if (!this.alive) return;
		this.alive = false;
		for (const listener of this.closeListeners.splice(0)) listener();
	}
}

/** One tool of a tools/list page, kept when valid; named with the reason when not. */
function addTool(listing: ToolListing, raw: unknown): void {
	const rawName = (raw as { name?: unknown } | null)?.name;
	const name =
		typeof rawName === 'string'
			? rawName
			: `(tool ${listing.tools.length + listing.invalid.length + 1} has no name)`;
	const parsed = ToolSchema.safeParse(raw);
	let reason: string | undefined;
	if (!parsed.success) reason = zodSummary(parsed.error);
	else if (nestsDeeperThan(parsed.data, MAX_JSON_DEPTH))
		reason = `its definition nests deeper than ${MAX_JSON_DEPTH} levels`;
	else if (listing.tools.some((tool) => tool.name === name))
		reason = 'another tool of the list has the same name (the first is kept)';
	if (reason) listing.invalid.push({ name, reason });
	else listing.tools.push(parsed.data as McpTool);
}

/**
 * A legacy SSE session lives as long as its stream. Once the stream fails, the SDK only reports it
 * and the `eventsource` library reconnects quietly, to no server or to one that never initialized
 * this session: the connection is closed instead, its calls fail as lost and the next use connects
 * afresh.
 */
function endsWithItsStream({ client, transport }: ConnectedClient): void {
	const report = transport.onerror;
	transport.onerror = (error) => {
		report?.(error);
		// Once the library has scheduled its reconnect, which closing then clears.
		if (error instanceof SseError) queueMicrotask(() => void client.close().catch(() => undefined));
	};
}

/** Drops the notifications nobody handles, and a flood of those somebody does, as they arrive. */
function boundNotifications(transport: Transport): void {
	const deliver = transport.onmessage;
	if (!deliver) return;
	let second = 0;
	let count = 0;
	transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
		if ('method' in message && !('id' in message)) {
			if (!HANDLED_NOTIFICATIONS.has(message.method)) return;
			const now = Math.floor(Date.now() / 1000);
			if (now !== second) [second, count] = [now, 0];
			if (++count > MAX_NOTIFICATIONS_PER_SECOND) return;
		}
		(deliver as (message: JSONRPCMessage, extra?: unknown) => void)(message, extra);
	};
}

function checkSize(result: CallToolResult, maxBytes: number): void {
	if (nestsDeeperThan(result, MAX_JSON_DEPTH))
		throw new ResultTooLargeError(
			`The result nests deeper than ${MAX_JSON_DEPTH} levels, more than can be passed on`,
		);
	const bytes = Buffer.byteLength(jsonText(result) ?? '');
	if (bytes > maxBytes) throw tooLarge(bytes, maxBytes);
}

/** `cut`: reading stopped past the limit, so the whole size is not known. */
function tooLarge(bytes: number, limit: number, cut = false): ResultTooLargeError {
	const allowed = `the ${formatBytes(limit)} allowed (Max Result Size)`;
	return new ResultTooLargeError(
		cut
			? `The result is larger than ${allowed}`
			: `The result is ${formatBytes(bytes)}, more than ${allowed}`,
	);
}

/** The first issues zod found, as `path: message` lines. */
/**
 * The SDK's answer to a result that fails its schema (a content part of a type it does not know,
 * structuredContent that is no object): zod's error, named `ZodError` or (zod 4) `$ZodError`,
 * known by its list of issues.
 */
export function isSchemaError(error: unknown): boolean {
	return (
		error instanceof Error &&
		['ZodError', '$ZodError'].includes(error.name) &&
		Array.isArray((error as { issues?: unknown }).issues)
	);
}

function zodSummary(error: unknown): string {
	const issues =
		(error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues ?? [];
	return (
		issues
			.slice(0, 3)
			.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
			.join('; ') || String((error as Error).message)
	);
}

function withinMs<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<undefined>(
		(resolve) => (timer = setTimeout(() => resolve(undefined), ms).unref()),
	);
	return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** A Streamable HTTP server's 404 to a request of an established session: it no longer knows the session. */
function isForgottenSession(error: unknown, connected: ConnectedClient): boolean {
	const { transport } = connected;
	return (
		error instanceof StreamableHTTPError &&
		error.code === 404 &&
		transport instanceof StreamableHTTPClientTransport &&
		transport.sessionId !== undefined
	);
}

/**
 * A failure of the wire rather than an answer: not a JSON-RPC error, not a cancellation, not a
 * result that failed its schema, not one of the failures this client makes up itself, and not a
 * server that answered a request of a working session with a busy or failing status (429, 5xx),
 * which fails that request only: the session, and a stateful server's state, stay.
 */
export function isTransportFailure(error: unknown): boolean {
	if (error instanceof McpError || isSchemaError(error)) return false;
	if (error instanceof StreamableHTTPError && isServerStatus(error.code)) return false;
	const name = (error as Error | undefined)?.name;
	return ![
		'AbortError',
		'CallTimeoutError',
		'CallCancelledError',
		'ResultTooLargeError',
		'MalformedResultError',
	].includes(name ?? '');
}

/** An HTTP status of a server that is busy (429) or failed on this request (5xx). */
export function isServerStatus(status: number | undefined): boolean {
	return status === 429 || (status !== undefined && status >= 500 && status <= 599);
}
