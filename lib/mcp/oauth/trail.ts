import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
	OAuthMetadataSchema,
	OAuthProtectedResourceMetadataSchema,
	OpenIdProviderDiscoveryMetadataSchema,
	type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** RFC 8693's grant: an identity provider exchanges one token for another. */
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** The steps of an OAuth authorization, as an error names them. */
export type OAuthStep = 'discovery' | 'registration' | 'token' | 'refresh' | 'token exchange';

/** How the tokens are granted: a person signs in (authorization code), or no person at all. */
export type GrantKind = 'authorizationCode' | 'clientCredentials' | 'enterprise';

export interface OAuthProblem {
	step: OAuthStep;
	/** The request's URL without query or fragment. */
	url: string;
	/** What went wrong, in words; never a body other than an OAuth error's code and description. */
	reason: string;
	/** Normal on its own (a well-known location probed with 404, a redirect), telling when a later step fails. */
	note?: boolean;
	/** The server's trouble of the moment (HTTP 5xx, temporarily_unavailable), not the credential's. */
	passing?: boolean;
}

const HINTS: Record<OAuthStep, string> = {
	discovery:
		'Check the server URL, that the MCP server publishes its OAuth metadata (/.well-known/oauth-protected-resource) and that its authorization server (/.well-known/oauth-authorization-server or openid-configuration) can be reached from here (proxy settings).',
	registration:
		'The authorization server did not register this client: register one by hand and enter its client ID (and secret) in the credential.',
	token:
		'The authorization code was not exchanged for tokens: check the client ID, client secret and redirect URL, then reconnect the credential.',
	refresh:
		'The access token could not be renewed: reconnect the credential (the refresh token may have expired or been revoked).',
	'token exchange':
		"The identity provider did not exchange your identity token for an identity assertion (ID-JAG): check its token URL and client in the credential, that it allows cross-app access to this MCP server's authorization server, and sign in again (Connect) if your sign-in was revoked.",
};

/** What to check when a grant that needs no person fails at its token request. */
const MACHINE_TOKEN_HINTS: Record<Exclude<GrantKind, 'authorizationCode'>, string> = {
	clientCredentials:
		'The authorization server granted no token for the client credentials: check the client ID, its secret or private key and signing algorithm, and that this client may use the client credentials grant for this MCP server.',
	enterprise:
		"The MCP server's authorization server did not take the identity assertion for a token: check the client ID and secret registered there, and that it trusts your identity provider.",
};

/** A renewal refused for the server's trouble of the moment: reconnecting would not help. */
const PASSING_HINTS: Partial<Record<OAuthStep, string>> = {
	refresh:
		"The authorization server could not renew the access token just now (its trouble, not the credential's): run again later, and reconnect the credential only if this lasts.",
};

/**
 * How long a refresh token just issued stands for the renewal that issued it: a few seconds, and
 * never long enough for the tokens it answered with to be due in turn (short-lived tokens).
 */
const FRESH_MS = 10_000;

interface Renewal {
	answer: Promise<RecordedAnswer>;
	settledAt?: number;
	/** Until when its answer is replayed to a request with either refresh token. */
	freshUntil?: number;
}

/** How long an OAuth request (discovery, registration, token) may take. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Watches the OAuth requests the SDK makes on a session's behalf and remembers what went wrong
 * at which step, so a failure can say "token endpoint answered HTML" instead of a parser's complaint.
 */
export class OAuthTrail {
	private readonly problems: OAuthProblem[] = [];
	private missingScope?: string;
	private recorded = 0;
	/** The scope a 403 insufficient_scope asked for, until new tokens arrive: a refresh cannot widen scope. */
	stepUpScope?: string;
	/** Renewals by the refresh token sent, and by the one issued while it is fresh. */
	private readonly renewals = new Map<string, Renewal>();
	private lastRenewal?: Renewal;
	/** Answers a refresh in place of the token endpoint, when the session's caller renews (OAuthOptions.renew). */
	renewThrough?: () => Promise<OAuthTokens>;
	/** How the session's tokens are granted: what a failed token request tells to check. */
	grant: GrantKind = 'authorizationCode';

	/** A point to read problems from: those of one request to the server and the authorization it set off. */
	mark(): number {
		return this.recorded;
	}

