import type { TraceEntry } from '../conversation/types';
import { excerpt } from '../json/value';
import { firstDifference } from '../json/difference';
import type { CallToolResult, McpTool } from '../mcp/connection';
import type { ServerRequestEvent } from '../mcp/serverRequests';
import type { TraceStep } from './entries';

/**
 * What the server answered a call in the recorded run: a result, or a failure (timeout, lost
 * connection…) with its status; and what it asked the client while the call ran.
 */
export type RecordedAnswer = (
	{ result: CallToolResult } | { failure: { status: string; text: string } }
) & { serverAsks: ServerRequestEvent[] };

/** The run no longer matches the recording: the first step that differs, and how. */
export class ReplayDriftError extends Error {
	constructor(
		readonly step: TraceStep,
		readonly round: number,
		what: string,
	) {
		super(`The run drifted from the recording at round ${round}, step ${step}: ${what}`);
	}
}

/**
 * Where a run is: its round, and its trace so far. A round number can come again in one trace (a
 * workflow that counts the rounds of each new question anew): the steps this run already took
 * from the recording at that round say which of the recorded ones is next.
 */
export interface RunPlace {
	round: number;
	trace: readonly TraceEntry[];
}

/**
 * A recorded trace that answers for the API or the server: the Tool Calling Model node replays
 * model responses, the MCP Client node answers tools/list and tools/call (dry run). Every answer
 * is given only if what the run would send now equals what was recorded.
 */
export class Recording {
	/**
	 * `node` is the node that answers from the recording: its own entries are preferred, so two MCP
	 * Client nodes of one workflow each get their server's steps. `redact` is the run's redaction,
	 * applied to what it sends before comparing, as recordings hold only redacted JSON.
	 */
	constructor(
		private readonly entries: readonly TraceEntry[],
		private readonly node: string,
		private readonly redact: <T>(value: T) => T = (value) => value,
	) {}

	/** The recorded response body of this round, after checking that the request is the recorded one. */
	modelResponse(place: RunPlace, requestBody: unknown): unknown {
		const request = this.find('model.request', place, () => true);
		this.expectSame(
			'model.request',
			place.round,
			withoutRouting(payloadOf(request)),
			withoutRouting(requestBody),
		);
		return payloadOf(this.find('model.response', place, () => true));
	}

	/**
	 * The URL the recorded request went to ('' where it was itself replayed): a replayed turn is
	 * priced as the recorded one was.
	 */
	modelRequestUrl(place: RunPlace): string {
		const { url } = this.find('model.request', place, () => true);
		return typeof url === 'string' ? url : '';
	}

	/** The tools a server listed at this point of the recorded run, and the server as it was then. */
	toolsList(place: RunPlace): { server: Record<string, unknown>; tools: McpTool[] } {
		const entry = this.find('tools.list', place, () => true);
		const server =
			typeof entry.server === 'object' && entry.server !== null
				? (entry.server as Record<string, unknown>)
				: {};
		return { server, tools: payloadOf(entry) as McpTool[] };
	}

	/**
	 * The tools the recorded run knew at this round: its last listing up to it (the executor asks
	 * for them, untraced, when a call names a tool the item does not carry). In a recording of
	 * several conversations, a later one's listing is not yet known.
	 */
	toolsKnownAt(place: RunPlace): McpTool[] {
		const { round } = place;
		const listings = this.entries
			.slice(0, this.endOfRound(place))
			.filter((entry) => entry.step === 'tools.list' && Number(entry.round) <= round);
		const entry = listings.findLast((listing) => listing.node === this.node) ?? listings.at(-1);
		if (!entry)
			throw new ReplayDriftError('tools.list', round, 'the recording listed no tools by then');
		return payloadOf(entry) as McpTool[];
	}

	/**
	 * How far the recording had come at this place: the n-th time the run has a model response at
	 * its round, the end of the recording's n-th response at that round; the whole recording when
	 * the run has none.
	 */
	private endOfRound({ round, trace }: RunPlace): number {
		const isResponse = (entry: TraceEntry) =>
			entry.step === 'model.response' && entry.round === round;
		const reached = trace.filter(isResponse).length;
		const recorded = this.entries.flatMap((entry, index) => (isResponse(entry) ? [index] : []));
		return reached > 0 && reached <= recorded.length
			? recorded[reached - 1] + 1
			: this.entries.length;
	}

	/** The recorded answer to one call, after checking that the same tool and arguments were sent then. */
	toolAnswer(
		place: RunPlace,
		callId: string,
		name: string,
		args: Record<string, unknown>,
	): RecordedAnswer {
		const { round } = place;
		const recordedId = this.recordedCallId(place, callId, { name, arguments: args });
		const sameCall = (entry: TraceEntry) => entry.callId === recordedId;
		const called = this.entries.some(
			(entry) => entry.step === 'tools.call.request' && entry.round === round && sameCall(entry),
		);
		if (!called) {
			throw new ReplayDriftError(
				'tools.call.request',
				round,
				`the recording did not call the server for call ${callId} (${name}), this run does`,
			);
		}
		const request = this.find('tools.call.request', place, sameCall);
		this.expectSame('tools.call.request', round, payloadOf(request), { name, arguments: args });
		const resultEntry = this.find('tools.call.result', place, sameCall);
		const serverAsks = this.entries
			.slice(this.entries.indexOf(request), this.entries.indexOf(resultEntry))
			.filter((entry) => entry.step === 'server.request' && sameCall(entry))
			.map(serverAskOf);
		const result = payloadOf(resultEntry) as CallToolResult | { error: string };
		// A failure is recorded as its text alone; a result has its content, and may have any other key.
		if (!Array.isArray((result as CallToolResult).content) && 'error' in result) {
			const failure = { status: String(resultEntry.status), text: String(result.error) };
			return { failure, serverAsks };
		}
		return { result: withoutBinaryReferences(result as CallToolResult), serverAsks };
	}

