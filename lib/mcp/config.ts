import { canonicalJson, sha256 } from '../json/canonical';
import { headerSecrets } from '../http/headerSecrets';
import type { OAuthSession } from './oauth/session';
import type { EgressFilter } from '../http/outbound';
import type { SamplingCapability } from './serverRequests';

/** How to start and talk to one MCP server: what a credential describes. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export interface StdioServerConfig {
	transport: 'stdio';
	command: string;
	args: string[];
	/** The child's whole environment, besides PATH: n8n's own variables (its secrets) never pass. */
	env: Record<string, string>;
	cwd?: string;
	/** Declared at initialize when set: the server may ask the client's model (a connection of its own). */
	sampling?: SamplingCapability;
}

export type HttpTransportMode = 'auto' | 'streamableHttp' | 'sse';

export interface HttpServerConfig {
	transport: 'http';
	url: string;
	/** Sent on every request of every transport (auth headers included). */
	headers: Record<string, string>;
	/** auto: Streamable HTTP, falling back to the legacy SSE transport when the server refuses it. */
	mode: HttpTransportMode;
	/**
	 * OAuth 2.1 (MCP authorization): an access token on every request of every transport, renewed
	 * when it expires or the server refuses it. From `oauthSession()`.
	 */
	oauth?: OAuthSession;
	/** The host's policy for where requests may go (n8n's SSRF protection); without it, anywhere. */
	egress?: EgressFilter;
	/** Declared at initialize when set: the server may ask the client's model (a connection of its own). */
	sampling?: SamplingCapability;
}

/**
 * Identifies a configuration without exposing its secrets: the pool key. An OAuth configuration
 * counts by the authorization's id, not its current token, so a renewed token keeps the connection;
 * the egress policy is the host's, the same for every use.
 */
export function configKey(config: McpServerConfig): string {
	let key = keys.get(config);
	if (key === undefined) {
		if (config.transport === 'stdio') key = sha256(canonicalJson(config));
		else {
			const { oauth, egress: _egress, ...rest } = config;
			key = sha256(canonicalJson({ ...rest, ...(oauth && { oauth: oauth.id }) }));
		}
		keys.set(config, key);
	}
	return key;
}

/** A node's configuration serves all its items' calls: its key is worked out once. */
const keys = new WeakMap<McpServerConfig, string>();

/** The values of a configuration that must never appear in an output or a log. */
export function secretsOf(config: McpServerConfig): string[] {
	if (config.transport === 'stdio') return environmentSecrets(config.env);
	// Tokens the session holds now, renewed ones included: read it again after a call that may have renewed.
	return [...headerSecrets(config.headers), ...(config.oauth?.secrets() ?? [])];
}

/**
 * Variables that set up the process (where it lives, its language, time zone, mode), never who
 * may do what. Hiding them would rewrite every path under HOME that a server answers with
 * (`[redacted]/reports/q3.txt`); any other variable a credential sets may carry a key, whatever
 * its name, and is a secret.
 */
const SETTINGS =
	/^(HOME|USER|LOGNAME|PATH|PWD|SHELL|TERM|TZ|LANG|LANGUAGE|LC_[A-Z_]+|TMPDIR|TEMP|TMP|NODE_ENV|XDG_[A-Z_]+)$/;

/** The values of a server's environment variables that must never appear in an output or a log. */
export function environmentSecrets(env: Record<string, string>): string[] {
	return Object.entries(env).flatMap(([name, value]) => (SETTINGS.test(name) ? [] : [value]));
}

/**
 * A label for messages: never the headers or environment, nor a URL's user, password or query
 * (where keys are often passed: `?api_key=…`, or a bare token).
 */
export function describeConfig(config: McpServerConfig): string {
	return config.transport === 'stdio'
		? `stdio: ${[config.command, ...config.args].join(' ')}`
		: `${config.mode === 'auto' ? 'HTTP' : config.mode}${config.oauth ? ' (OAuth)' : ''}: ${withoutCredentials(config.url)}`;
}

function withoutCredentials(url: string): string {
	const parsed = URL.parse(url);
	// A URL that does not parse (no scheme, a port out of range) is cut the same way by hand.
	const base = parsed
		? `${parsed.origin}${parsed.pathname}`
		: url.replace(/[?#].*$/s, '').replace(/\/\/[^/]*@/, '//');
	return /[?]/.test(url) ? `${base}?…` : base;
}
