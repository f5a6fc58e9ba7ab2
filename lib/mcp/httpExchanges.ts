import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
	DEFAULT_MAX_MESSAGE_BYTES,
	isAnswerByItsHead,
	isRequestOrNotification,
	LocalAnswers,
	messageId,
	type MessageReader,
	type RequestId,
} from './localAnswers';
import { isRecord } from '../json/value';
import { reasonOf } from '../util/errorReason';
import { SseEvents, type SseEvent } from './sseEvents';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A request sent and not yet answered, and the streams its answer may come on. */
interface InFlight {
	/** Ends its response streams once the request was cancelled. */
	stop: AbortController;
	/** The last event id its streams gave: the server can resume them (a GET with Last-Event-ID). */
	lastEventId?: string;
}

/**
 * The HTTP exchanges of one MCP session, watched through the fetch its SDK transport is given, so
 * that HTTP keeps the promises stdio keeps:
 * - a message is read up to `maxMessageBytes`: a larger response ends its request at once with an
 *   error and is not held (its stream is read no further, or, where other messages share it, read
 *   on without keeping it), and a larger request of the server's is refused at once; the session
 *   stays;
 * - over Streamable HTTP, a request whose response ended without the answer (the stream closed,
 *   the connection dropped, an HTTP 202) fails at once rather than at its timeout, unless the server
 *   can resume the stream (it gave event ids): the SDK then asks for the rest, and a request whose
 *   stream cannot be resumed fails at once too;
 * - a cancelled request's response stream is closed, not kept open until the server answers, nor
 *   resumed.
 */
export class HttpExchanges implements MessageReader {
	maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
	readonly answers = new LocalAnswers();
	/** By the id's text: a server may echo a numeric id as a string, which the SDK takes for the same. */
	private readonly inFlight = new Map<string, InFlight>();
	/** Per request whose stream is being resumed, the attempts that failed so far. */
	private readonly resumeFailures = new Map<string, number>();
	/** The last event ids of cancelled requests' streams, which the SDK would resume for nothing. */
	private readonly stoppedStreams = new Set<string>();

	/** `streamable`: Streamable HTTP, where each POSTed request is answered on its own response. */
	constructor(private readonly streamable: boolean) {}

	watch(fetch: Fetch): Fetch {
		return async (url, init) => {
			const sent = this.streamable ? sentMessage(init) : undefined;
			const cancelled = cancelledRequest(sent);
			if (cancelled !== undefined) this.stop(cancelled);
			if (this.stoppedStreams.delete(resumedEventId(init) ?? '')) return notResumed();
			const posted = requestIdOf(sent);
			const request = posted ?? this.resumedRequest(init);
			if (request === undefined) return this.watched(await fetch(url, init), init);
			const exchange = this.inFlight.get(String(request)) ?? { stop: new AbortController() };
			this.inFlight.set(String(request), exchange);
			const signals = [exchange.stop.signal, ...(init?.signal ? [init.signal] : [])];
			let response: Response;
			try {
				response = await fetch(url, { ...init, signal: AbortSignal.any(signals) });
			} catch (error) {
				if (posted !== undefined) this.inFlight.delete(String(request));
				else if (this.lastResumeFailed(request, init, true))
					return this.unresumed(request, reasonOf(error));
				throw error;
			}
			if (
				posted === undefined &&
				this.lastResumeFailed(request, init, resumeFails(response, url))
			) {
				await response.body?.cancel();
				return this.unresumed(request, `HTTP ${response.status}`);
			}
			if (posted !== undefined && response.status === 202) {
				this.inFlight.delete(String(request));
				await response.body?.cancel();
				return answerOf(
					this.answers.unanswered(request, 'it accepted it (HTTP 202) and sent no answer'),
				);
			}
			if (!response.ok && posted !== undefined) this.inFlight.delete(String(request));
			return this.watched(response, init, request);
		};
	}

