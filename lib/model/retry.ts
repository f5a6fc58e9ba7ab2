import { headerOf, type HttpResponse } from './http';

const RETRYABLE_STATUS = (status: number) =>
	status === 408 || status === 409 || status === 429 || status >= 500;
/** Longer waits than this are not worth holding an execution open: the call fails, saying so. */
const MAX_RETRY_AFTER_MS = 60_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** Whether an answer is worth another attempt; a vendor's `x-should-retry` header overrides the status. */
export function shouldRetry(response: HttpResponse): boolean {
	const hint = headerOf(response, 'x-should-retry');
	if (hint === 'true') return true;
	if (hint === 'false') return false;
	return RETRYABLE_STATUS(response.status);
}

/**
 * How long to wait before attempt `retry` (1 for the first retry): what the server asked for in
 * `retry-after-ms` or `Retry-After` (seconds or an HTTP date) or, as Google's APIs do, in the error
 * body's RetryInfo; else exponential back-off with jitter.
 */
export function retryDelayMs(
	retry: number,
	response?: HttpResponse,
	now = Date.now(),
	body?: unknown,
): number {
	const asked = response ? askedDelayMs(response, body, now) : undefined;
	if (asked !== undefined && asked >= 0 && asked <= MAX_RETRY_AFTER_MS) return asked;
	const backoff = Math.min(FIRST_BACKOFF_MS * 2 ** (retry - 1), MAX_BACKOFF_MS);
	return backoff * (1 - Math.random() * 0.25);
}

/** The wait the server asked for when it is longer than an execution is held open, else undefined. */
export function askedTooLongMs(
	response: HttpResponse,
	body: unknown,
	now = Date.now(),
): number | undefined {
	const asked = askedDelayMs(response, body, now);
	return asked !== undefined && asked > MAX_RETRY_AFTER_MS ? asked : undefined;
}

function askedDelayMs(response: HttpResponse, body: unknown, now: number): number | undefined {
	return headerDelayMs(response, now) ?? retryInfoMs(body);
}

/** Google's `google.rpc.RetryInfo` in an error body's `details`: `"retryDelay": "37s"`. */
function retryInfoMs(body: unknown): number | undefined {
	const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
	if (!Array.isArray(details)) return undefined;
	for (const detail of details) {
		const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
		const seconds = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
		if (seconds) return Number(seconds[1]) * 1000;
	}
	return undefined;
}

function headerDelayMs(response: HttpResponse, now: number): number | undefined {
	// A header sent empty asks for nothing (Number('') would read it as 0: retry at once).
	const asked = (name: string) => headerOf(response, name)?.trim() || undefined;
	const ms = Number(asked('retry-after-ms'));
	if (Number.isFinite(ms) && asked('retry-after-ms') !== undefined) return ms;
	const after = asked('retry-after');
	if (after === undefined) return undefined;
	const seconds = Number(after);
	if (Number.isFinite(seconds)) return seconds * 1000;
	const date = Date.parse(after);
	return Number.isNaN(date) ? undefined : date - now;
}