	/** The scope a 403 insufficient_scope asked for since `mark`, if one did. */
	scopeAskedSince(mark: number): string | undefined {
		return this.recorded > mark ? this.missingScope : undefined;
	}

	problemsSince(mark: number): OAuthProblem[] {
		const fresh = this.recorded - mark;
		return fresh > 0 ? this.problems.slice(-fresh) : [];
	}

	/**
	 * Wraps the fetch the transport and the SDK's auth() use. `currentToken` is the access token now:
	 * a request the server refused with a token that was replaced meanwhile (another request renewed
	 * it) goes again with the new one, instead of setting off a second renewal.
	 */
	observe(next: FetchLike, serverUrl: URL, currentToken: () => string | undefined): FetchLike {
		return async (url, init) => {
			const target = new URL(url);
			const step = stepOf(target, init, serverUrl);
			if (!step) {
				const sentAt = Date.now();
				let response = await next(url, init);
				const sent = new Headers(init?.headers).get('authorization')?.replace(/^Bearer\s+/i, '');
				const now =
					response.status === 401
						? ((await this.renewedSince(sentAt)) ?? currentToken())
						: undefined;
				if (sent && now && sent !== now) {
					await response.body?.cancel();
					const headers = new Headers(init?.headers);
					headers.set('authorization', `Bearer ${now}`);
					response = await next(url, { ...init, headers });
				}
				this.noteScopeChallenge(response);
				return response;
			}
			if (step === 'refresh') return this.refreshOnce(next, url, init, target);
			return this.checked(step, target, () => next(url, init));
		};
	}

	private async checked(
		step: OAuthStep,
		target: URL,
		request: () => Promise<Response>,
	): Promise<Response> {
		let response: Response;
		try {
			response = await request();
		} catch (error) {
			this.record({ step, url: plain(target), reason: unreachable(error) });
			throw error;
		}
		const problem = await problemOf(step, target, response.clone());
		if (problem) this.record(problem);
		return response;
	}

	/**
	 * A refresh token is exchanged once: a request for one being exchanged gets that answer, and so
	 * does, for a few seconds, a request with the refresh token it just issued (a 401 to a request sent
	 * before the renewal makes the SDK renew again with the new tokens).
	 */
	private async refreshOnce(
		next: FetchLike,
		url: string | URL,
		init: RequestInit | undefined,
		target: URL,
	): Promise<Response> {
		const sentToken = new URLSearchParams(String(init?.body ?? '')).get('refresh_token') ?? '';
		const known = this.renewals.get(sentToken);
		if (known && (known.freshUntil === undefined || Date.now() < known.freshUntil)) {
			return replay(await known.answer);
		}
		const renewal: Renewal = {
			answer: this.exchangeRefresh(target, () => next(url, init)).then(recordAnswer),
		};
		this.renewals.set(sentToken, renewal);
		this.lastRenewal = renewal;
		// A refused renewal is not kept: a later request tries again, and its failure is told anew.
		const forget = () => {
			renewal.settledAt = Date.now();
			if (this.renewals.get(sentToken) === renewal) this.renewals.delete(sentToken);
		};
		renewal.answer.then((answer) => {
			if (answer.status !== 200) return forget();
			renewal.settledAt = Date.now();
			renewal.freshUntil = renewal.settledAt + freshFor(answer);
			const issued = tokenIn(answer, 'refresh_token');
			if (issued) this.renewals.set(issued, renewal);
		}, forget);
		for (const old of [...this.renewals.keys()].slice(0, -6)) this.renewals.delete(old);
		return replay(await renewal.answer);
	}

	/**
	 * The token endpoint's answer to a refresh, or the caller's renewal given as that answer: the
	 * SDK takes its tokens as from the endpoint, and its failure as a refused grant.
	 */
	private async exchangeRefresh(target: URL, request: () => Promise<Response>): Promise<Response> {
		const renew = this.renewThrough;
		if (!renew) return this.checked('refresh', target, request);
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<never>((_, reject) => {
			timer = setTimeout(
				() =>
					reject(
						Object.assign(new Error(`no answer within ${OAUTH_REQUEST_TIMEOUT_MS / 1000} s`), {
							code: 'ETIMEDOUT',
						}),
					),
				OAUTH_REQUEST_TIMEOUT_MS,
			);
		});
		try {
			return Response.json(await Promise.race([renew(), late]));
		} catch (error) {
			const message = (error as Error).message;
			const passing = isPassingFailure(error);
			this.record({
				step: 'refresh',
				url: plain(target),
				reason: `could not be renewed through the credential: ${message}`,
				...(passing && { passing }),
			});
			// As the token endpoint itself would answer: the SDK keeps the tokens for a passing failure.
			return passing
				? Response.json(
						{ error: 'temporarily_unavailable', error_description: message },
						{ status: 503 },
					)
				: Response.json({ error: 'invalid_grant', error_description: message }, { status: 400 });
		} finally {
			clearTimeout(timer);
		}
	}

