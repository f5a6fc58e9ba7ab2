import {
	CallToolResultSchema,
	ErrorCode,
	McpError,
	ToolListChangedNotificationSchema,
	type CallToolResult,
	type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectClient, type ConnectedClient } from './transport';
import { describeConfig, type McpServerConfig } from './config';
import type { ElicitationOptions } from './serverRequests';

export type { CallToolResult, McpTool };

export interface ServerIdentity {
	name: string;
	version: string;
	protocolVersion: string;
	transport: ConnectedClient['transportName'];
}

/** How one `tools/call` is made: its timeout (restarted by progress) and its cancellation. */
export interface ToolCallOptions {
	timeoutMs: number;
	signal?: AbortSignal;
	/** How to answer the server if it asks for input (elicitation) during the call; declined by default. */
	elicitation?: ElicitationOptions;
}

/** How long closing waits for a server to confirm the end of its HTTP session. */
const SESSION_END_MS = 2_000;

/** Stops a server that keeps answering with a cursor from paging forever. */
const MAX_TOOL_PAGES = 100;

/**
 * One live session with one MCP server. Knows when it has died (process exit, closed stream,
 * unreachable server) so that the pool can drop it and the next use reconnects.
 */
export class McpConnection {
	private alive = true;
	private cachedTools?: Promise<McpTool[]>;
	private readonly closeListeners: Array<() => void> = [];

	private constructor(
		private readonly connected: ConnectedClient,
		readonly server: ServerIdentity,
		readonly description: string,
	) {
		connected.client.onclose = () => this.markDead();
		connected.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
			this.cachedTools = undefined;
		});
	}

	static async open(config: McpServerConfig, connectTimeoutMs: number): Promise<McpConnection> {
		const connected = await connectClient(config, connectTimeoutMs);
		const info = connected.client.getServerVersion();
		const server: ServerIdentity = {
			name: info?.name ?? 'unknown',
			version: info?.version ?? 'unknown',
			protocolVersion: connected.protocolVersion,
			transport: connected.transportName,
		};
		return new McpConnection(connected, server, describeConfig(config));
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

	/** Every page of `tools/list`. `fresh` skips the cache that `notifications/tools/list_changed` clears. */
	listTools(options: { fresh?: boolean } = {}): Promise<McpTool[]> {
		if (options.fresh || !this.cachedTools) {
			const listing = this.guard(() => this.fetchAllTools());
			listing.catch(() => (this.cachedTools = undefined));
			this.cachedTools = listing;
		}
		return this.cachedTools;
	}

	/**
	 * `tools/call` without the SDK's own outputSchema check: the caller validates structuredContent
	 * itself so a mismatch becomes an error result instead of a thrown call.
	 * The timeout restarts on each progress notification.
	 */
	callTool(
		name: string,
		args: Record<string, unknown>,
		options: ToolCallOptions,
	): Promise<CallToolResult> {
		return this.guard(() =>
			this.connected.serverRequests.during(
				options.elicitation ?? {},
				() =>
					this.connected.client.request(
						{ method: 'tools/call', params: { name, arguments: args } },
						CallToolResultSchema,
						{
							timeout: options.timeoutMs,
							resetTimeoutOnProgress: true,
							// A progress handler makes the SDK send a progressToken, which servers need to report progress.
							onprogress: () => undefined,
							signal: options.signal,
						},
					) as Promise<CallToolResult>,
			),
		);
	}

	/** The server's last stderr lines (stdio only): the usual explanation of a crash. */
	stderrTail(): string {
		return this.connected.stderr?.read() ?? '';
	}

	async close(): Promise<void> {
		const wasAlive = this.alive;
		this.markDead();
		// A Streamable HTTP session is ended explicitly (DELETE), so a stateful server frees it now.
		const { transport } = this.connected;
		if (wasAlive && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
			await withinMs(SESSION_END_MS, transport.terminateSession()).catch(() => undefined);
		}
		await this.connected.client.close().catch(() => undefined);
	}

	private async fetchAllTools(): Promise<McpTool[]> {
		const tools: McpTool[] = [];
		let cursor: string | undefined;
		for (let page = 0; page < MAX_TOOL_PAGES; page++) {
			const result = await this.connected.client.listTools(
				cursor === undefined ? undefined : { cursor },
			);
			tools.push(...result.tools);
			cursor = result.nextCursor;
			if (!cursor) return tools;
		}
		throw new Error(
			`The server kept returning a nextCursor after ${MAX_TOOL_PAGES} pages of tools/list`,
		);
	}

	/** A failure of the transport itself (not a JSON-RPC error the server sent) means this session is gone. */
	private async guard<T>(request: () => Promise<T>): Promise<T> {
		try {
			return await request();
		} catch (error) {
			if (isTransportFailure(error)) void this.close();
			throw error;
		}
	}

	private markDead(): void {
		if (!this.alive) return;
		this.alive = false;
		for (const listener of this.closeListeners.splice(0)) listener();
	}
}

function withinMs<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<undefined>(
		(resolve) => (timer = setTimeout(() => resolve(undefined), ms).unref()),
	);
	return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function isTransportFailure(error: unknown): boolean {
	if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
	// A cancelled call or a malformed result leaves the session usable; anything else is the wire failing.
	const name = (error as Error | undefined)?.name;
	return name !== 'AbortError' && name !== 'ZodError';
}