	/**
	 * The id the recording has for this run's call. A live model names its calls anew at every run,
	 * so a call the recording does not know by its id is the recorded turn's call at the same place
	 * of the turn, unless another of its calls has the same tool and arguments and that one not (the
	 * model may order its calls otherwise); its tool and arguments are then checked as any call's.
	 */
	private recordedCallId(
		place: RunPlace,
		callId: string,
		request: { name: string; arguments: Record<string, unknown> },
	): string {
		const known = this.entries.some(
			(entry) =>
				entry.step === 'tools.call.request' &&
				entry.round === place.round &&
				entry.callId === callId,
		);
		if (known) return callId;
		const isResponse = (entry: TraceEntry) =>
			entry.step === 'model.response' && entry.round === place.round;
		const position = callIdsOf(place.trace.findLast(isResponse)).indexOf(callId);
		const turn = callIdsOf(this.entries.slice(0, this.endOfRound(place)).findLast(isResponse));
		const sent = this.redact(request);
		const same = this.entries
			.filter(
				(entry) =>
					entry.step === 'tools.call.request' &&
					entry.round === place.round &&
					turn.includes(String(entry.callId)) &&
					firstDifference(entry.payload, sent) === undefined,
			)
			.map((entry) => String(entry.callId));
		const atPlace = position >= 0 ? turn[position] : undefined;
		// Of calls alike (the same tool and arguments twice), each takes the one at its own place.
		if (atPlace !== undefined && (same.length === 0 || same.includes(atPlace))) return atPlace;
		return same[0] ?? callId;
	}

	/**
	 * The recorded step this run takes next at its round: of those the recording has there (this
	 * node's own first), the one after as many as the run already replayed.
	 */
	private find(
		step: TraceStep,
		{ round, trace }: RunPlace,
		matches: (entry: TraceEntry) => boolean,
	): TraceEntry {
		const here = (entry: TraceEntry) =>
			entry.step === step && entry.round === round && matches(entry);
		const candidates = this.entries.filter(here);
		const own = candidates.filter((candidate) => candidate.node === this.node);
		const ours = own.length > 0;
		const taken = trace.filter(
			(entry) => entry.replayed === true && here(entry) && (!ours || entry.node === this.node),
		).length;
		const entry = (ours ? own : candidates)[taken];
		if (entry) return entry;
		if (candidates.length > 0)
			throw new ReplayDriftError(
				step,
				round,
				`the recording has this step ${candidates.length} time(s) at this round, and this run takes it once more`,
			);
		const rounds = new Set(this.entries.map((candidate) => candidate.round));
		throw new ReplayDriftError(
			step,
			round,
			`the recording has no such step (its rounds: ${[...rounds].join(', ') || 'none'})`,
		);
	}

	private expectSame(step: TraceStep, round: number, recorded: unknown, now: unknown): void {
		const difference = firstDifference(recorded, this.redact(now));
		if (!difference) return;
		const where = difference.path === '' ? 'the whole payload' : difference.path;
		throw new ReplayDriftError(
			step,
			round,
			`${where} was ${excerpt(difference.left)} in the recording and is ${excerpt(difference.right)} now`,
		);
	}
}

/** The ids of the calls a model.response entry names, in the model's order. */
function callIdsOf(response: TraceEntry | undefined): string[] {
	const calls = Array.isArray(response?.toolCalls) ? (response.toolCalls as unknown[]) : [];
	return calls.map((call) => String((call as { id?: unknown } | null)?.id ?? ''));
}

function payloadOf(entry: TraceEntry): unknown {
	if (entry.payload === undefined) {
		throw new ReplayDriftError(
			entry.step as TraceStep,
			Number(entry.round),
			`the recording kept no payload for this step (${entry.payloadOmitted ?? 'left out'})`,
		);
	}
	return entry.payload;
}

/** A request the server made during a recorded call, as the call was told of it then. */
function serverAskOf(entry: TraceEntry): ServerRequestEvent {
	const { request, answer } = (payloadOf(entry) ?? {}) as { request?: unknown; answer?: unknown };
	return {
		method: String(entry.method),
		params: request,
		...(answer !== undefined && { answer: answer as ServerRequestEvent['answer'] }),
		...(entry.error !== undefined && { error: String(entry.error) }),
		...(typeof entry.requestBytes === 'number' && { requestBytes: entry.requestBytes }),
		tiedBy: entry.tiedBy as ServerRequestEvent['tiedBy'],
	};
}

/** Recorded results name the binary property their bytes went to; the bytes themselves are not in the trace. */
function withoutBinaryReferences(result: CallToolResult): CallToolResult {
	const content = (result.content ?? []).map((part) => {
		const data =
			part.type === 'image' || part.type === 'audio'
				? part.data
				: part.type === 'resource' && 'blob' in part.resource
					? part.resource.blob
					: undefined;
		if (typeof data === 'string' || data === undefined) return part;
		const { binaryProperty, bytes } = data as { binaryProperty?: string; bytes?: number };
		return {
			type: 'text' as const,
			text: `[${part.type} of ${bytes} bytes, recorded as binary '${binaryProperty}'; not part of a replay]`,
		};
	});
	return { ...result, content };
}

/**
 * A request body without the fields that only route it (OpenAI's prompt_cache_key, sent to OpenAI's
 * own API only): a replay, which calls no API, matches a recorded run with or without them.
 */
function withoutRouting(body: unknown): unknown {
	if (typeof body !== 'object' || body === null || !('prompt_cache_key' in body)) return body;
	const { prompt_cache_key: _routing, ...rest } = body as Record<string, unknown>;
	return rest;
}
