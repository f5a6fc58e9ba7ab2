import type { Dialect, ModelSettings } from '../dialects/types';
import { ModelApiError } from '../model/errors';
import type { ModelEndpoint } from './endpoint';

/** A model a turn can be asked of: its dialect, its settings (the model among them), its endpoint. */
export interface ModelRoute {
	dialect: Dialect;
	settings: ModelSettings;
	endpoint: ModelEndpoint;
}

/**
 * Why the first model's failure, after its retries, hands the turn to the fallback; undefined for
 * a failure another model would not mend (a refused request, a wrong key, a cancel). What is
 * handed on: a rate limit (429), a server error or overload (5xx, Anthropic's 529 or an
 * `overloaded_error` in a stream), a timeout (408 too), a connection that failed or was refused,
 * and a stream that broke off before the turn's end (takeTurn.ts keeps one whose text reached a chat).
 */
export function fallbackReason(error: unknown): string | undefined {
	if (!(error instanceof ModelApiError)) return undefined;
	if (['timeout', 'connection', 'incompleteStream'].includes(error.failure)) return error.message;
	if (error.failure !== 'http') return undefined;
	const status = error.status ?? 0;
	const handedOn =
		status === 408 || status === 429 || status >= 500 || /overloaded/i.test(error.message);
	return handedOn ? `${status ? `HTTP ${status}: ` : ''}${error.message}` : undefined;
}

/**
 * The fallback's own failure, told with the first model's: the person needs both to mend either.
 * The error keeps its kind (a ModelApiError keeps its failure and status), its message extended.
 */
export function withFirstFailure(
	error: unknown,
	first: { model: string },
	because: string,
): unknown {
	if (error instanceof Error) {
		error.message = `${error.message} (asked as the fallback: the first model, ${first.model}, failed with ${because})`;
	}
	return error;
}
