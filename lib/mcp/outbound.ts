import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';

/** The proxy variables n8n's own HTTP requests follow, lower case first as curl and n8n read them. */
export interface ProxySettings {
	httpProxy: string;
	httpsProxy: string;
	noProxy: string;
}

export function proxySettingsFrom(env: NodeJS.ProcessEnv = process.env): ProxySettings {
	const first = (...names: string[]) => names.map((name) => env[name]).find(Boolean) ?? '';
	return {
		httpProxy: first('http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'),
		httpsProxy: first('https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'),
		noProxy: first('no_proxy', 'NO_PROXY'),
	};
}

const dispatchers = new Map<string, Dispatcher>();

/** One agent per proxy setting, so connections to a server are reused across requests. */
function dispatcherFor(settings: ProxySettings): Dispatcher | undefined {
	if (!settings.httpProxy && !settings.httpsProxy) return undefined;
	const key = JSON.stringify(settings);
	let dispatcher = dispatchers.get(key);
	if (!dispatcher) {
		dispatcher = new EnvHttpProxyAgent(settings);
		dispatchers.set(key, dispatcher);
	}
	return dispatcher;
}

export interface OutboundOptions {
	/** The MCP server's URL: its headers go to its origin only. */
	serverUrl: URL;
	/** The configured headers (auth headers included), never sent to another origin. */
	headers: Record<string, string>;
	/** A request nobody can cancel (OAuth discovery, registration, token) ends after this long. */
	uncancellableTimeoutMs: number;
	proxy?: ProxySettings;
}

/**
 * The fetch every HTTP transport and OAuth request of a server goes through: the proxy settings of
 * the environment, the configured headers for the server's own origin only (the SDK follows
 * redirects within the origin only, and the authorization server is another origin), and a deadline
 * on requests that carry no abort signal of their own, so a silent server cannot hang a connect.
 */
export function outboundFetch(options: OutboundOptions): FetchLike {
	const dispatcher = dispatcherFor(options.proxy ?? proxySettingsFrom());
	const { origin } = options.serverUrl;
	return (url, init) => {
		const target = new URL(url);
		const headers = new Headers(init?.headers);
		if (target.origin === origin) {
			for (const [name, value] of Object.entries(options.headers)) {
				if (!headers.has(name)) headers.set(name, value);
			}
		}
		const signal = init?.signal ?? AbortSignal.timeout(options.uncancellableTimeoutMs);
		return fetch(target, { ...init, headers, signal, ...(dispatcher ? { dispatcher } : {}) });
	};
}
