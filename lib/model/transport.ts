import type { Dialect, EndpointConfig } from '../dialects/types';
import { querySecrets } from '../dialects/url';
import { headerSecrets } from '../http/headerSecrets';
import { EgressRefused, InvalidRedirect } from '../http/outbound';
import { excerpt } from '../json/value';
import { redact } from '../json/redact';
import { timerMs } from '../util/timers';
import { ModelApiError } from './errors';
import { streamedEvents } from './events';
import {
	headerOf,
	withCappedBody,
	parseBody,
	readText,
	type HttpRequest,
	type HttpResponse,
	type HttpSend,
} from './http';
import { askedTooLongMs, retryDelayMs, shouldRetry } from './retry';

/** How one model API call is made: the HTTP sender, its timeout, retries and cancellation. */
export interface ModelCallOptions {
	send: HttpSend;
	/** How long to wait for the answer to start, and at most between two streamed events. */
	timeoutMs: number;
	/** 408, 409, 429 and 5xx answers and lost connections are retried this many times. */
	maxRetries: number;
	signal?: AbortSignal;
}

/** One HTTP attempt, as the trace shows it. */
export interface Attempt {
	status?: number;
	durationMs: number;
	retryAfter?: string;
	requestId?: string;
	error?: string;
}

export interface Exchange<TResponse> {
	/** What was sent, secrets redacted. */
	request: { url: string; method: string; headers: Record<string, string>; body: unknown };
	attempts: Attempt[];
	/** The body a non-streamed call returned, or the one the streamed events assembled into. */
	response: TResponse;
	/** How many events a streamed answer had. */
	chunks?: number;
}

/**
 * Keys that servers on one's own machine document for clients that insist on one (Ollama's
 * "ollama", LM Studio's "lm-studio", llama.cpp's "sk-no-key-required"): no secret, and hiding
 * them would rewrite every text that names the tool ("Run [redacted] pull qwen3").
 */
const PLACEHOLDER_KEYS = new Set(['ollama', 'lm-studio', 'sk-no-key-required']);

/** The values that must never appear in an output, a trace or an error. */
export function endpointSecrets(endpoint: EndpointConfig): string[] {
	const key = endpoint.apiKey ?? '';
	return [
		PLACEHOLDER_KEYS.has(key) ? '' : key,
		...headerSecrets(endpoint.headers),
		...querySecrets(endpoint.baseUrl),
	];
}

/** One model call: the body the dialect built, and whether to stream the answer. */
export interface ModelCall<TRequest> {
	body: TRequest;
	model: string;
	stream: boolean;
	/** Given the answer's text piece by piece as a stream brings it (never for a whole JSON answer). */
	onText?: (text: string) => void;
}

/**
 * One model turn over HTTP in the dialect's wire format: retries with the server's Retry-After,
 * every attempt recorded, streamed events folded by the dialect's assembler into the body a
 * non-streamed call returns, so callers handle one shape.
 */
export async function callModel<TRequest, TResponse, TChunk>(
	dialect: Dialect<TRequest, TResponse, TChunk>,
	endpoint: EndpointConfig,
	call: ModelCall<TRequest>,
	options: ModelCallOptions,
): Promise<Exchange<TResponse>> {
	const { http } = dialect;
	const accept = !call.stream
		? 'application/json'
		: http.streamFraming === 'sse'
			? 'text/event-stream'
			: 'application/x-ndjson';
	const request: Omit<HttpRequest, 'signal'> = {
		method: 'POST',
		url: http.url(endpoint, call.model, call.stream),
		headers: lowerCaseNames({
			'content-type': 'application/json',
			accept,
			...http.headers(endpoint),
		}),
		body: JSON.stringify(call.body),
	};
	const secrets = endpointSecrets(endpoint);
	const recorded = redact(
		{ url: request.url, method: request.method, headers: request.headers, body: call.body },
		secrets,
	);
	const { result, attempts } = await send(
		request,
		dialect,
		{ endpoint, secrets },
		options,
		(response, timer) =>
			// A server that ignores `stream` (or a proxy's error page) answers with one JSON body: read it
			// whole, and, asked for a stream, timed piece by piece as one (Gemini's events as one array).
			!call.stream || /^application\/json\b/i.test(headerOf(response, 'content-type') ?? '')
				? jsonBody(
						call.stream
							? { ...response, body: restarting(response.body, () => timer.restart()) }
							: response,
						dialect,
						secrets,
					).then((body) => ({
						response: (call.stream && Array.isArray(body)
							? foldedEvents(body, response.status, dialect, secrets)
							: body) as TResponse,
					}))
				: streamedBody(response, dialect, secrets, timer, call.onText),
	);
	return { request: recorded, attempts, ...result };
}

