import {
	CallToolResultSchema,
	ErrorCode,
	McpError,
	ToolListChangedNotificationSchema,
	type CallToolResult,
	type GetPromptResult,
	type Prompt as McpPrompt,
	type ReadResourceResult,
	type Resource as McpResource,
	type ResourceTemplate as McpResourceTemplate,
	type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectClient, type ConnectedClient } from './transport';
import { describeConfig, type McpServerConfig } from './config';
import type { ElicitationOptions } from './serverRequests';

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
const MAX_PAGES = 100;

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

	/** Every page of `resources/list`. */
	listResources(): Promise<McpResource[]> {
		return this.guard(() =>
			this.withCapability('resources/list', 'resources', (params) =>
				this.connected.client
					.listResources(params)
					.then((page) => ({ ...page, items: page.resources })),
			),
		);
	}

	/** Every page of `resources/templates/list`. */
	listResourceTemplates(): Promise<McpResourceTemplate[]> {
		return this.guard(() =>
			this.withCapability('resources/templates/list', 'resources', (params) =>
				this.connected.client
					.listResourceTemplates(params)
					.then((page) => ({ ...page, items: page.resourceTemplates })),
			),
		);
	}

	readResource(uri: string): Promise<ReadResourceResult> {
		return this.guard(() => {
			this.requireCapability('resources/read', 'resources');
			return this.connected.client.readResource({ uri });
		});
	}

	/** Every page of `prompts/list`. */
	listPrompts(): Promise<McpPrompt[]> {
		return this.guard(() =>
			this.withCapability('prompts/list', 'prompts', (params) =>
				this.connected.client
					.listPrompts(params)
					.then((page) => ({ ...page, items: page.prompts })),
			),
		);
	}

	getPrompt(name: string, args: Record<string, string> = {}): Promise<GetPromptResult> {
		return this.guard(() => {
			this.requireCapability('prompts/get', 'prompts');
			return this.connected.client.getPrompt({ name, arguments: args });
		});
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

	private fetchAllTools(): Promise<McpTool[]> {
		return this.allPages('tools/list', (params) =>
			this.connected.client.listTools(params).then((page) => ({ ...page, items: page.tools })),
		);
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
			items.push(...result.items);
			cursor = result.nextCursor;
			if (!cursor) return items;
		}
		throw new Error(`The server kept returning a nextCursor after ${MAX_PAGES} pages of ${method}`);
	}

	private withCapability<T>(
		method: string,
		capability: 'resources' | 'prompts',
		page: (params?: { cursor: string }) => Promise<{ items: T[]; nextCursor?: string }>,
	): Promise<T[]> {
		this.requireCapability(method, capability);
		return this.allPages(method, page);
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
