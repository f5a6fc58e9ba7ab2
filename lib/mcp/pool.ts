import { configKey, type McpServerConfig } from './config';
import { McpConnection } from './connection';
import { endProcessTreesNow } from './processTree';

/** How long process exit waits for pooled servers to end on SIGTERM before it kills them. */
const EXIT_GRACE_MS = 1_000;

export interface PoolOptions {
	/** Connections kept at most; the least recently used idle one is closed first. */
	maxSize: number;
	/** An unused connection is closed (its process ended) after this long. */
	idleTimeoutMs: number;
	/** How long starting a server may take, unless a use says otherwise. */
	connectTimeoutMs: number;
}

export interface UseOptions {
	/**
	 * Who shares the connection: uses of one configuration in different scopes get different
	 * connections (and processes), so a stateful server's data stays within its scope, such as
	 * one workflow. Absent: one scope for all.
	 */
	scope?: string;
	/** How long starting the server may take, when this use starts it. */
	connectTimeoutMs?: number;
}

interface Entry {
	connection: Promise<McpConnection>;
	users: number;
	lastUsed: number;
	idleTimer?: NodeJS.Timeout;
}

/**
 * One connection per server configuration and scope, shared by every item, call and execution
 * in that scope. Dead connections are dropped and the next use reconnects.
 */
export class ConnectionPool {
	private readonly entries = new Map<string, Entry>();
	/** Child processes of live stdio connections, for a synchronous kill when the process exits. */
	private readonly pids = new Set<number>();

	constructor(private readonly options: PoolOptions) {}

	get size(): number {
		return this.entries.size;
	}

	async use<T>(
		config: McpServerConfig,
		work: (connection: McpConnection) => Promise<T>,
		options: UseOptions = {},
	): Promise<T> {
		const key = `${options.scope ?? ''}\n${configKey(config)}`;
		const entry = await this.acquire(key, config, options.connectTimeoutMs);
		try {
			return await work(await entry.connection);
		} finally {
			this.release(key, entry);
		}
	}

	/** Closes every connection and ends every server process; the pool stays usable. */
	async closeAll(): Promise<void> {
		const entries = [...this.entries.values()];
		this.entries.clear();
		await Promise.all(entries.map((entry) => this.closeEntry(entry)));
	}

	/**
	 * For process exit, when nothing asynchronous runs any more: no server process outlives us,
	 * even one deaf to SIGTERM (exit waits up to a second for the others to end by themselves).
	 */
	killProcesses(): void {
		endProcessTreesNow([...this.pids], EXIT_GRACE_MS);
		this.pids.clear();
	}

	private async acquire(
		key: string,
		config: McpServerConfig,
		connectTimeoutMs = this.options.connectTimeoutMs,
	): Promise<Entry> {
		const existing = this.entries.get(key);
		if (!existing) return this.connect(key, config, connectTimeoutMs);
		// A user from now on, while it waits too: an idle entry is not evicted or timed out under it.
		existing.users++;
		clearTimeout(existing.idleTimer);
		// A start that failed fails every use that waited on it, rather than start the server again.
		const connection = await existing.connection.catch((error: unknown) => {
			existing.users--;
			throw error;
		});
		if (connection.isAlive) return existing;
		existing.users--;
		this.forget(key, existing);
		// A dead connection: another caller may have reconnected meanwhile, else this one does.
		return this.acquire(key, config, connectTimeoutMs);
	}

	private connect(key: string, config: McpServerConfig, connectTimeoutMs: number): Entry {
		const entry: Entry = {
			// Known from its start until its process is gone, so process exit can end a server that
			// is still starting, or one slow to close.
			connection: McpConnection.open(config, connectTimeoutMs, ({ pid, exited }) => {
				this.pids.add(pid);
				void exited.then(() => this.pids.delete(pid));
			}),
			users: 1,
			lastUsed: Date.now(),
		};
		this.entries.set(key, entry);
		entry.connection.then(
			(connection) =>
				connection.onClose(() => {
					this.forget(key, entry);
					void connection.close();
				}),
			() => this.forget(key, entry),
		);
		this.evictOverflow();
		return entry;
	}

	private release(key: string, entry: Entry): void {
		entry.users--;
		entry.lastUsed = Date.now();
		if (entry.users > 0 || this.entries.get(key) !== entry) return;
		entry.idleTimer = setTimeout(() => {
			if (entry.users === 0 && this.forget(key, entry)) void this.closeEntry(entry);
		}, this.options.idleTimeoutMs);
		entry.idleTimer.unref();
	}

	/** Over the size bound, close idle connections, least recently used first. Busy ones are never cut off. */
	private evictOverflow(): void {
		const idle = [...this.entries]
			.filter(([, entry]) => entry.users === 0)
			.sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
		for (const [key, entry] of idle) {
			if (this.entries.size <= this.options.maxSize) return;
			this.forget(key, entry);
			void this.closeEntry(entry);
		}
	}

	private forget(key: string, entry: Entry): boolean {
		if (this.entries.get(key) !== entry) return false;
		this.entries.delete(key);
		return true;
	}

	private async closeEntry(entry: Entry): Promise<void> {
		clearTimeout(entry.idleTimer);
		const connection = await entry.connection.catch(() => undefined);
		await connection?.close();
	}
}
