import type { TraceEntry } from '../conversation/types';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/depth';
import type { Redactor } from '../json/redact';
import { jsonText } from '../json/stringify';

/** The steps of one tool-calling round trip, in the order they happen, and the other server operations (docs/trace.md). */
export type TraceStep =
	| 'tools.list'
	| 'model.request'
	| 'model.response'
	| 'answer.validation'
	| 'arguments.validation'
	| 'tools.call.request'
	| 'server.request'
	| 'tools.call.result'
	| 'resources.list'
	| 'resources.templates.list'
	| 'resources.read'
	| 'prompts.list'
	| 'prompts.get'
	| 'approval.requested'
	| 'approval.decision'
	| 'memory.load';

export interface TracePolicy {
	/**
	 * Full JSON (what an earlier entry of the item holds is referred to: lib/trace/compact.ts),
	 * every byte of every payload kept whole, or metadata only (sizes, names, statuses) for
	 * workflows whose payloads are large or sensitive.
	 */
	payloads: 'full' | 'verbatim' | 'metadata';
	/** Payloads larger than this are left out even in full mode, with the reason said. */
	maxPayloadBytes: number;
	redactor: Redactor;
}

export interface StepTiming {
	node: string;
	round: number;
	/** When the step started, in ms since the epoch. */
	startedAt: number;
	durationMs?: number;
}

/**
 * One trace entry: redacted before it exists, its payload measured, and left out (with the
 * reason) when the policy says so or when it nests too deep to be stored. `details` are the
 * step's metadata, always kept. Under full payloads `compact` refers to what the trace already
 * holds (lib/trace/compact.ts), and the payload limit applies to what is then stored; `bytes`
 * stays the size of the whole payload.
 */
export function traceEntry(
	step: TraceStep,
	timing: StepTiming,
	details: Record<string, unknown>,
	payload: unknown,
	policy: TracePolicy,
	replayed = false,
	compact?: (whole: TraceEntry) => TraceEntry,
): TraceEntry {
	const tooDeep = payload !== undefined && nestsDeeperThan(payload);
	// Redacted whole, so the Redact Paths name keys of the entry: `payload.arguments.ssn`.
	const entry = policy.redactor.all({
		step,
		node: timing.node,
		round: timing.round,
		at: new Date(timing.startedAt).toISOString(),
		...(timing.durationMs !== undefined && { durationMs: timing.durationMs }),
		...details,
		...(replayed && { replayed: true }),
		...(payload !== undefined && !tooDeep && { payload }),
	}) as TraceEntry;
	if (tooDeep) return { ...entry, payloadOmitted: `nested deeper than ${MAX_JSON_DEPTH} levels` };
	if (payload === undefined) return entry;
	const bytes = Buffer.byteLength(jsonText(entry.payload) ?? '');
	const { payload: kept, ...metadata } = entry;
	if (policy.payloads === 'metadata')
		return { ...metadata, bytes, payloadOmitted: 'Trace Payloads is set to Metadata Only' };
	const whole = { ...metadata, bytes, payload: kept };
	const stored = compact && policy.payloads === 'full' ? compact(whole) : whole;
	const storedBytes =
		stored.payload === kept ? bytes : Buffer.byteLength(jsonText(stored.payload) ?? '');
	if (storedBytes > policy.maxPayloadBytes) {
		return {
			...metadata,
			bytes,
			payloadOmitted: `larger than the ${Math.round(policy.maxPayloadBytes / 1024)} KB payload limit`,
		};
	}
	return stored;
}
