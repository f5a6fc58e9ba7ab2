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
		const id = messageId(run);
		if (id === undefined) return undefined;
		const unread: UnreadRequest = { method: methodOf(run), bytes: run.bytes, limit };
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

/** A JSON string, escapes included. */
const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** A JSON-RPC id: a number (an integer, as ids are, or any other) or a string. */
const ID = String.raw`(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|${STRING})(?=\s*[,}])`;
/** The message's own keys before any nested value: text outside strings holds no `{` or `[`. */
const LEADING_KEYS = String.raw`^\s*\{(?:[^{}\[\]"]|${STRING})*?`;
/** The message's own keys after its last nested value: scalars only, then its closing brace. */
const TRAILING_KEYS = String.raw`(?:\s*,\s*${STRING}\s*:\s*(?:${STRING}|[-\w.]+))*\s*\}\s*$`;

const LEADING_ID = new RegExp(String.raw`${LEADING_KEYS}"id"\s*:\s*${ID}`);
const TRAILING_ID = new RegExp(String.raw`"id"\s*:\s*${ID}${TRAILING_KEYS}`);
const LEADING_METHOD = new RegExp(String.raw`${LEADING_KEYS}"method"\s*:\s*(${STRING})`);
const LEADING_OUTCOME = new RegExp(String.raw`${LEADING_KEYS}"(?:result|error)"\s*:`);
const TRAILING_METHOD = new RegExp(String.raw`"method"\s*:\s*(${STRING})${TRAILING_KEYS}`);

/** The first and last bytes of a message too large to keep. */
interface Ends {
	head: string;
	tail: string;
}

/**
 * The id of a JSON-RPC response or request from its first or last bytes, wherever serializers
 * put it among the message's own keys: `{"jsonrpc":"2.0","id":7,...` (Python), `{"jsonrpc":"2.0",
 * "method":…,"id":7,"params":…` (Java), `...,"id":7}` (TypeScript). An id nested in the message
 * (in a notification's params, say) is not taken for it.
 */
export function messageId({ head, tail }: Ends): RequestId | undefined {
	const found = (LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail))?.[1];
	return found === undefined ? undefined : (JSON.parse(found) as RequestId);
}

/** A request or a notification, not an answer: the message names a method among its own keys. */
export function isRequestOrNotification(ends: Ends): boolean {
	return methodOf(ends) !== undefined;
}

/**
 * An answer by its first bytes alone: its result or error is named among its own keys before any
 * nested value. A message whose first bytes show neither that nor a method (a request that names
 * its params first) is told apart only by its last bytes.
 */
export function isAnswerByItsHead(head: string): boolean {
	return LEADING_OUTCOME.test(head) && !LEADING_METHOD.test(head);
}

/** The method a request or notification names among its own keys, first or last. */
function methodOf({ head, tail }: Ends): string | undefined {
	const found = (LEADING_METHOD.exec(head) ?? TRAILING_METHOD.exec(tail))?.[1];
	return found === undefined ? undefined : (JSON.parse(found) as string);
}
