import type { TraceEntry } from '../conversation/types';
import type { ElicitRequestFormParams, ServerRequestEvent } from '../mcp/serverRequests';
import { traceEntry, type StepTiming, type TracePolicy } from '../trace/entries';

/** A request the server made to this client while a call ran (elicitation, sampling), and when. */
export interface ServerAsk {
	at: number;
	event: ServerRequestEvent;
}

/**
 * What the model reads about the server's requests during a call: what the tool asked for and
 * what it got, so a declined elicitation is not mistaken for the tool's own answer.
 */
export function describeServerAsks(asks: readonly ServerAsk[]): string[] {
	return asks.map(({ event }) => {
		// Every call running is told of a request it could not be tied to: it may be another's.
		const untied =
			event.tiedBy === 'unknown'
				? ' Several calls were running and the request could not be tied to one of them.'
				: '';
		if (event.requestBytes !== undefined) {
			return `[The tool sent this client a request too large to read; it was refused: ${event.error}.${untied}]`;
		}
		if (event.method === 'sampling/createMessage') {
			return `[The tool asked this client for a model answer (sampling); it was refused: this client offers no sampling.${untied}]`;
		}
		const params = event.params as ElicitRequestFormParams;
		const fields = Object.keys(params.requestedSchema?.properties ?? {}).map((name) =>
			params.requestedSchema.required?.includes(name) ? `${name} (required)` : name,
		);
		const asked = `[The tool asked for input: "${params.message}"${fields.length > 0 ? ` (fields: ${fields.join(', ')})` : ''}.`;
		return `${asked}${untied} ${outcomeOf(event)}]`;
	});
}

function outcomeOf(event: ServerRequestEvent): string {
	const answer = event.answer;
	if (event.error) return `No answer could be made (${event.error}), so it was cancelled.`;
	if (answer?.action === 'accept') return `It was given: ${JSON.stringify(answer.content ?? {})}.`;
	if (answer?.action === 'decline') return 'It was declined: the call went on without the input.';
	return 'It was cancelled.';
}

/** One `server.request` trace entry per request, with what was asked and what was answered; `replayed` when a recording told of it. */
export function serverAskTrace(
	asks: readonly ServerAsk[],
	timing: Omit<StepTiming, 'startedAt'>,
	details: Record<string, unknown>,
	policy: TracePolicy,
	replayed = false,
): TraceEntry[] {
	return asks.map(({ at, event }) =>
		traceEntry(
			'server.request',
			{ ...timing, startedAt: at },
			{
				...details,
				method: event.method,
				// The server got an error, no answer: sampling, or a request too large to read.
				action: event.answer?.action ?? 'refused',
				tiedBy: event.tiedBy,
				...(event.error !== undefined && { error: event.error }),
				...(event.requestBytes !== undefined && { requestBytes: event.requestBytes }),
			},
			{ request: event.params, ...(event.answer !== undefined && { answer: event.answer }) },
			policy,
			replayed,
		),
	);
}
