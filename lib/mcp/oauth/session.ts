import { AsyncLocalStorage } from 'node:async_hooks';
import {
	auth,
	type AddClientAuthentication,
	type OAuthClientProvider,
	type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
	OAuthClientInformationMixed,
	OAuthClientMetadata,
	OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { sha256 } from '../../json/canonical';
import {
	exchangeIdentityToken,
	grantSecrets,
	grantTypeOf,
	machineTokenRequest,
	privateKeyJwtAuthentication,
	signingKeyOf,
} from './grants';
import type { OAuthOptions } from './options';
import { OAuthTrail } from './trail';

export type { OAuthClientInformationMixed, OAuthTokens, OAuthOptions };

/** The server wants a new authorization and nobody can give it here: the user must reconnect. */
export class OAuthAuthorizationRequired extends Error {
	constructor(readonly scope: string | undefined) {
		super(
			`The MCP server needs a new OAuth authorization${scope ? ` with scope "${scope}"` : ''}: reconnect the credential${scope ? ' and grant that scope' : ''}.`,
		);
		this.name = 'OAuthAuthorizationRequired';
	}
}

/** Only the latest tokens matter for redaction; older ones have expired (client secrets do not, and are kept apart). */
const KEPT_SECRETS = 24;
/** Renewal starts this long before expiry at most (a quarter of a short token's lifetime at least). */
const RENEW_MARGIN_MS = 30_000;
/** After an early renewal failed, the token still valid is used this long before renewal is tried again. */
const RENEW_RETRY_MS = 5_000;
const DEFAULT_REDIRECT_URL = 'http://localhost/oauth/callback';

const insideOwnRenewal = new AsyncLocalStorage<true>();

/**
 * One authorization, shared by every connection that uses it in this process: the SDK's
 * OAuthClientProvider over the caller's stored tokens. Tokens the session obtains go back to the
 * caller through onTokens; tokens a caller brings that the session has never held (a reconnect)
 * replace its own.
 */
export class OAuthSession implements OAuthClientProvider {
	readonly trail = new OAuthTrail();
	private options: OAuthOptions;
	private current?: OAuthTokens;
	private expiresAt?: number;
	private renewAt?: number;
	private client?: OAuthClientInformationMixed;
	private verifier?: string;
	private discovery?: OAuthDiscoveryState;
	private pendingCode?: string;
	private readonly held: string[] = [];
	private readonly clientSecrets = new Set<string>();
	private renewal?: Promise<void>;
	private server?: { url: URL; fetch: FetchLike };
	private clientAuthentication?: AddClientAuthentication;
	/** The grant and client the client authentication was made for. */
	private grantSignature?: string;
	/** The grant's secrets (its client secret, its key in each form), worked out when it changes. */
	private grantSecretList: string[] = [];

	constructor(options: OAuthOptions) {
		this.options = options;
		this.offer(options);
	}

	get id(): string {
		return this.options.id;
	}

	/**
	 * Takes a caller's newer view: its callbacks, and its tokens and client if they are new to this
	 * session, or the session has none left.
	 */
	offer(options: OAuthOptions): void {
		const previous = this.options;
		this.options = options;
		this.trail.renewThrough = options.renew;
		// Tokens it held are older than its own, unless it has none left (they were refused).
		const fresh = options.tokens && !this.held.includes(options.tokens.access_token);
		if (options.tokens && (fresh || !this.current)) {
			this.current = options.tokens;
			this.expire(options.expiresAt, options.tokens.expires_in);
			this.hold(options.tokens.access_token, options.tokens.refresh_token, options.tokens.id_token);
		}
		const client = options.client;
		if (client && (!this.client || !sameClient(previous.client, client))) {
			this.client = client;
			this.holdClientSecret(client);
		}
		this.takeGrant(options);
	}

	/**
	 * A grant's client authentication, its key read once: a key that does not fit fails here. Tokens
	 * granted to other client credentials (the credential was edited) are not used for the new ones.
	 */
	private takeGrant({ grant, client }: OAuthOptions): void {
		this.trail.grant = grant?.kind ?? 'authorizationCode';
		const signature = sha256(JSON.stringify([grant, client?.client_id, client?.client_secret]));
		if (signature === this.grantSignature) return;
		// Before the key is read: a key that does not fit fails, and its error must hide it too.
		this.grantSecretList = grant ? grantSecrets(grant) : [];
		if (grant && this.grantSignature !== undefined) this.invalidateCredentials('tokens');
		const key = grant && signingKeyOf(grant);
		this.clientAuthentication =
			key &&
			privateKeyJwtAuthentication(key, client?.client_id ?? '', (assertion) =>
				this.hold(assertion),
			);
		this.grantSignature = signature;
	}

	/** Adds the client's signed assertion to token requests, where the grant has a private key. */
	get addClientAuthentication(): AddClientAuthentication | undefined {
		return this.clientAuthentication;
	}

	/**
	 * The token request of a grant that needs nobody (the SDK's default is the authorization code's).
	 * Enterprise-managed: the identity token is exchanged for an assertion first.
	 */
	async prepareTokenRequest(): Promise<URLSearchParams | undefined> {
		const grant = this.options.grant;
		if (!grant) return undefined;
		const discovered = this.discovery;
		const scope =
			this.trail.stepUpScope ||
			this.options.scope ||
			discovered?.resourceMetadata?.scopes_supported?.join(' ');
		if (grant.kind !== 'enterprise') return machineTokenRequest(grant, scope);
		const server = this.server;
		if (!discovered || !server) throw new Error('The authorization server was not discovered');
		const target = {
			audience: discovered.authorizationServerMetadata?.issuer ?? discovered.authorizationServerUrl,
			resource: discovered.resourceMetadata?.resource ?? server.url.href,
			scope,
		};
		const hold = (token: string) => this.hold(token);
		return machineTokenRequest(
			grant,
			scope,
			await exchangeIdentityToken(grant, target, server.fetch, hold),
		);
	}

	/**
	 * The server this session authorizes for, and the fetch its requests go through. What was
	 * discovered for another server (the credential's URL was changed) is forgotten.
	 */
	bind(url: URL, fetch: FetchLike): void {
		if (this.server && this.server.url.href !== url.href) this.discovery = undefined;
		this.server = { url, fetch };
	}

	/** Tokens and client secrets held now or lately: every output must hide them. */
	secrets(): string[] {
		return [...this.clientSecrets, ...this.grantSecretList, ...this.held];
	}

	/** The code a headless authorization brought back, once. */
	takeAuthorizationCode(): string | undefined {
		const code = this.pendingCode;
		this.pendingCode = undefined;
		return code;
	}

	/** None for a grant that needs nobody: the SDK then asks for tokens without a sign-in. */
	get redirectUrl(): string | undefined {
		if (this.options.grant) return undefined;
		return this.options.redirectUrl ?? DEFAULT_REDIRECT_URL;
	}

	get clientMetadataUrl(): string | undefined {
		return this.options.clientMetadataUrl;
	}

	get clientMetadata(): OAuthClientMetadata {
		const grant = this.options.grant;
		const redirectUrl = this.redirectUrl;
		return {
			client_name: this.options.clientName ?? 'n8n-nodes-tool-calling',
			redirect_uris: redirectUrl ? [redirectUrl] : [],
			grant_types: grant ? [grantTypeOf(grant)] : ['authorization_code', 'refresh_token'],
			...(!grant && { response_types: ['code'] }),
			...(this.options.scope ? { scope: this.options.scope } : {}),
		};
	}

	clientInformation(): OAuthClientInformationMixed | undefined {
		return this.client;
	}

	async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
		this.client = client;
		this.holdClientSecret(client);
		await this.options.onClient?.(client);
	}

	/**
	 * Renews an access token about to expire before handing it out (not while the SDK itself reads
	 * it to renew). While more scope is asked for, the refresh token is held back, so the SDK
	 * authorizes anew instead of renewing a token that cannot have that scope.
	 */
	async tokens(): Promise<OAuthTokens | undefined> {
		if (!insideOwnRenewal.getStore() && this.dueForRenewal()) await this.renewEarly();
		const tokens = this.stamped(this.current);
		const wanted = this.trail.stepUpScope;
		if (!tokens || wanted === undefined || grants(tokens.scope, wanted)) return tokens;
		return { ...tokens, refresh_token: undefined };
	}

	/** The access token now, for the request that was refused with an older one. */
	currentAccessToken(): string | undefined {
		return this.current?.access_token;
	}

	async saveTokens(tokens: OAuthTokens): Promise<void> {
		// The same renewal answered twice (see OAuthTrail): nothing new to keep.
		if (tokens.access_token === this.current?.access_token) return;
		this.current = tokens;
		this.trail.stepUpScope = undefined;
		this.expire(
			tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000,
			tokens.expires_in,
		);
		this.hold(tokens.access_token, tokens.refresh_token, tokens.id_token);
		try {
			await this.options.onTokens?.(tokens);
		} catch {
			// Keeping them is the caller's concern; the call that needed them goes on.
		}
	}

	async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
		const scope = authorizationUrl.searchParams.get('scope') ?? undefined;
		if (!this.options.authorize) throw new OAuthAuthorizationRequired(scope);
		this.pendingCode = await this.options.authorize(authorizationUrl);
	}

	saveCodeVerifier(verifier: string): void {
		this.verifier = verifier;
	}

	codeVerifier(): string {
		if (!this.verifier) throw new Error('No PKCE code verifier was saved for this authorization');
		return this.verifier;
	}

	saveDiscoveryState(state: OAuthDiscoveryState): void {
		this.discovery = state;
	}

	discoveryState(): OAuthDiscoveryState | undefined {
		return this.discovery;
	}

	invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
		if (scope === 'all' || scope === 'tokens')
			[this.current, this.expiresAt, this.renewAt] = [undefined, undefined, undefined];
		// A grant that needs nobody has only the client it was given: none could register instead.
		if ((scope === 'all' || scope === 'client') && !this.options.grant) this.client = undefined;
		if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
		if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
	}

	/** A grant that needs nobody asks anew; a signed-in one renews by its refresh token. */
	private dueForRenewal(): boolean {
		const renewable = !!this.options.grant || !!this.current?.refresh_token;
		return this.renewAt !== undefined && Date.now() >= this.renewAt && renewable;
	}

	/** When the access token expires (ms since 1970, if known), and so when to renew it. */
	private expire(expiresAt: number | undefined, lifetimeSeconds: number | undefined): void {
		this.expiresAt = expiresAt;
		this.renewAt = expiresAt === undefined ? undefined : expiresAt - renewalMargin(lifetimeSeconds);
	}

	/**
	 * Renews before expiry. If that fails while the token still holds and is still this session's
	 * (a token endpoint down for a moment: 503, 500), the token is used meanwhile and renewal is
	 * tried again later; a refused grant leaves no token, and its error stands.
	 */
	private async renewEarly(): Promise<void> {
		const token = this.current;
		try {
			await this.renewOnce();
		} catch (error) {
			const stillHolds =
				this.current === token && this.expiresAt !== undefined && Date.now() < this.expiresAt;
			if (!stillHolds) throw error;
			this.renewAt = Math.min(this.expiresAt!, Date.now() + RENEW_RETRY_MS);
		}
	}

	/** One renewal at a time, whoever asks: a refresh token is often good for one use only. */
	private renewOnce(): Promise<void> {
		const server = this.server;
		if (!server) return Promise.resolve();
		this.renewal ??= insideOwnRenewal
			.run(true, () => auth(this, { serverUrl: server.url, fetchFn: server.fetch }))
			.then(() => undefined)
			.finally(() => (this.renewal = undefined));
		return this.renewal;
	}

	/**
	 * Tokens stored without the SDK's `issuer` stamp (n8n stores the token endpoint's answer as it
	 * came) are bound to the authorization server this session discovered, as the SDK itself binds
	 * unstamped client information on first use.
	 */
	private stamped(tokens: OAuthTokens | undefined): OAuthTokens | undefined {
		const issuer = this.discovery?.authorizationServerUrl;
		if (!tokens || tokens.issuer || !issuer) return tokens;
		return { ...tokens, issuer };
	}

	private holdClientSecret(client: OAuthClientInformationMixed): void {
		if (client.client_secret) this.clientSecrets.add(client.client_secret);
	}

	private hold(...values: Array<string | undefined>): void {
		for (const value of values) {
			if (!value || this.held.includes(value)) continue;
			this.held.push(value);
			if (this.held.length > KEPT_SECRETS) this.held.shift();
		}
	}
}

