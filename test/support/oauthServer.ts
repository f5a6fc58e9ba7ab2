import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { childEnv, OAUTH_SERVER } from './servers';

export interface OAuthServerHandle {
	/** Streamable HTTP endpoint, the protected resource. */
	mcp: string;
	/** Legacy SSE endpoint of the same server. */
	sse: string;
	/** The authorization server, another origin. */
	issuer: string;
	/** Counts of registrations, authorizations, tokens, refreshes and MCP requests so far. */
	stats(): Promise<Record<string, number>>;
	output(): string;
	stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Starts test/servers/oauth-server.mjs with the given arguments; resolves with its URLs once it listens. */
export async function startOAuthServer(args: string[] = []): Promise<OAuthServerHandle> {
	const child = spawn(process.execPath, [OAUTH_SERVER, ...args], {
		env: childEnv(),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	running.add(child);
	child.unref();
	let output = '';
	child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
		output = (output + chunk).slice(-16_000);
	});
	const firstLine = await new Promise<string>((resolve, reject) => {
		const lines = createInterface({ input: child.stdout! });
		const timer = setTimeout(
			() => reject(new Error(`oauth-server did not start\n${output}`)),
			30_000,
		);
		lines.once('line', (line) => {
			clearTimeout(timer);
			resolve(line);
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`oauth-server exited with ${code}\n${output}`));
		});
	});
	const urls = JSON.parse(firstLine) as { mcp: string; sse: string; issuer: string; stats: string };
	return {
		...urls,
		stats: async () => (await fetch(urls.stats)).json() as Promise<Record<string, number>>,
		output: () => output,
		stop: () => stopChild(child),
	};
}

async function stopChild(child: ChildProcess): Promise<void> {
	running.delete(child);
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise((resolve) => child.once('exit', resolve));
	child.kill('SIGTERM');
	await exited;
}

export async function stopOAuthServers(): Promise<void> {
	await Promise.all([...running].map(stopChild));
}