	/** The access token of a renewal that ended after `time` or is still under way. */
	private async renewedSince(time: number): Promise<string | undefined> {
		const renewal = this.lastRenewal;
		if (!renewal || (renewal.settledAt !== undefined && renewal.settledAt < time)) return undefined;
		const answer = await renewal.answer.catch(() => undefined);
		return answer && tokenIn(answer, 'access_token');
	}

	private noteScopeChallenge(response: Response): void {
		if (response.status !== 403) return;
		const challenge = response.headers.get('www-authenticate') ?? '';
		if (!/error="?insufficient_scope/i.test(challenge)) return;
		this.missingScope = /scope="([^"]*)"/i.exec(challenge)?.[1] ?? '';
		this.stepUpScope = this.missingScope;
		this.recorded++;
	}

	private record(problem: OAuthProblem): void {
		this.problems.push(problem);
		if (this.problems.length > 20) this.problems.shift();
		this.recorded++;
	}
}

/** An error that names the failed step, the URL and what to check; undefined when no step failed. */
export function describeProblems(
	problems: OAuthProblem[],
	grant: GrantKind = 'authorizationCode',
): string | undefined {
	const failure = problems.find((problem) => !problem.note);
	if (!failure) return undefined;
	const notes = problems
		.slice(0, problems.indexOf(failure))
		.map((note) => `${note.url} ${note.reason}`);
	const before = notes.length > 0 ? ` Before that: ${notes.slice(-4).join('; ')}.` : '';
	const hint =
		(failure.passing && PASSING_HINTS[failure.step]) ||
		(failure.step === 'token' && grant !== 'authorizationCode' && MACHINE_TOKEN_HINTS[grant]) ||
		HINTS[failure.step];
	return `OAuth ${failure.step} failed: ${failure.url} ${failure.reason}.${before} ${hint}`;
}

function stepOf(target: URL, init: RequestInit | undefined, serverUrl: URL): OAuthStep | undefined {
	if (
		/\/\.well-known\/(oauth-protected-resource|oauth-authorization-server|openid-configuration)/.test(
			target.pathname,
		)
	) {
		return 'discovery';
	}
	if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || sameEndpoint(target, serverUrl)) {
		return undefined;
	}
	if (init?.body instanceof URLSearchParams) {
		const grantType = init.body.get('grant_type');
		if (grantType === 'refresh_token') return 'refresh';
		return grantType === TOKEN_EXCHANGE ? 'token exchange' : 'token';
	}
	// A legacy SSE server takes its messages at an endpoint of its own: only client metadata registers.
	return isClientMetadata(init?.body) ? 'registration' : undefined;
}

/** A dynamic client registration's body: client metadata (RFC 7591), which names its redirect URIs. */
function isClientMetadata(body: unknown): boolean {
	if (typeof body !== 'string' || !body.includes('"redirect_uris"')) return false;
	try {
		const parsed = JSON.parse(body) as Record<string, unknown>;
		return Array.isArray(parsed.redirect_uris) && parsed.jsonrpc === undefined;
	} catch {
		return false;
	}
}

function sameEndpoint(a: URL, b: URL): boolean {
	return a.origin === b.origin && a.pathname === b.pathname;
}

