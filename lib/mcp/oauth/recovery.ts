import { AsyncLocalStorage } from 'node:async_hooks';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { redact } from '../../json/redact';
import { OAuthAuthorizationRequired, type OAuthSession } from './session';
import { describeProblems } from './trail';

/** Authorizations one request may set off: the first, then one step-up for more scope. */
const MAX_AUTHORIZATIONS = 2;

interface AuthorizingTransport extends Transport {
	finishAuth(authorizationCode: string): Promise<void>;
}

/** The message being sent, and whether the transport already sent it again after a renewal. */
const sending = new AsyncLocalStorage<{ message: unknown; resent: boolean }>();

/**
 * Makes a transport with an authProvider finish what the SDK leaves to an application: after a
 * headless authorization (the code is already back) it exchanges the code and sends again, and a
 * failure of any OAuth step becomes an error that names the step and what to check.
 */
export function recoverAuthorization(transport: AuthorizingTransport, session: OAuthSession): void {
	const send = transport.send.bind(transport);
	transport.send = async (message, options) => {
		// The SDK's SSE transport renews on a 401 and sends the same message through us again, as
		// often as the server refuses: once per 401 is enough, as on Streamable HTTP.
		const outer = sending.getStore();
		if (outer?.message === message) {
			if (outer.resent) throw new OAuthFailure(REFUSED_AFTER_RENEWAL);
			outer.resent = true;
			return send(message, options);
		}
		const mark = session.trail.mark();
		for (let authorizations = 0; ; authorizations++) {
			try {
				return await sending.run({ message, resent: false }, () => send(message, options));
			} catch (error) {
				const code = session.takeAuthorizationCode();
				if (!(code && error instanceof UnauthorizedError && authorizations < MAX_AUTHORIZATIONS)) {
					throw explained(error, session, mark);
				}
				await transport.finishAuth(code).catch((failure: unknown) => {
					throw explained(failure, session, mark);
				});
			}
		}
	};
}

/** An OAuth failure already put in words (the SDK's retry after authorizing sends through us again). */
class OAuthFailure extends Error {}

const REFUSED_AFTER_RENEWAL =
	'The MCP server refused the OAuth token again after it was renewed (HTTP 401): the server does not accept tokens of this authorization. Reconnect the credential, and check that the server URL is the resource it was authorized for.';

function explained(error: unknown, session: OAuthSession, mark: number): unknown {
	if (error instanceof OAuthFailure) return error;
	session.trail.stepUpScope = undefined;
	const described = describeProblems(session.trail.problemsSince(mark), session.trail.grant);
	const scope = session.trail.scopeAskedSince(mark);
	const message =
		described ??
		(error instanceof OAuthAuthorizationRequired
			? error.message
			: scope !== undefined
				? `The MCP server refused the request for lack of OAuth scope (insufficient_scope)${scope ? `: it needs "${scope}"` : ''}. Reconnect the credential${scope ? ' with that scope' : ''}.`
				: error instanceof UnauthorizedError
					? `The MCP server did not accept the OAuth authorization: ${(error as Error).message || 'unauthorized'}. Reconnect the credential.`
					: undefined);
	if (message === undefined) return error;
	return new OAuthFailure(redact(message, session.secrets()), { cause: error });
}