	/** The response with its body read as this session reads messages. */
	private async watched(
		response: Response,
		init?: RequestInit,
		request?: RequestId,
	): Promise<Response> {
		const { body } = response;
		if (!response.ok || !body) return response;
		const type = mediaType(response);
		if (type === 'text/event-stream')
			return new Response(this.eventStream(body, request, init?.signal ?? undefined), response);
		if (type === 'application/json' && request !== undefined) {
			return responseOf(
				this.jsonAnswer(response, body, request, init?.signal ?? undefined),
				response,
			);
		}
		// Any other answer to a request the SDK refuses: the request ends there.
		if (request !== undefined) this.inFlight.delete(String(request));
		return response;
	}

	/** The events of a response stream passed on as they come, a message over the limit cut out. */
	private eventStream(
		body: ReadableStream<Uint8Array>,
		request: RequestId | undefined,
		session?: AbortSignal,
	): ReadableStream<Uint8Array> {
		const reader = body.getReader();
		let controller!: ReadableStreamDefaultController<Uint8Array>;
		let passed = 0;
		const pass = (bytes: Uint8Array) => {
			passed++;
			controller.enqueue(bytes);
		};
		const answer = (message: JSONRPCMessage) => pass(eventOf(message));
		const events = new SseEvents(() => this.maxMessageBytes, {
			pass,
			// A response stream carries one answer: one too large ends it, and nothing more is read.
			// A message whose first bytes do not show it is an answer is read to its end, where its
			// last bytes tell (a request of the server's may name its params before its method).
			cut: (event) => {
				if (request === undefined || !isAnswer(event) || !isAnswerByItsHead(event.head))
					return true;
				this.inFlight.delete(String(request));
				answer(this.answers.tooLarge(request, event.bytes, this.maxMessageBytes, true));
				return false;
			},
			ended: (event) => {
				const exchange = request === undefined ? undefined : this.inFlight.get(String(request));
				if (event.id !== '' && exchange) exchange.lastEventId = event.id;
				// A server's request too large to read is refused at once, or the server would wait on.
				if (event.cut && isRequestOrNotificationEvent(event)) {
					const unread = this.answers.unreadRequest(event, this.maxMessageBytes);
					if (unread) pass(eventOf(unread));
					return;
				}
				if (!isAnswer(event)) return;
				const id = messageId(event);
				if (id !== undefined) {
					this.inFlight.delete(String(id));
					if (event.cut)
						answer(this.answers.tooLarge(id, event.bytes, this.maxMessageBytes, false));
				} else if (exchange) {
					// An error is held whole when it is short, as those for requests a server could not read are.
					const whole = event.bytes === Buffer.byteLength(event.head) ? event.head : '';
					const unnamed = unnamedError(whole, request!);
					if (!unnamed) return;
					this.inFlight.delete(String(request));
					answer(unnamed);
				}
			},
		});
		// The answer a request still waits for when its stream ends, unless the server can resume it.
		const unanswered = (why: string) => {
			const exchange = request === undefined ? undefined : this.inFlight.get(String(request));
			if (!exchange || exchange.lastEventId !== undefined || session?.aborted) return false;
			this.inFlight.delete(String(request));
			answer(this.answers.unanswered(request!, why));
			return true;
		};
		/** Reads one chunk and passes on what it holds; false once the stream has ended. */
		const readOnce = async (): Promise<boolean> => {
			let next: Awaited<ReturnType<typeof reader.read>>;
			try {
				next = await reader.read();
			} catch (error) {
				const why = `the connection dropped before the answer came: ${reasonOf(error)}`;
				// A cancelled request's stream, stopped here, just ends.
				const stopped = request !== undefined && !this.inFlight.has(String(request));
				if (unanswered(why) || stopped) controller.close();
				else controller.error(error);
				return false;
			}
			if (next.done) {
				unanswered('it ended its response without the answer');
				controller.close();
				return false;
			}
			if (events.push(next.value)) return true;
			await reader.cancel().catch(() => undefined);
			controller.close();
			return false;
		};
		return new ReadableStream<Uint8Array>({
			start: (streamController) => {
				controller = streamController;
			},
			// A pull that passes nothing on (all of it a skipped line) is not asked again: read on.
			pull: async () => {
				const before = passed;
				while (passed === before && (await readOnce()));
			},
			cancel: (reason) => reader.cancel(reason),
		});
	}

