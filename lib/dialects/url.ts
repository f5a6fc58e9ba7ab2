/**
 * The URL of one of the API's paths: the path goes at the end of the Base URL's path, and the Base
 * URL's query is kept (Azure OpenAI names its API version there: `…/deployments/NAME?api-version=…`),
 * with the dialect's own parameters after it. A parameter of the Base URL that the dialect sets too
 * gives way to the dialect's, which its call needs (Gemini's `alt=sse` for a stream). The Base
 * URL's query is kept as written, not encoded again.
 */
export function endpointUrl(
	baseUrl: string,
	path: string,
	query: Record<string, string> = {},
): string {
	const { base, params } = partsOf(baseUrl);
	const own = new Set(Object.keys(query));
	const kept = params.filter((param) => !own.has(param.split('=', 1)[0]));
	const added = Object.entries(query).map(
		([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
	);
	const all = [...kept, ...added];
	return `${base.replace(/\/+$/, '')}${path}${all.length > 0 ? `?${all.join('&')}` : ''}`;
}

/**
 * The words of parameter names that carry a key (`key`, `api_key`, `x-api-key`, `sig` for a SAS,
 * `access_token`, `client_secret`), and the endings of such names written as one word
 * (`accesstoken`, `subscriptionkey`). Other parameters route or version the call (`api-version`,
 * `region=westeurope`, `deployment=gpt-4o-mini`, `max_tokens`, `language_code`): hiding their
 * values would rewrite every text that holds those words, the model's own answer included.
 */
const KEY_WORDS = new Set([
	'sig',
	'signature',
	'pass',
	'pwd',
	'auth',
	'authorization',
	'credential',
	'credentials',
	'jwt',
	'bearer',
	'sid',
	'session',
	'hmac',
]);
const KEY_ENDING = /(?:key|token|secret|passw(?:or)?d)$/;

/** Whether a parameter's name says it carries a key (`subscriptionKey`, `X-API-Key`, `access_token`, `code`). */
function namesAKey(name: string): boolean {
	// Azure Functions take their key as `code`; `language_code` is no key.
	if (name.toLowerCase() === 'code') return true;
	const words = name
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.toLowerCase()
		.split(/[-_.\s]+/);
	return words.some((word) => KEY_WORDS.has(word) || KEY_ENDING.test(word));
}

/**
 * The values in the Base URL's query that must never appear in an output or a log: gateways take
 * keys there (`?key=…`, `?code=…`, a bare token, base64 padding and all), and the URL shows in
 * traces and errors. Each as written and decoded.
 */
export function querySecrets(baseUrl: string): string[] {
	return partsOf(baseUrl).params.flatMap((param) => {
		const equals = param.indexOf('=');
		const bare = equals < 0 || /^=+$/.test(param.slice(equals));
		if (!bare && !namesAKey(decoded(param.slice(0, equals)))) return [];
		const written = bare ? param : param.slice(equals + 1);
		return [...new Set([written, decoded(written)])];
	});
}

/** The URL before its query, and the query's parameters; a fragment is never sent, and is dropped. */
function partsOf(url: string): { base: string; params: string[] } {
	const [sent] = url.split('#', 1);
	const queryAt = sent.indexOf('?');
	if (queryAt < 0) return { base: sent, params: [] };
	const params = sent
		.slice(queryAt + 1)
		.split('&')
		.filter((param) => param !== '');
	return { base: sent.slice(0, queryAt), params };
}

function decoded(text: string): string {
	try {
		return decodeURIComponent(text.replace(/\+/g, ' '));
	} catch {
		return text;
	}
}