async function problemOf(
	step: OAuthStep,
	target: URL,
	response: Response,
): Promise<OAuthProblem | undefined> {
	const url = plain(target);
	// Not awaited: cancelling a clone settles only once the original is cancelled too, by the SDK.
	const skipBody = () => void response.body?.cancel().catch(() => undefined);
	if (step === 'discovery' && response.status === 404) {
		skipBody();
		return { step, url, reason: 'answered 404', note: true };
	}
	const location = response.headers.get('location');
	if (response.status >= 300 && response.status < 400 && location) {
		skipBody();
		return { step, url, reason: `redirected to ${plain(new URL(location, target))}`, note: true };
	}
	const type = response.headers.get('content-type') ?? 'no content type';
	const text = await response.text().catch(() => '');
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		const what = /json/i.test(type) ? 'invalid JSON' : `${type.split(';')[0]}, not JSON`;
		return { step, url, reason: `answered HTTP ${response.status} with ${what}` };
	}
	if (!response.ok) {
		const { error } = (body ?? {}) as Record<string, unknown>;
		const passing = response.status >= 500 || PASSING_ERRORS.has(String(error));
		return {
			step,
			url,
			reason: `answered HTTP ${response.status}${oauthError(body)}`,
			...(passing ? { passing } : {}),
		};
	}
	if (step !== 'discovery') return undefined;
	const invalid = metadataIssues(target, body);
	return invalid
		? { step, url, reason: `answered metadata that is not valid: ${invalid}` }
		: undefined;
}

function metadataIssues(target: URL, body: unknown): string | undefined {
	const schemas = target.pathname.includes('oauth-protected-resource')
		? [OAuthProtectedResourceMetadataSchema]
		: target.pathname.includes('openid-configuration')
			? [OpenIdProviderDiscoveryMetadataSchema]
			: [OAuthMetadataSchema];
	const result = schemas[0].safeParse(body);
	if (result.success) return undefined;
	return result.error.issues
		.slice(0, 3)
		.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
		.join('; ');
}

function oauthError(body: unknown): string {
	const { error, error_description: description } = (body ?? {}) as Record<string, unknown>;
	if (typeof error !== 'string') return '';
	const detail =
		typeof description === 'string' && description ? ` (${description.slice(0, 200)})` : '';
	return `: ${error}${detail}`;
}

const PASSING_ERRORS = new Set(['temporarily_unavailable', 'server_error']);
const NETWORK_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'EAI_AGAIN',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'EPIPE',
]);

/**
 * Whether a failed renewal says nothing of the grant: the token service answered 5xx or
 * temporarily_unavailable, or could not be reached (n8n's OAuth client throws the answer's status
 * or OAuth error, or the network's error code).
 */
function isPassingFailure(error: unknown): boolean {
	const { status, body, code } = (error ?? {}) as {
		status?: unknown;
		body?: { error?: unknown };
		code?: unknown;
	};
	if (typeof body?.error === 'string') return PASSING_ERRORS.has(body.error);
	if (typeof status === 'number') return status >= 500;
	return typeof code === 'string' && NETWORK_CODES.has(code);
}

function unreachable(error: unknown): string {
	const cause = (error as { cause?: { code?: string; message?: string } }).cause;
	if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') {
		return 'did not answer in time';
	}
	return `could not be reached (${cause?.code ?? cause?.message ?? (error as Error).message})`;
}

function plain(url: URL): string {
	return `${url.origin}${url.pathname}`;
}

interface RecordedAnswer {
	status: number;
	statusText: string;
	headers: Headers;
	body: ArrayBuffer;
}

async function recordAnswer(response: Response): Promise<RecordedAnswer> {
	return {
		status: response.status,
		statusText: response.statusText,
		headers: new Headers(response.headers),
		body: await response.arrayBuffer(),
	};
}

/** FRESH_MS, or a quarter of the renewed token's lifetime when that is shorter. */
function freshFor(answer: RecordedAnswer): number {
	const lifetime = Number(fieldOf(answer, 'expires_in'));
	return Number.isFinite(lifetime) && lifetime > 0 ? Math.min(FRESH_MS, lifetime * 250) : FRESH_MS;
}

function tokenIn(
	answer: RecordedAnswer,
	key: 'access_token' | 'refresh_token',
): string | undefined {
	const value = fieldOf(answer, key);
	return typeof value === 'string' ? value : undefined;
}

/** A field of a successful token answer. */
function fieldOf(answer: RecordedAnswer, key: string): unknown {
	if (answer.status !== 200) return undefined;
	try {
		return (JSON.parse(new TextDecoder().decode(answer.body)) as Record<string, unknown>)[key];
	} catch {
		return undefined;
	}
}

function replay(answer: RecordedAnswer): Response {
	const { status, statusText, headers, body } = answer;
	return new Response(body.byteLength > 0 ? body.slice(0) : null, { status, statusText, headers });
}