	/** A JSON answer read whole, up to the limit. */
	private async jsonAnswer(
		response: Response,
		body: ReadableStream<Uint8Array>,
		request: RequestId,
		session?: AbortSignal,
	): Promise<Uint8Array | JSONRPCMessage> {
		const limit = this.maxMessageBytes;
		const chunks: Uint8Array[] = [];
		let bytes = 0;
		try {
			const declared = Number(response.headers.get('content-length'));
			if (declared > limit) {
				await body.cancel();
				return this.answers.tooLarge(request, declared, limit, false);
			}
			for await (const chunk of body) {
				bytes += chunk.length;
				// Leaving the loop cancels the body: it is read no further.
				if (bytes > limit) return this.answers.tooLarge(request, bytes, limit, true);
				chunks.push(chunk);
			}
			const read = Buffer.concat(chunks, bytes);
			return (bytes <= MAX_ERROR_BYTES && unnamedError(read.toString('utf8'), request)) || read;
		} catch (error) {
			if (session?.aborted || !this.inFlight.has(String(request))) throw error;
			return this.answers.unanswered(
				request,
				`the connection dropped before the answer came: ${reasonOf(error)}`,
			);
		} finally {
			this.inFlight.delete(String(request));
		}
	}

	/**
	 * The SDK was handed a response: its request is answered, however the server wrote it (over
	 * several `data` lines, say, where the stream watch does not see it).
	 */
	delivered(message: JSONRPCMessage): void {
		if (!('method' in message) && 'id' in message && message.id !== undefined)
			this.inFlight.delete(String(message.id));
	}

	private stop(request: RequestId): void {
		const exchange = this.inFlight.get(String(request));
		this.inFlight.delete(String(request));
		if (exchange?.lastEventId !== undefined) {
			this.stoppedStreams.add(exchange.lastEventId);
			const oldest = this.stoppedStreams.values().next().value;
			if (this.stoppedStreams.size > MAX_STOPPED_STREAMS) this.stoppedStreams.delete(oldest!);
		}
		exchange?.stop.abort();
	}

	/**
	 * Whether a resumption of a request still waiting (in a session not closing) failed for the last
	 * time: at once when the server can never resume it (it lost the session: 404), else after the
	 * SDK's last attempt (a passing 503 or network failure is retried).
	 */
	private lastResumeFailed(
		request: RequestId,
		init: RequestInit | undefined,
		failed: ResumeOutcome,
	): boolean {
		const key = String(request);
		if (failed === 'ok') this.resumeFailures.delete(key);
		if (!failed || failed === 'ok' || !this.inFlight.has(key) || init?.signal?.aborted)
			return false;
		const failures = (this.resumeFailures.get(key) ?? 0) + 1;
		this.resumeFailures.set(key, failures);
		return failed === 'never' || failures >= RESUME_ATTEMPTS;
	}

	/**
	 * A stream that could not be resumed (the server is gone, or no longer knows the session): the
	 * SDK only reports it, so its request would wait until its timeout. It is answered at once, on
	 * the stream the SDK asked for.
	 */
	private unresumed(request: RequestId, why: string): Response {
		this.inFlight.delete(String(request));
		this.resumeFailures.delete(String(request));
		const answer = this.answers.unanswered(request, `its stream could not be resumed (${why})`);
		return new Response(eventOf(answer), {
			status: 200,
			headers: { 'content-type': 'text/event-stream' },
		});
	}

	/** The request whose stream a GET with Last-Event-ID resumes. */
	private resumedRequest(init?: RequestInit): RequestId | undefined {
		const lastEventId = resumedEventId(init);
		if (lastEventId === undefined) return undefined;
		for (const [request, exchange] of this.inFlight)
			if (exchange.lastEventId === lastEventId) return request;
		return undefined;
	}
}

/** Cancelled requests whose streams the session remembers, so as not to resume them. */
const MAX_STOPPED_STREAMS = 256;

/** How many times the SDK tries to resume a stream (its reconnection `maxRetries`, set to this). */
export const RESUME_ATTEMPTS = 2;

