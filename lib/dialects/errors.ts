import { excerpt, isRecord } from '../json/value';

/** `{error:{message}}`, `{error:"..."}`: the error shapes most vendors and compatible servers share. */
export function commonErrorMessage(body: unknown): string | undefined {
	if (!isRecord(body)) return undefined;
	const { error } = body;
	if (typeof error === 'string') return error;
	if (isRecord(error)) return typeof error.message === 'string' ? error.message : excerpt(error);
	return undefined;
}

/**
 * Stops on what is not a model's answer: a body that is no JSON object, or an error body (which
 * compatible servers send with status 200). `errorMessage` is the dialect's reader of error bodies.
 */
export function rejectErrorBody(
	body: unknown,
	errorMessage: (body: Record<string, unknown>) => string | undefined,
): void {
	const failure = isRecord(body) ? errorMessage(body) : `not a JSON object: ${excerpt(body)}`;
	if (failure) throw new Error(`The model API returned an error: ${failure}`);
}
