/**
 * An error's message, and what caused it when the message alone says nothing (fetch's "fetch
 * failed", "terminated"). Read by its shape: fetch's errors come from another realm in some hosts,
 * not `instanceof Error`.
 */
export function reasonOf(error: unknown): string {
	if (typeof (error as Error | null)?.message !== 'string') return String(error);
	const { message, cause } = error as {
		message: string;
		cause?: { code?: unknown; message?: unknown };
	};
	const why = typeof cause?.code === 'string' ? cause.code : cause?.message;
	return typeof why === 'string' && why !== '' && !message.includes(why)
		? `${message} (${why})`
		: message;
}
