import type { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { NodeRedaction } from './traceOptions';

/** How far down a chain of causes redaction goes; n8n's error reporter walks all of it. */
const MAX_CAUSES = 10;

/**
 * The error as n8n may show, store and log it, with the credential secrets taken out of every
 * part that carries text: message, description, messages, stack, error response, context, and
 * each cause in its chain (n8n's error reporter prints every cause's message and stack; the
 * saved run data keeps the stack, whose first line repeats the message as it was first written).
 */
export function redactedError<T extends NodeApiError | NodeOperationError>(
	error: T,
	redaction: NodeRedaction,
): T {
	redactInPlace(error, redaction);
	error.messages = error.messages.map(redaction.text);
	if (error.errorResponse) error.errorResponse = redaction.redactor.all(error.errorResponse);
	error.context = redaction.redactor.all(error.context);
	const seen = new Set<unknown>([error]);
	let holder: Error = error;
	for (let depth = 0; holder.cause !== undefined && !seen.has(holder.cause); depth++) {
		const cause = holder.cause;
		seen.add(cause);
		if (depth === MAX_CAUSES || !(cause instanceof Error)) {
			// Past the bound, or not an error: a plain value goes redacted, a deeper chain goes.
			Object.defineProperty(holder, 'cause', {
				value: depth === MAX_CAUSES ? undefined : redaction.redactor.all(cause),
				configurable: true,
				writable: true,
			});
			break;
		}
		redactInPlace(cause, redaction);
		holder = cause;
	}
	return error;
}

function redactInPlace(error: Error, redaction: NodeRedaction): void {
	error.message = redaction.text(error.message);
	if (error.stack) error.stack = redaction.text(error.stack);
	const described = error as Error & { description?: unknown };
	if (typeof described.description === 'string')
		described.description = redaction.text(described.description);
}
