import type {
	OAuthClientInformationMixed,
	OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { MachineGrant } from './grants';

/** What a caller knows of one authorization (n8n: an MCP OAuth2 credential) and how it keeps tokens. */
export interface OAuthOptions {
	/** Names this authorization for as long as it lasts (n8n: the credential's id). Connections are pooled by it, not by the current token. */
	id: string;
	/** The tokens as stored (n8n: the credential's oauthTokenData). */
	tokens?: OAuthTokens;
	/** When the stored access token expires (ms since 1970), if known: it is renewed shortly before. */
	expiresAt?: number;
	/** The registered client (from dynamic registration at connect time, or entered by hand). */
	client?: OAuthClientInformationMixed;
	/** Asked for when neither the server's challenge nor its metadata names a scope. */
	scope?: string;
	/**
	 * Renews the tokens in place of the token endpoint (n8n: its OAuth2 refresh helper, which saves
	 * them to the credential), so the caller's store stays current. Every renewal goes through it,
	 * shortly before expiry and after a 401; its error ends the renewal, named as its step.
	 */
	renew?: () => Promise<OAuthTokens>;
	/** Receives every new set of tokens (renewed or newly granted) for the caller to keep; its errors are the caller's to handle. */
	onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
	/** Receives a client registered during an authorization, for the caller to keep. */
	onClient?: (client: OAuthClientInformationMixed) => void | Promise<void>;
	/**
	 * Runs an authorization that needs the user (no usable tokens, or more scope): gets the
	 * authorization URL, returns the code the authorization server sent to the redirect URL.
	 * Without it, such a need ends in an error that says to reconnect (and which scope to grant).
	 */
	authorize?: (authorizationUrl: URL) => Promise<string>;
	/** Where the authorization server sends the code (n8n: its OAuth callback). */
	redirectUrl?: string;
	clientName?: string;
	/** A URL-based client ID (a client ID metadata document), used where the authorization server supports it. */
	clientMetadataUrl?: string;
	/**
	 * Tokens granted with nobody present (client credentials, enterprise-managed): the session asks
	 * for them and renews them itself, with `client` as the client registered beforehand.
	 */
	grant?: MachineGrant;
}
