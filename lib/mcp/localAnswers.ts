import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RunEnds } from './byteEnds';

export type RequestId = string | number;

/** A response longer than this is not read: the call ends with an error, the connection lives on. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** What reads a session's messages (the stdio transport, or the HTTP exchanges of a session). */
export interface MessageReader {
	/** The largest message read; the connection raises it while a call allows more. */
	maxMessageBytes: number;
	readonly answers: LocalAnswers;
}

/** What a made-up answer stands for, as the connection reads it back from the SDK's error. */
export type LocalFailure =
	{ kind: 'tooLarge'; bytes: number; cut: boolean } | { kind: 'unanswered'; why: string };

/** A server's request too large to read: its method (when its first bytes show it), its size, the limit. */
export interface UnreadRequest {
	method?: string;
	bytes: number;
	limit: number;
}

/** The method of the request handed to the SDK in place of one too large to read. */
const UNREAD_REQUEST = 'local/unreadRequest';

/**
 * The answers a reader makes up for a request whose own answer it will not pass on: one too large
 * to read, or one that will not come (the server ended its response without it). They reach the
 * SDK as a server's error answer would, so the request ends at once rather than at its timeout,
 * and carry a mark no server sees, so that they are never taken for the server's own errors.
 */
export class LocalAnswers {
	private readonly origin = randomUUID();

	/** `cut`: reading stopped at the limit, so `bytes` is what was read, not the whole. */
	tooLarge(id: RequestId, bytes: number, limit: number, cut: boolean): JSONRPCMessage {
		const size = cut ? `more than ${limit} bytes` : `${bytes} bytes`;
		return this.answer(id, `The response is ${size}, more than the ${limit} read`, {
			kind: 'tooLarge',
			bytes,
			cut,
		});
	}

	/** `why` completes "The server did not answer the request: …". */
	unanswered(id: RequestId, why: string): JSONRPCMessage {
		return this.answer(id, `The server did not answer the request: ${why}`, {
			kind: 'unanswered',
			why,
		});
	}

	/**
	 * A server's request too large to read (`run`: what was kept of it), as handed to the SDK in its
	 * place, so that its handler (ServerRequests) refuses it at once and the server is not left
	 * waiting for an answer; undefined for a notification, which nothing awaits.
	 */
	unreadRequest(run: RunEnds, limit: number): JSONRPCMessage | undefined {
		const id = messageId(run.head, run.tail);
		if (id === undefined) return undefined;
		const unread: UnreadRequest = { method: methodOf(run.head), bytes: run.bytes, limit };
		return {
			jsonrpc: '2.0',
			id,
			method: UNREAD_REQUEST,
			params: { origin: this.origin, ...unread },
		};
	}

	/** What a request made up by `unreadRequest` stands for; undefined for any the server sent. */
	unreadRequestOf(request: { method: string; params?: unknown }): UnreadRequest | undefined {
		if (request.method !== UNREAD_REQUEST) return undefined;
		const { origin, ...unread } = (request.params ?? {}) as UnreadRequest & { origin?: unknown };
		return origin === this.origin ? unread : undefined;
	}

	/** What a made-up answer stood for, when `error` is the SDK's rejection with one of ours. */
	failureOf(error: unknown): LocalFailure | undefined {
		if (!(error instanceof McpError)) return undefined;
		const data = error.data as { origin?: unknown; failure?: LocalFailure } | undefined;
		return data?.origin === this.origin ? data.failure : undefined;
	}

	private answer(id: RequestId, message: string, failure: LocalFailure): JSONRPCMessage {
		return {
			jsonrpc: '2.0',
			id,
			error: { code: ErrorCode.InternalError, message, data: { origin: this.origin, failure } },
		};
	}
}

/**
 * The id of a JSON-RPC response or request from its first or last bytes, where serializers put
 * it: `{"jsonrpc":"2.0","id":7,...` or `...,"id":7}` (the TypeScript SDK writes it last). An id
 * nested in the message (in a notification's params, say) is not taken for it.
 */
export function messageId(head: string, tail: string): RequestId | undefined {
	const leading =
		/^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d+|"(?:[^"\\]|\\.)*")/.exec(head);
	const trailing =
		/"id"\s*:\s*(\d+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/.exec(tail);
	const found = (leading ?? trailing)?.[1];
	return found === undefined ? undefined : (JSON.parse(found) as RequestId);
}

/** A method before any nested object: the message is a request or a notification, not an answer. */
export function isRequestOrNotification(head: string): boolean {
	return /^\s*\{[^{]*"method"\s*:/.test(head);
}

/** The method a request or notification names before any nested object, when its first bytes hold it whole. */
function methodOf(head: string): string | undefined {
	const found = /^\s*\{[^{]*"method"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head)?.[1];
	return found === undefined ? undefined : (JSON.parse(found) as string);
}
