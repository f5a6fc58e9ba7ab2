import { canonicalJson, sha256 } from '../json/canonical';

/** How to start and talk to one MCP server: what a credential describes. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export interface StdioServerConfig {
	transport: 'stdio';
	command: string;
	args: string[];
	/** The child's whole environment, besides PATH: n8n's own variables (its secrets) never pass. */
	env: Record<string, string>;
	cwd?: string;
}

export type HttpTransportMode = 'auto' | 'streamableHttp' | 'sse';

export interface HttpServerConfig {
	transport: 'http';
	url: string;
	/** Sent on every request of every transport (auth headers included). */
	headers: Record<string, string>;
	/** auto: Streamable HTTP, falling back to the legacy SSE transport when the server refuses it. */
	mode: HttpTransportMode;
}

/** Identifies a configuration without exposing its secrets: the pool key. */
export function configKey(config: McpServerConfig): string {
	return sha256(canonicalJson(config));
}

/** The values of a configuration that must never appear in an output or a log. */
export function secretsOf(config: McpServerConfig): string[] {
	if (config.transport === 'stdio') return Object.values(config.env);
	return Object.entries(config.headers).flatMap(([name, value]) =>
		// The token of "Authorization: Bearer <token>" is a secret on its own: a server may repeat it bare.
		/^(proxy-)?authorization$/i.test(name) ? [value, value.replace(/^\S+\s+/, '')] : [value],
	);
}

/** A label for messages: never the headers or environment. */
export function describeConfig(config: McpServerConfig): string {
	return config.transport === 'stdio'
		? `stdio: ${[config.command, ...config.args].join(' ')}`
		: `${config.mode === 'auto' ? 'HTTP' : config.mode}: ${config.url}`;
}
