import type { LookupFunction } from 'node:net';
import { pipeline, type Readable, type Transform } from 'node:stream';
import {
	constants,
	createBrotliDecompress,
	createGunzip,
	createInflate,
	createZstdDecompress,
} from 'node:zlib';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { OWN_PACKAGE } from '../util/manifest';

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

/** A redirect whose Location is no URL: the server's answer is broken, and another attempt would get it again. */
export class InvalidRedirect extends Error {
	constructor(location: string) {
		super(`The server redirected to something that is not a URL: ${location}`);
		this.name = 'InvalidRedirect';
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
function dispatcherFor(settings: ProxySettings, target: URL, egress?: EgressFilter): Dispatcher {
	const cache = egress
		? (filteredDispatchers.get(egress) ?? new Map<string, Dispatcher>())
		: dispatchers;
	if (egress) filteredDispatchers.set(egress, cache);
	// A request whose protocol has no proxy goes direct, as n8n sends it: undici's proxy agent
	// would take the HTTP proxy for HTTPS.
	const proxied = proxyFor(settings, target) !== '';
	const key = proxied ? JSON.stringify(settings) : 'direct';
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

/** The proxy a request to `target` goes through ('' for none: no proxy set, or NO_PROXY names its host). */
function proxyFor(settings: ProxySettings, target: URL): string {
	const proxy = target.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
	return proxy !== '' && !noProxyNames(settings.noProxy, target) ? proxy : '';
}

/** Whether NO_PROXY names the target's host (or a domain above it), as undici's proxy agent reads it. */
function noProxyNames(noProxy: string, target: URL): boolean {
	const entries = noProxy.split(/[,\s]/).filter((entry) => entry !== '');
	if (entries.length === 0) return false;
	if (noProxy.trim() === '*') return true;
	// Brackets kept around an IPv6 address, as undici keeps them.
	const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
	const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
	return entries.some((entry) => {
		const [, name, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [, entry, undefined];
		if (entryPort !== undefined && Number(entryPort) !== port) return false;
		const host = name!.replace(/^\*?\./, '').toLowerCase();
		return hostname === host || hostname.endsWith(`.${host}`);
	});
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** fetch's own signature, which the MCP SDK's transports also take. */
export type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Where requests may go and through which proxy: what every outbound request honours. */
export interface OutboundPolicy {
	proxy?: ProxySettings;
	/** Where requests may go; without it, anywhere. */
	egress?: EgressFilter;
}

export interface OutboundOptions extends OutboundPolicy {
	/** The MCP server's URL: the configured headers go to its origin only. */
	serverUrl: URL;
	/** Headers (auth headers included) added for the server's origin, never sent to another. */
	headers: Record<string, string>;
	/** A request nobody can cancel (OAuth discovery, registration, token) ends after this long. */
	uncancellableTimeoutMs: number;
}

/** Redirects one request may take, as fetch allows: one more is an error. */
const MAX_REDIRECTS = 20;

/**
 * The fetch every HTTP request of an MCP server goes through (its transport and OAuth):
 * connections kept alive and reused per origin, the proxy settings of the environment,
 * the configured headers for the server's own origin only (the SDK follows redirects within the
 * origin only, and the authorization server is another origin), a deadline on requests that carry
 * no abort signal of their own, so a silent server cannot hang a connect, the host's egress
 * policy for every URL, proxy and redirect, and redirects followed hop by hop, a hop to another
 * origin taking no header that could hold a credential, nor a body (an OAuth request's holds the
 * client secret, a refresh token or a code): such a redirect is not followed.
 */
export function outboundFetch(options: OutboundOptions): Fetch {
	const proxy = options.proxy ?? proxySettingsFrom();
	const { origin } = options.serverUrl;
	const send = async (target: URL, init: RequestInit | undefined): Promise<Response> => {
		const headers = new Headers(init?.headers);
		if (target.origin === origin) {
			for (const [name, value] of Object.entries(options.headers)) {
				if (!headers.has(name)) headers.set(name, value);
			}
		}
		const signal = init?.signal ?? AbortSignal.timeout(options.uncancellableTimeoutMs);
		const dispatcher = dispatcherFor(proxy, target, options.egress);
		return fetch(target, { ...init, headers, signal, dispatcher });
	};
	const { egress } = options;
	return (url, init) => {
		// Each hop is checked against the policy, and its headers chosen, before it is requested:
		// fetch would follow to another origin with every header but Authorization and Cookie.
		const follow = (init?.redirect ?? 'follow') === 'follow';
		const request: RequestInit = follow ? { ...init, redirect: 'manual' } : { ...init };
		return following(new URL(url), request, send, follow ? fetchHop : finalHop, {
			egress,
			proxy,
			bodyStaysAtOrigin: true,
		});
	};
}

/** A request of `outboundRequest`: what model calls send. */
export interface OutboundRequest {
	method: string;
	headers: Record<string, string>;
	body?: string;
	signal?: AbortSignal;
}

/** Its answer: lower-case header names, the body read as it arrives. */
export interface OutboundResponse {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: AsyncIterable<Uint8Array>;
}

/** Sent with every request of `outboundRequest` that names no agent of its own. */
const USER_AGENT = `${OWN_PACKAGE.name}/${OWN_PACKAGE.version}`;

/**
 * The same outbound path (agents kept alive per proxy setting and policy, the policy checked for
 * every URL and redirect) through undici's request API rather than fetch: half the time per
 * request, which a model turn feels. Redirects are followed as fetch follows them, and a body
 * that comes compressed (asked for in the credential's headers, or sent unasked) is decoded.
 */
export function outboundRequest(
	options: OutboundPolicy = {},
): (url: string, request: OutboundRequest) => Promise<OutboundResponse> {
	const proxy = options.proxy ?? proxySettingsFrom();
	const send = (target: URL, request: OutboundRequest) =>
		dispatcherFor(proxy, target, options.egress).request({
			origin: target.origin,
			path: `${target.pathname}${target.search}`,
			method: request.method as Dispatcher.HttpMethod,
			headers: withUserAgent(request.headers),
			body: request.body,
			signal: request.signal,
		});
	return async (url, request) => {
		const answer = await following(new URL(url), request, send, requestHop, {
			egress: options.egress,
			proxy,
		});
		const { statusCode: status, headers, body } = answer;
		return { status, headers, body: decoded(body, status, headers['content-encoding']) };
	};
}

/** The headers with the package's User-Agent, unless they name one (in any case) of their own. */
function withUserAgent(headers: Record<string, string>): Record<string, string> {
	const named = Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent');
	return named ? headers : { 'user-agent': USER_AGENT, ...headers };
}

// Lenient as fetch (and curl) are: a body cut short after its last whole block still reads.
const ZLIB_FLUSH = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const DECODERS: Record<string, () => Transform> = {
	gzip: () => createGunzip(ZLIB_FLUSH),
	'x-gzip': () => createGunzip(ZLIB_FLUSH),
	deflate: () => createInflate(ZLIB_FLUSH),
	br: () =>
		createBrotliDecompress({
			flush: constants.BROTLI_OPERATION_FLUSH,
			finishFlush: constants.BROTLI_OPERATION_FLUSH,
		}),
	zstd: () =>
		createZstdDecompress({
			flush: constants.ZSTD_e_continue,
			finishFlush: constants.ZSTD_e_end,
		}),
};

/** Content codings one response may stack, as fetch allows: more is refused, not decoded. */
const MAX_CODINGS = 5;

/** Statuses whose answer has no body to decode. */
const NO_BODY = [204, 205, 304];

/**
 * The body as it was before the server compressed it, as fetch decodes it: the codings in the
 * order applied (`gzip, br` was gzipped, then brotli-compressed), and a body with a coding fetch
 * does not know left as it came.
 */
function decoded(
	body: Readable,
	status: number,
	encoding: string | string[] | undefined,
): Readable {
	const codings = [encoding ?? []]
		.flat()
		.join(',')
		.split(',')
		.map((coding) => coding.trim().toLowerCase())
		.filter((coding) => coding !== '' && coding !== 'identity');
	if (codings.length === 0 || NO_BODY.includes(status)) return body;
	if (codings.length > MAX_CODINGS) {
		// Left unread: its connection is closed, quietly.
		body.on('error', () => undefined).destroy();
		throw new Error(
			`The answer stacks ${codings.length} content codings; at most ${MAX_CODINGS} are read`,
		);
	}
	if (!codings.every((coding) => Object.hasOwn(DECODERS, coding))) return body;
	// Each pipeline passes an error of its source (a broken gzip, an abort) on to its decoder, and
	// a reader that stops early destroys the whole chain back to the socket.
	return codings
		.reverse()
		.reduce<Readable>(
			(stream, coding) => pipeline(stream, DECODERS[coding](), () => undefined),
			body,
		);
}

/** What the redirect loop needs to see of one hop's answer. */
interface Hop {
	status: number;
	location: string | null | undefined;
	discard(): Promise<void>;
}

const fetchHop = (response: Response): Hop => ({
	status: response.status,
	location: response.headers.get('location'),
	discard: async () => response.body?.cancel(),
});

/** A request that asked fetch not to follow redirects gets the first answer, whatever it is. */
const finalHop = (response: Response): Hop => ({ ...fetchHop(response), location: null });

const requestHop = (response: Dispatcher.ResponseData): Hop => ({
	status: response.statusCode,
	location: [response.headers.location].flat()[0],
	discard: () => response.body.dump(),
});

/** Redirects followed hop by hop, each URL checked against the policy (where there is one) first. */
async function following<R, I extends RedirectableRequest>(
	url: URL,
	request: I,
	send: (target: URL, request: I) => Promise<R>,
	hopOf: (response: R) => Hop,
	{
		egress,
		proxy,
		bodyStaysAtOrigin = false,
	}: {
		egress?: EgressFilter;
		proxy: ProxySettings;
		/**
		 * A redirect that would take the body to another origin is not followed (its response is
		 * the answer): an OAuth request's body holds the client secret, a refresh token or a code.
		 */
		bodyStaysAtOrigin?: boolean;
	},
): Promise<R> {
	let target = url;
	let next = request;
	for (let hops = 0; ; hops++) {
		if (egress) await allowed(egress, target, proxy);
		const response = await send(target, next);
		const { status, location, discard } = hopOf(response);
		if (!location || !isRedirect(status)) return response;
		const to = URL.parse(location, target.href);
		const crossesOrigin = to !== null && to.origin !== target.origin;
		if (bodyStaysAtOrigin && crossesOrigin && next.body != null && !turnsToGet(next, status))
			return response;
		await discard();
		if (hops >= MAX_REDIRECTS)
			throw new Error(`Redirected more than ${MAX_REDIRECTS} times: last to ${location}`);
		if (!to) throw new InvalidRedirect(location);
		next = redirected(next, status, crossesOrigin);
		target = to;
	}
}

async function allowed(egress: EgressFilter, target: URL, proxy: ProxySettings): Promise<void> {
	const verdict = await egress.validateUrl(target);
	if (!verdict.ok) throw new EgressRefused(target, verdict.error);
	const proxyUrl = proxyFor(proxy, target);
	if (!proxyUrl) return;
	const proxyVerdict = egress.validateConnectionHost(new URL(proxyUrl).hostname);
	if (!proxyVerdict.ok) throw new EgressRefused(new URL(proxyUrl), proxyVerdict.error);
}

function isRedirect(status: number): boolean {
	return [301, 302, 303, 307, 308].includes(status);
}

/** The parts of a request a redirect changes. */
interface RedirectableRequest {
	method?: string;
	headers?: RequestInit['headers'];
	body?: unknown;
}

/** Headers a hop to another origin takes along: none of them can carry a credential. */
const CARRIED_ACROSS_ORIGINS = [
	'accept',
	'accept-encoding',
	'accept-language',
	'content-type',
	'content-language',
	'user-agent',
	'mcp-protocol-version',
];

/** Headers that describe a body, left behind with it when a redirect becomes a GET. */
const BODY_HEADERS = [
	'content-type',
	'content-encoding',
	'content-language',
	'content-location',
	'content-length',
];

/**
 * The next hop's request, as fetch would make it: 303 (and 301/302 after a POST) becomes a GET
 * without a body or the headers that describe it. A hop to another origin takes no credential
 * along: fetch drops Authorization and Cookie, and this drops every header that could hold one
 * (a vendor's `x-api-key`, a credential's own headers).
 */
/** Whether the redirect turns the request into a GET without a body, as fetch does. */
function turnsToGet(request: RedirectableRequest, status: number): boolean {
	const method = (request.method ?? 'GET').toUpperCase();
	return (
		(status === 303 && method !== 'HEAD') ||
		((status === 301 || status === 302) && method === 'POST')
	);
}

function redirected<I extends RedirectableRequest>(
	request: I,
	status: number,
	crossesOrigin: boolean,
): I {
	const toGet = turnsToGet(request, status);
	const next = toGet ? { ...request, method: 'GET', body: undefined } : { ...request };
	if (!toGet && !crossesOrigin) return next;
	const headers = new Headers(request.headers);
	for (const name of [...headers.keys()]) {
		const left =
			(toGet && BODY_HEADERS.includes(name)) ||
			(crossesOrigin && !CARRIED_ACROSS_ORIGINS.includes(name));
		if (left) headers.delete(name);
	}
	next.headers = Object.fromEntries(headers);
	return next;
}