/** The model ids the endpoint lists, sorted. */
export async function listModels(
	dialect: Dialect,
	endpoint: EndpointConfig,
	options: ModelCallOptions,
): Promise<string[]> {
	const request: Omit<HttpRequest, 'signal'> = {
		method: 'GET',
		url: dialect.http.modelsUrl(endpoint),
		headers: lowerCaseNames({ accept: 'application/json', ...dialect.http.headers(endpoint) }),
	};
	const secrets = endpointSecrets(endpoint);
	const { result } = await send(
		request,
		dialect,
		{ endpoint, secrets },
		options,
		async (response) => {
			const body = parseBody(await readText(response.body));
			throwIfErrorBody(body, response.status, dialect, secrets);
			return [...new Set(dialect.http.parseModels(body))].sort();
		},
	);
	return result;
}

/** A whole JSON answer; one that is not JSON, or an error body, fails the call. */
async function jsonBody(
	response: HttpResponse,
	dialect: Dialect,
	secrets: string[],
): Promise<object> {
	const body = parseBody(await readText(response.body));
	throwIfErrorBody(body, response.status, dialect, secrets);
	if (typeof body !== 'object' || body === null) {
		throw new ModelApiError(
			`The model API answered with something that is not JSON: ${excerpt(redact(body, secrets))}`,
			'invalidResponse',
			response.status,
		);
	}
	return body;
}

/**
 * A stream's events sent as one JSON array (Gemini's streamGenerateContent when `alt=sse` is lost
 * on the way), folded as a stream's are: an error among them fails the call as one in a stream does.
 */
function foldedEvents<TResponse, TChunk>(
	events: unknown[],
	status: number,
	dialect: Dialect<unknown, TResponse, TChunk>,
	secrets: string[],
): TResponse {
	const assembler = dialect.createStreamAssembler();
	for (const event of events) {
		throwIfErrorBody(event, status, dialect, secrets);
		assembler.push(event as TChunk);
	}
	if (!assembler.finished())
		throw new ModelApiError(
			`The answer ended after ${events.length} events, before the model finished its turn`,
			'incompleteStream',
		);
	return assembler.result();
}

/**
 * Streamed events folded by the dialect's assembler into the body a non-streamed call returns,
 * the answer's text handed to `onText` as it comes. Every piece that arrives restarts the idle
 * timeout, the keep-alive comments some gateways send while a model thinks included. A stream lost
 * before its first event fails as a lost connection does (and is retried); one lost later is cut
 * short, so no text is ever given twice.
 */
