import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { redact } from '../json/redact';
import { createOpenAIStreamAssembler } from '../dialects/openai/stream';

/** An OpenAI-compatible endpoint: OpenAI itself, Ollama's /v1, vLLM, LM Studio, OpenRouter... */
export interface EndpointConfig {
	baseUrl: string;
	apiKey?: string;
	organization?: string;
	headers: Record<string, string>;
}

export interface CallOptions {
	timeoutMs: number;
	/** 429, 408, 409 and 5xx answers are retried this many times, waiting as Retry-After says. */
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

export interface Exchange {
	request: { url: string; method: string; headers: Record<string, string>; body: unknown };
	attempts: Attempt[];
	/** The body a non-streamed call returned, or the one the stream's chunks assembled into. */
	response: ChatCompletion;
	chunks?: number;
}

export type ModelApiFailure = 'http' | 'timeout' | 'connection' | 'cancelled' | 'incompleteStream';

export class ModelApiError extends Error {
	constructor(
		message: string,
		readonly failure: ModelApiFailure,
		readonly status?: number,
		readonly body?: unknown,
	) {
		super(message);
	}
}

/** The values that must never appear in a trace or an error. */
export function endpointSecrets(config: EndpointConfig): string[] {
	return [config.apiKey ?? '', ...Object.values(config.headers)];
}

/**
 * One Chat Completions call through the official SDK (its retries, Retry-After handling and
 * error types), with every HTTP attempt recorded. Streamed chunks are assembled into the body a
 * non-streamed call returns, so callers handle one shape.
 */
export async function createChatCompletion(
	config: EndpointConfig,
	body: ChatCompletionCreateParamsBase,
	options: CallOptions,
): Promise<Exchange> {
	const attempts: Attempt[] = [];
	let request: Exchange['request'] | undefined;
	const recordingFetch: typeof fetch = async (input, init) => {
		const started = Date.now();
		request ??= describeRequest(String(input), init, config);
		try {
			const response = await fetch(input, init);
			attempts.push({
				status: response.status,
				durationMs: Date.now() - started,
				...optional('retryAfter', response.headers.get('retry-after')),
				...optional('requestId', response.headers.get('x-request-id')),
			});
			return response;
		} catch (error) {
			attempts.push({ durationMs: Date.now() - started, error: (error as Error).message });
			throw error;
		}
	};
	const client = clientFor(config, options, recordingFetch);
	try {
		const requestOptions = { signal: options.signal };
		if (!body.stream) {
			const response = (await client.chat.completions.create({ ...body, stream: false }, requestOptions)) as ChatCompletion;
			return { request: request!, attempts, response };
		}
		const stream = await client.chat.completions.create({ ...body, stream: true }, requestOptions);
		const assembler = createOpenAIStreamAssembler();
		let chunks = 0;
		const incomplete = (how: string) =>
			new ModelApiError(`The stream ${how} after ${chunks} chunks, before the model finished its turn`, 'incompleteStream');
		try {
			for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
				assembler.push(chunk);
				chunks++;
			}
		} catch (error) {
			throw error instanceof APIError ? error : incomplete(`broke off (${(error as Error).message})`);
		}
		const response = assembler.result();
		if (!response.choices[0]?.finish_reason) throw incomplete('ended');
		return { request: request!, attempts, response, chunks };
	} catch (error) {
		throw toModelApiError(error, config, options);
	}
}

export async function listModels(config: EndpointConfig, options: CallOptions): Promise<string[]> {
	try {
		const models: string[] = [];
		for await (const model of clientFor(config, options, fetch).models.list()) models.push(model.id);
		return models.sort();
	} catch (error) {
		throw toModelApiError(error, config, options);
	}
}

function clientFor(config: EndpointConfig, options: CallOptions, fetchImpl: typeof fetch): OpenAI {
	return new OpenAI({
		// The SDK insists on a key; local servers need none, so none is sent (Authorization: null).
		apiKey: config.apiKey || 'none',
		baseURL: config.baseUrl,
		// Explicit nulls: the SDK would otherwise read OPENAI_* variables from n8n's environment.
		organization: config.organization || null,
		project: null,
		defaultHeaders: { ...config.headers, ...(config.apiKey ? {} : { Authorization: null }) },
		timeout: options.timeoutMs,
		maxRetries: options.maxRetries,
		fetch: fetchImpl,
	});
}

function describeRequest(url: string, init: RequestInit | undefined, config: EndpointConfig): Exchange['request'] {
	const headers = Object.fromEntries(new Headers(init?.headers).entries());
	let body: unknown = init?.body;
	if (typeof body === 'string') {
		try {
			body = JSON.parse(body);
		} catch {
			// Not JSON: kept as text.
		}
	}
	return redact({ url, method: init?.method ?? 'GET', headers, body }, endpointSecrets(config));
}

function toModelApiError(error: unknown, config: EndpointConfig, options: CallOptions): ModelApiError {
	if (error instanceof ModelApiError) return error;
	const secrets = endpointSecrets(config);
	if (error instanceof APIUserAbortError) return new ModelApiError('The request was cancelled', 'cancelled');
	if (error instanceof APIConnectionTimeoutError) {
		return new ModelApiError(`The model API at ${config.baseUrl} did not answer within ${options.timeoutMs} ms`, 'timeout');
	}
	if (error instanceof APIError && error.status !== undefined) {
		const body = redact(error.error, secrets);
		return new ModelApiError(redact(vendorMessage(error), secrets), 'http', error.status, body);
	}
	const cause = (error as Error & { cause?: Error }).cause?.message;
	const message = `${(error as Error).message}${cause ? ` (${cause})` : ''}`;
	return new ModelApiError(redact(`Could not reach the model API at ${config.baseUrl}: ${message}`, secrets), 'connection');
}

/** The vendor's own words: `{error:{message}}` from OpenAI and most servers, `{error:"..."}` from some. */
function vendorMessage(error: APIError): string {
	const body = error.error as { message?: unknown } | string | undefined;
	if (typeof body === 'string') return body;
	if (body && typeof body.message === 'string') return body.message;
	return error.message;
}

function optional(key: string, value: string | null): Record<string, string> {
	return value === null ? {} : { [key]: value };
}
