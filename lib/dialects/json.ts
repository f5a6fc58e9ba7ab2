/** Small readers for vendor JSON, which every dialect treats as untrusted. */

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short JSON excerpt of a value, for error messages. */
export function excerpt(value: unknown): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `{error:{message}}`, `{error:"..."}`: the error shapes most vendors and compatible servers share. */
export function commonErrorMessage(body: unknown): string | undefined {
	if (!isRecord(body)) return undefined;
	const { error } = body;
	if (typeof error === 'string') return error;
	if (isRecord(error)) return typeof error.message === 'string' ? error.message : excerpt(error);
	return undefined;
}
