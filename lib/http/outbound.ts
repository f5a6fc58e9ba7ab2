import type { LookupFunction } from 'node:net';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';

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

type Verdict = { ok: true } | { ok: false; error: Error };

/**
 * The host's policy for where requests may go (n8n: `helpers.getSecureEgressFilter()`, its SSRF
 * protection): a check of each URL before it is requested, and a DNS lookup that refuses blocked
 * addresses when a connection is made.
 */
export interface EgressFilter {
	validateUrl(url: URL): Promise<Verdict>;
	/** A host no DNS lookup will see (a proxy given by its IP address). */
	validateConnectionHost(host: string): Verdict;
	createSecureLookup(): LookupFunction;
}

/** The host's policy refused a request: no connection was made. */
export class EgressRefused extends Error {
	constructor(url: URL, reason: Error) {
		super(
			`The outbound network policy refused the request to ${url.origin}${url.pathname}: ${reason.message}`,
		);
		this.name = 'EgressRefused';
	}
}

const dispatchers = new Map<string, Dispatcher>();
const filteredDispatchers = new WeakMap<EgressFilter, Map<string, Dispatcher>>();

/**
 * One agent per proxy setting (and egress policy), so connections to a server are reused across
 * requests. Under a policy every connection resolves its host through the policy's lookup. No
 * deadline of undici's own (300 s to the first byte and between bytes by default): every request
 * carries its caller's, and a model may think longer than that before it answers, an SSE stream
 * stay quiet as long.
 */
function dispatcherFor(settings: ProxySettings, egress?: EgressFilter): Dispatcher {
	const proxied = Boolean(settings.httpProxy || settings.httpsProxy);
	const cache = egress
		? (filteredDispatchers.get(egress) ?? new Map<string, Dispatcher>())
		: dispatchers;
	if (egress) filteredDispatchers.set(egress, cache);
	const key = JSON.stringify(settings);
	let dispatcher = cache.get(key);
	if (!dispatcher) {
		const options = {
			headersTimeout: 0,
			bodyTimeout: 0,
			...(egress && { connect: { lookup: egress.createSecureLookup() } }),
		};
		dispatcher = proxied ? new EnvHttpProxyAgent({ ...settings, ...options }) : new Agent(options);
		cache.set(key, dispatcher);
	}
	return dispatcher;
}

/** fetch's own signature, which the MCP SDK's transports also take. */
export type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface OutboundOptions {
	/** The server's URL (an MCP server's): the configured headers go to its origin only. */
	serverUrl?: URL;
	/** Headers (auth headers included) added for the server's origin, never sent to another. */
	headers?: Record<string, string>;
	/** A request nobody can cancel (OAuth discovery, registration, token) ends after this long. */
	uncancellableTimeoutMs?: number;
	proxy?: ProxySettings;
	/** Where requests may go; without it, anywhere. */
	egress?: EgressFilter;
}

/** Redirects a request may take when the policy checks each hop. */
const MAX_REDIRECTS = 5;

/**
 * The fetch every HTTP request of the package goes through (MCP transports and OAuth, model
 * calls): connections kept alive and reused per origin, the proxy settings of the environment,
 * the configured headers for the server's own origin only (the SDK follows redirects within the
 * origin only, and the authorization server is another origin), a deadline on requests that carry
 * no abort signal of their own, so a silent server cannot hang a connect, and the host's egress
 * policy for every URL, proxy and redirect.
 */
export function outboundFetch(options: OutboundOptions): Fetch {
	const proxy = options.proxy ?? proxySettingsFrom();
	const dispatcher = dispatcherFor(proxy, options.egress);
	const origin = options.serverUrl?.origin;
	const send = async (target: URL, init: RequestInit | undefined): Promise<Response> => {
		const headers = new Headers(init?.headers);
		if (target.origin === origin) {
			for (const [name, value] of Object.entries(options.headers ?? {})) {
				if (!headers.has(name)) headers.set(name, value);
			}
		}
		const deadline = options.uncancellableTimeoutMs;
		const signal =
			init?.signal ?? (deadline === undefined ? undefined : AbortSignal.timeout(deadline));
		return fetch(target, { ...init, headers, signal, dispatcher });
	};
	const { egress } = options;
	if (!egress) return (url, init) => send(new URL(url), init);
	return async (url, init) => {
		let target = new URL(url);
		let request = init;
		for (let hops = 0; ; hops++) {
			await allowed(egress, target, proxy);
			const follow = (request?.redirect ?? 'follow') === 'follow';
			const response = await send(target, follow ? { ...request, redirect: 'manual' } : request);
			const location = response.headers.get('location');
			if (!follow || !location || !isRedirect(response.status) || hops >= MAX_REDIRECTS) {
				return response;
			}
			await response.body?.cancel();
			const next = new URL(location, target);
			request = redirected(request, response.status, next.origin !== target.origin);
			target = next;
		}
	};
}

async function allowed(egress: EgressFilter, target: URL, proxy: ProxySettings): Promise<void> {
	const verdict = await egress.validateUrl(target);
	if (!verdict.ok) throw new EgressRefused(target, verdict.error);
	const proxyUrl = target.protocol === 'https:' ? proxy.httpsProxy : proxy.httpProxy;
	if (!proxyUrl) return;
	const proxyVerdict = egress.validateConnectionHost(new URL(proxyUrl).hostname);
	if (!proxyVerdict.ok) throw new EgressRefused(new URL(proxyUrl), proxyVerdict.error);
}

function isRedirect(status: number): boolean {
	return [301, 302, 303, 307, 308].includes(status);
}

/**
 * The next hop's request, as fetch would make it: 303 (and 301/302 after a POST) becomes a GET
 * without a body, and credentials stay behind when the hop leaves the origin.
 */
function redirected(
	init: RequestInit | undefined,
	status: number,
	crossesOrigin: boolean,
): RequestInit | undefined {
	const method = (init?.method ?? 'GET').toUpperCase();
	const next =
		status === 303 || ((status === 301 || status === 302) && method === 'POST')
			? { ...init, method: 'GET', body: undefined }
			: { ...init };
	if (crossesOrigin) {
		const headers = new Headers(init?.headers);
		for (const name of ['authorization', 'proxy-authorization', 'cookie']) headers.delete(name);
		next.headers = headers;
	}
	return next;
}