async function streamedBody<TResponse, TChunk>(
	response: HttpResponse,
	dialect: Dialect<unknown, TResponse, TChunk>,
	secrets: string[],
	timer: AttemptTimer,
	onText?: (text: string) => void,
): Promise<{ response: TResponse; chunks: number }> {
	const assembler = dialect.createStreamAssembler();
	let chunks = 0;
	const incomplete = (how: string) =>
		new ModelApiError(
			`The stream ${how} after ${chunks} chunks, before the model finished its turn`,
			'incompleteStream',
		);
	const pieces = restarting(response.body, () => timer.restart());
	try {
		for await (const data of streamedEvents(pieces, dialect.http.streamFraming)) {
			const event = parseBody(data);
			throwIfErrorBody(event, response.status, dialect, secrets);
			const text = assembler.push(event as TChunk);
			chunks++;
			if (text !== '') onText?.(text);
		}
	} catch (error) {
		// The abort's reason (the timeout, a cancel) comes back as the error of the read.
		const cause = timer.cause();
		// A server that finished the turn but holds the stream open has said all it will.
		if (assembler.finished() && cause?.failure === 'timeout')
			return { response: assembler.result(), chunks };
		if (error instanceof ModelApiError && error !== cause) throw error;
		if (chunks === 0) throw error;
		// Part of the answer came: the call ends here, not retried (a new error: send retries its timer's).
		if (cause) throw new ModelApiError(cause.message, cause.failure);
		throw incomplete(`broke off (${(error as Error).message})`);
	}
	if (!assembler.finished()) throw incomplete('ended');
	return { response: assembler.result(), chunks };
}

/** The body's pieces as they come, `onPiece` called for each. */
async function* restarting(
	body: HttpResponse['body'],
	onPiece: () => void,
): AsyncGenerator<Uint8Array | string> {
	for await (const piece of body) {
		onPiece();
		yield piece;
	}
}

/**
 * A 2xx answer read by `read`, after as many attempts as the retry policy allows; anything else
 * becomes a ModelApiError. An attempt fails and is retried when the connection fails or times
 * out, before the answer or while `read` reads it; any other ModelApiError `read` throws (an
 * error body, a stream cut short after part of the answer) ends the call.
 */
async function send<T>(
	request: Omit<HttpRequest, 'signal'>,
	dialect: Dialect,
	{ endpoint, secrets }: { endpoint: EndpointConfig; secrets: string[] },
	options: ModelCallOptions,
	read: (response: HttpResponse, timer: AttemptTimer) => Promise<T>,
): Promise<{ result: T; attempts: Attempt[] }> {
	const attempts: Attempt[] = [];
	const where = redact(endpoint.baseUrl, secrets);
	for (let attempt = 0; ; attempt++) {
		const started = Date.now();
		const timer = new AttemptTimer(options, where);
		let response: HttpResponse | undefined;
		try {
			response = withCappedBody(await options.send({ ...request, signal: timer.signal }));
			attempts.push({
				status: response.status,
				durationMs: Date.now() - started,
				...optional('retryAfter', headerOf(response, 'retry-after')),
				...optional(
					'requestId',
					headerOf(response, 'x-request-id') ?? headerOf(response, 'request-id'),
				),
			});
			if (response.status >= 200 && response.status < 300)
				return { result: await read(response, timer), attempts };
			const body = parseBody(await readText(response.body).catch(() => ''));
			timer.stop();
			const tooLong = askedTooLongMs(response, body);
			if (attempt < options.maxRetries && shouldRetry(response) && tooLong === undefined) {
				await sleep(retryDelayMs(attempt + 1, response, Date.now(), body), options.signal);
				continue;
			}
			const error = httpError(body, response.status, dialect, secrets);
			// Retried sooner, it would only be refused again.
			if (tooLong !== undefined)
				error.message += ` (the API asked to wait ${Math.ceil(tooLong / 1000)} s before trying again, longer than a call is retried for)`;
			throw error;
		} catch (error) {
			timer.stop();
			// The timer's own error (a timeout, a cancel) is judged below; any other ends the call.
			if (error instanceof ModelApiError && error !== timer.cause()) throw error;
			const failure =
				timer.cause() ?? connectionError(error, endpoint, secrets, response !== undefined);
			if (response === undefined)
				attempts.push({ durationMs: Date.now() - started, error: failure.message });
			else attempts[attempts.length - 1].error = failure.message;
			const final = ['cancelled', 'refused', 'invalidResponse'].includes(failure.failure);
			if (final || attempt >= options.maxRetries) throw failure;
			await sleep(retryDelayMs(attempt + 1), options.signal);
		} finally {
			timer.stop();
		}
	}
}

