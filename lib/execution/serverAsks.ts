import type { TraceEntry } from '../conversation/types';
import type {
	CreateMessageResultWithTools,
	ElicitRequestFormParams,
	ElicitResult,
	ServerRequestEvent,
} from '../mcp/serverRequests';
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
		if (event.method === 'sampling/createMessage') return describeSampling(event, untied);
		const params = event.params as ElicitRequestFormParams;
		const fields = Object.keys(params.requestedSchema?.properties ?? {}).map((name) =>
			params.requestedSchema.required?.includes(name) ? `${name} (required)` : name,
		);
		const asked = `[The tool asked for input: "${params.message}"${fields.length > 0 ? ` (fields: ${fields.join(', ')})` : ''}.`;
		return `${asked}${untied} ${outcomeOf(event)}]`;
	});
}

/** A sampling request, and the model's answer or why there was none. */
function describeSampling(event: ServerRequestEvent, untied: string): string {
	const asked = '[The tool asked this client for a model answer (sampling)';
	const result = event.answer as CreateMessageResultWithTools | undefined;
	if (!result)
		return `${asked}; it was refused: ${(event.error ?? 'this client offers no sampling').replace(/\.$/, '')}.${untied}]`;
	const blocks = Array.isArray(result.content) ? result.content : [result.content];
	const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(' ');
	const calls = blocks.flatMap((block) => (block.type === 'tool_use' ? [block.name] : []));
	const answered =
		calls.length > 0
			? `asked for the tools ${calls.join(', ')}`
			: `answered ${JSON.stringify(text)}`;
	return `${asked}; ${result.model} ${answered}.${untied}]`;
}

/** accept, decline or cancel for an elicitation; answered for sampling; refused when the server got an error. */
function actionOf(event: ServerRequestEvent): string {
	const answer = event.answer;
	if (!answer) return 'refused';
	return 'model' in answer ? 'answered' : (answer as ElicitResult).action;
}

function outcomeOf(event: ServerRequestEvent): string {
	const answer = event.answer as ElicitResult | undefined;
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
				action: actionOf(event),
				...(event.usage !== undefined && { usage: event.usage }),
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