/**
 * What a resumption's answer says: 'ok' for its stream; false for a redirect within the server's
 * origin, which the SDK follows (the followed request is counted in its turn); 'never' when no
 * later attempt can succeed (the server lost the session, refuses the request, or sends it to
 * another origin, where the SDK does not follow); true when one may (5xx, 429).
 */
type ResumeOutcome = 'ok' | boolean | 'never';

function resumeFails(response: Response, url: string | URL): ResumeOutcome {
	if (response.ok) return 'ok';
	if (response.status >= 300 && response.status < 400) {
		const location = response.headers.get('location');
		const within = location !== null && new URL(location, url).origin === new URL(url).origin;
		return within ? false : 'never';
	}
	return response.status >= 500 || response.status === 429 || response.status === 408
		? true
		: 'never';
}

/** Error answers are small: a larger body is not looked into. */
const MAX_ERROR_BYTES = 64 * 1024;

/**
 * An error that names no request (`"id": null`, which JSON-RPC allows when the server could not
 * read it; or none) as the answer to the one request its response is for, rather than an answer
 * the SDK refuses while the request waits on until its timeout. Undefined for any other text.
 */
function unnamedError(text: string, request: RequestId): JSONRPCMessage | undefined {
	let answer: { error?: unknown; id?: unknown } | undefined;
	try {
		answer = JSON.parse(text) as typeof answer;
	} catch {
		return undefined;
	}
	const unnamed = answer?.id === null || answer?.id === undefined;
	return isRecord(answer?.error) && unnamed
		? ({ ...answer, id: request } as JSONRPCMessage)
		: undefined;
}

/** The JSON-RPC message a POST sends; the SDK sends its body as a string. */
function sentMessage(init?: RequestInit): unknown {
	if (init?.method !== 'POST' || typeof init.body !== 'string') return undefined;
	try {
		return JSON.parse(init.body) as unknown;
	} catch {
		return undefined;
	}
}

/** The event id a GET resumes a stream after (its Last-Event-ID). */
function resumedEventId(init?: RequestInit): string | undefined {
	if (init?.method !== 'GET') return undefined;
	return new Headers(init.headers).get('last-event-id') ?? undefined;
}

/**
 * What a server that offers no stream to resume answers (405, which the SDK takes quietly): a
 * cancelled request's stream is not resumed, as it would stay open until the server answers.
 */
function notResumed(): Response {
	return new Response(null, { status: 405, statusText: 'Not resumed: the request was cancelled' });
}

function requestIdOf(message: unknown): RequestId | undefined {
	const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
	return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')
		? id
		: undefined;
}

function cancelledRequest(message: unknown): RequestId | undefined {
	const { method, params } = (message ?? {}) as {
		method?: unknown;
		params?: { requestId?: unknown };
	};
	const id = params?.requestId;
	return method === 'notifications/cancelled' && (typeof id === 'string' || typeof id === 'number')
		? id
		: undefined;
}

/** The SDK reads the data of `message` events only (an event names no type, or that one). */
function isMessage(event: SseEvent): boolean {
	return event.bytes > 0 && (event.type === '' || event.type === 'message');
}

function isAnswer(event: SseEvent): boolean {
	return isMessage(event) && !isRequestOrNotification(event);
}

/** A request or a notification: `unreadRequest` tells them apart by their id. */
function isRequestOrNotificationEvent(event: SseEvent): boolean {
	return isMessage(event) && isRequestOrNotification(event);
}

function mediaType(response: Response): string {
	return (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

function eventOf(message: JSONRPCMessage): Uint8Array {
	// Blank lines first: the event is whole whatever the stream left unfinished before it.
	return Buffer.from(`\n\ndata: ${JSON.stringify(message)}\n\n`);
}

function answerOf(message: JSONRPCMessage): Response {
	return new Response(JSON.stringify(message), {
		status: 200,
		headers: { 'content-type': 'application/json' },
	});
}

/** The response with the body read (or the answer made up in its place), its status and headers kept. */
async function responseOf(
	read: Promise<Uint8Array | JSONRPCMessage>,
	like: Response,
): Promise<Response> {
	const body = await read;
	if (!(body instanceof Uint8Array)) return answerOf(body);
	return new Response(body, {
		status: like.status,
		statusText: like.statusText,
		headers: like.headers,
	});
}