/** An error body is an HTTP failure even under a 2xx status: compatible servers and started streams send them so. */
function throwIfErrorBody(
	body: unknown,
	status: number,
	dialect: Dialect,
	secrets: string[],
): void {
	if (dialect.http.errorMessage(body) !== undefined)
		throw httpError(body, status, dialect, secrets);
}

function httpError(
	body: unknown,
	status: number,
	dialect: Dialect,
	secrets: string[],
): ModelApiError {
	const message =
		dialect.http.errorMessage(body) ??
		`The model API answered HTTP ${status}${body === '' ? '' : `: ${excerpt(body)}`}`;
	return new ModelApiError(redact(message, secrets), 'http', status, redact(body, secrets));
}

/** A failure to reach the API (`whileReading`: the connection was lost while its answer was read). */
function connectionError(
	error: unknown,
	endpoint: EndpointConfig,
	secrets: string[],
	whileReading: boolean,
): ModelApiError {
	if (error instanceof EgressRefused)
		return new ModelApiError(redact(error.message, secrets), 'refused');
	if (error instanceof InvalidRedirect)
		return new ModelApiError(redact(error.message, secrets), 'invalidResponse');
	const cause = (error as Error & { cause?: Error }).cause?.message;
	const message = `${(error as Error).message}${cause ? ` (${cause})` : ''}`;
	const what = whileReading
		? `The connection to the model API at ${endpoint.baseUrl} failed while its answer was read`
		: `Could not reach the model API at ${endpoint.baseUrl}`;
	return new ModelApiError(redact(`${what}: ${message}`, secrets), 'connection');
}

/**
 * Aborts an attempt when the caller cancels, or when the timeout passes without the answer
 * starting (or, once streaming, without a new event); remembers which of the two it was.
 */
class AttemptTimer {
	private readonly controller = new AbortController();
	private timeout: NodeJS.Timeout | undefined;
	private reason: ModelApiError | undefined;
	private readonly onCancel = () =>
		this.abort(new ModelApiError('The request was cancelled', 'cancelled'));

	constructor(
		private readonly options: ModelCallOptions,
		/** The Base URL, secrets hidden. */
		private readonly baseUrl: string,
	) {
		if (options.signal?.aborted) this.onCancel();
		options.signal?.addEventListener('abort', this.onCancel, { once: true });
		this.restart();
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	restart(): void {
		clearTimeout(this.timeout);
		if (this.reason) return;
		this.timeout = setTimeout(() => {
			this.abort(
				new ModelApiError(
					`The model API at ${this.baseUrl} did not answer within ${this.options.timeoutMs} ms`,
					'timeout',
				),
			);
		}, timerMs(this.options.timeoutMs));
	}

	stop(): void {
		clearTimeout(this.timeout);
		this.options.signal?.removeEventListener('abort', this.onCancel);
	}

	/** Why the attempt was aborted, when it was. */
	cause(): ModelApiError | undefined {
		return this.reason;
	}

	private abort(reason: ModelApiError): void {
		this.reason ??= reason;
		clearTimeout(this.timeout);
		this.controller.abort(reason);
	}
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new ModelApiError('The request was cancelled', 'cancelled'));
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		const onAbort = () => {
			clearTimeout(timer);
			reject(new ModelApiError('The request was cancelled', 'cancelled'));
		};
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

/** Header names are case-insensitive; one spelling keeps a user's header from doubling a vendor's. */
function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(
		Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
	);
}

function optional(key: string, value: string | undefined): Record<string, string> {
	return value === undefined ? {} : { [key]: value };
}
