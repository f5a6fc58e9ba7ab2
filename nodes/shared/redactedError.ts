import type { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { NodeRedaction } from './traceOptions';

/** How far down a chain of causes (and errors held by errors) redaction goes; n8n's error reporter walks all of it. */
const MAX_CAUSES = 10;

/** Fields that hold nothing of the run: n8n's own of a node error (the node, its level, its time). */
const RUN_FREE_FIELDS = new Set([
	'node',
	'level',
	'shouldReport',
	'tags',
	'packageName',
	'timestamp',
	'lineNumber',
	'functionality',
	'name',
	'failure',
	'type',
	'httpCode',
]);

/**
 * The error as n8n may show, store and log it, with the credential secrets taken out of every
 * part that carries text: message, description, messages, stack, error response, context, and
 * each cause in its chain (n8n's error reporter prints every cause's message and stack; the
 * saved run data keeps the stack, whose first line repeats the message as it was first written),
 * and every other property of each (a client's `config` and `response`, a `body`, an
 * AggregateError's `errors`): printing an error whole (`util.inspect`) shows them.
 */
export function redactedError<T extends NodeApiError | NodeOperationError>(
	error: T,
	redaction: NodeRedaction,
): T {
	redactInPlace(error, redaction, new Set([error]), 0);
	return error;
}

function redactInPlace(
	error: Error,
	redaction: NodeRedaction,
	seen: Set<unknown>,
	depth: number,
): void {
	rewrite(error, 'message', redaction.text(error.message));
	if (error.stack) rewrite(error, 'stack', redaction.text(error.stack));
	// Enumerable or not: AggregateError's `errors` is not, and util.inspect shows it.
	for (const name of Object.getOwnPropertyNames(error)) {
		if (name === 'message' || name === 'stack' || RUN_FREE_FIELDS.has(name)) continue;
		const value = (error as unknown as Record<string, unknown>)[name];
		const held = Array.isArray(value) ? value : [value];
		if (!held.some((inner) => inner instanceof Error)) {
			setProperty(error, name, redaction.redactor.all(value));
			continue;
		}
		// Past the bound, a chain of errors goes; within it each keeps its shape, redacted in place.
		if (depth === MAX_CAUSES) {
			setProperty(error, name, undefined);
			continue;
		}
		for (const inner of held)
			if (inner instanceof Error && !seen.has(inner)) {
				seen.add(inner);
				redactInPlace(inner, redaction, seen, depth + 1);
			}
		// An error whose message cannot be rewritten (zod's is a getter) is replaced by one that says it, redacted.
		if (held.some((inner) => inner instanceof Error && !rewritable(inner))) {
			const replaced = held.map((inner) =>
				inner instanceof Error && !rewritable(inner) ? copyOf(inner, redaction) : inner,
			);
			setProperty(error, name, Array.isArray(value) ? replaced : replaced[0]);
		}
	}
}

/** Whether the error's message can be set: a getter without a setter (own or inherited) cannot be. */
function rewritable(error: Error): boolean {
	for (let holder: object | null = error; holder; holder = Object.getPrototypeOf(holder)) {
		const descriptor = Object.getOwnPropertyDescriptor(holder, 'message');
		if (descriptor) return descriptor.writable === true || descriptor.set !== undefined;
	}
	return true;
}

function copyOf(error: Error, redaction: NodeRedaction): Error {
	const copy = new Error(redaction.text(String(error.message)));
	copy.name = error.name;
	copy.stack = redaction.text(String(error.stack ?? copy.stack));
	return copy;
}

/** Sets the message or stack where it can be set; one that cannot is left (see rewritable). */
function rewrite(error: Error, name: 'message' | 'stack', value: string): void {
	const descriptor = Object.getOwnPropertyDescriptor(error, name);
	if (descriptor && descriptor.writable !== true && descriptor.set === undefined) {
		if (descriptor.configurable) setProperty(error, name, value);
		return;
	}
	// Reflect.set answers false where an inherited getter refuses, rather than throw.
	Reflect.set(error, name, value);
}

/** Sets a property the error may have made read-only or non-enumerable, keeping how it shows. */
function setProperty(error: Error, name: string, value: unknown): void {
	const descriptor = Object.getOwnPropertyDescriptor(error, name);
	if (descriptor && !descriptor.configurable && !descriptor.writable) return;
	Object.defineProperty(error, name, {
		value,
		configurable: true,
		writable: true,
		enumerable: descriptor?.enumerable ?? true,
	});
}