/** How long before expiry a token is renewed: at most RENEW_MARGIN_MS, a quarter of a short token's lifetime. */
function renewalMargin(lifetimeSeconds: number | undefined): number {
	const lifetimeMs = lifetimeSeconds === undefined ? Infinity : lifetimeSeconds * 1000;
	return Math.min(RENEW_MARGIN_MS, lifetimeMs / 4);
}

/** Whether a token's granted scope (unknown: assume so) includes every scope wanted. */
function grants(granted: string | undefined, wanted: string): boolean {
	if (granted === undefined) return true;
	const have = new Set(granted.split(' '));
	return wanted.split(' ').every((scope) => !scope || have.has(scope));
}

function sameClient(
	a: OAuthClientInformationMixed | undefined,
	b: OAuthClientInformationMixed,
): boolean {
	return a?.client_id === b.client_id && a?.client_secret === b.client_secret;
}

const sessions = new Map<string, OAuthSession>();

/**
 * The session of an authorization in this process, brought up to date with what the caller holds.
 * Call it once per use (n8n: per execution, with the credential's data).
 */
export function oauthSession(options: OAuthOptions): OAuthSession {
	const existing = sessions.get(options.id);
	if (existing) {
		existing.offer(options);
		return existing;
	}
	const session = new OAuthSession(options);
	sessions.set(options.id, session);
	return session;
}
