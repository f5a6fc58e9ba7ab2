import type { TraceEntry } from '../conversation/types';
import { sha256 } from '../json/canonical';
import { jsonText } from '../json/stringify';
import { isRecord } from '../json/value';

/**
 * A compact trace keeps only what the item does not already hold. Every round's request body
 * repeats the whole history and every tool, so a kept-whole trace grows with the square of the
 * rounds (and n8n stores each round's item again). A compact `model.request` replaces each part of
 * its body that an earlier request of the same trace already holds with a reference to it, and a
 * `tools.list` whose list an earlier one holds refers to that one. Reading a trace rebuilds the
 * exact payloads (checked against the hash of the whole body); a trace kept whole reads as it is.
 */

/** A top-level part of a request body that an earlier request holds: all of it, or its first items. */
export interface PartReference {
	/** The round of the earlier model.request that holds the part. */
	sameAsRound: number;
	/** For a list: how many of its first items the earlier request's list holds… */
	first?: number;
	/** …and the items that follow them, new in this request. */
	then?: unknown[];
}

/** What a compact model.request adds to its entry. */
export interface CompactRequest {
	/** The payload's keys whose values are PartReferences. */
	compacted: string[];
	/** sha256 of the whole payload's JSON text: the bytes sent, or what redaction left of them. */
	payloadSha256: string;
}

/** Parts whose JSON is shorter than this stay inline: a reference would save nothing. */
const WORTH_REFERRING_CHARACTERS = 64;

/**
 * The model.request entry with the parts of its body that `earlier` (the item's trace so far)
 * already holds replaced by references. Left whole when it has no payload, nothing to refer to,
 * or the body is not a JSON object.
 */
export function compactModelRequest(entry: TraceEntry, earlier: readonly TraceEntry[]): TraceEntry {
	const body = entry.payload;
	if (!isRecord(body)) return entry;
	// A trace changed on the way is not referred to: this request then stays whole.
	const previous = lastRequest(wholeOrNothing(earlier), entry.dialect);
	if (!previous) return entry;
	const payload: Record<string, unknown> = {};
	const compacted: string[] = [];
	for (const [key, value] of Object.entries(body)) {
		const reference = referenceTo(value, previous.payload[key], previous.round);
		payload[key] = reference ?? value;
		if (reference) compacted.push(key);
	}
	if (compacted.length === 0) return entry;
	return {
		...entry,
		payload,
		compacted,
		payloadSha256: sha256(jsonText(body) ?? ''),
	} satisfies TraceEntry & CompactRequest;
}

/**
 * The tools.list entry without its payload when the last earlier tools.list of the item with the
 * same listHash listed the very same JSON (the hash is of the tools offered, not of the bytes
 * listed): it names that one's round instead, and keeps the sha256 of the payload to check the
 * rebuilt one against.
 */
export function compactToolsList(entry: TraceEntry, earlier: readonly TraceEntry[]): TraceEntry {
	if (entry.payload === undefined || entry.listHash === undefined) return entry;
	const same = wholeOrNothing(earlier).findLast(
		(other) => other.step === 'tools.list' && other.listHash === entry.listHash,
	);
	if (same?.payload === undefined || jsonText(same.payload) !== jsonText(entry.payload))
		return entry;
	const { payload: listed, ...rest } = entry;
	return {
		...rest,
		payloadSameAsRound: same.round ?? 0,
		payloadSha256: sha256(jsonText(listed) ?? ''),
	};
}

/** The trace so far rebuilt whole; none when it was changed on the way (by a Set node, say). */
function wholeOrNothing(earlier: readonly TraceEntry[]): TraceEntry[] {
	try {
		return expandTrace(earlier);
	} catch (error) {
		if (error instanceof TraceRebuildError) return [];
		throw error;
	}
}

/** Why a compact trace could not be rebuilt: the message names the entry and what is missing. */
export class TraceRebuildError extends Error {}

/**
 * The trace with every payload whole again: compact model.request bodies rebuilt from the earlier
 * requests they refer to (and checked against their hash), tools.list payloads filled in from the
 * listing they name. Entries kept whole are returned as they are; so is a trace with nothing compact.
 */
export function expandTrace<T extends TraceEntry>(entries: readonly T[]): T[] {
	if (!entries.some(isCompact)) return [...entries];
	const held: Held = { requests: new Map(), listings: new Map() };
	const { requests, listings } = held;
	return entries.map((entry, index) => {
		const whole = isCompact(entry) ? rebuiltOnce(entry, index, held) : entry;
		const round = whole.round ?? 0;
		if (whole.step === 'model.request' && isRecord(whole.payload))
			requests.set(requestKey(whole.dialect, round), whole.payload);
		if (whole.step === 'tools.list' && whole.payload !== undefined)
			listings.set(listingKey(round, whole.listHash), whole.payload);
		return whole;
	});
}

/**
 * The requests so far, by dialect and round: a compact request refers to one of its own dialect,
 * and round numbers repeat across dialects (a provider switched, rounds counted anew).
 */
type Requests = Map<string, Record<string, unknown>>;

/** What the trace so far holds for a compact entry to refer to: its requests and its listings. */
interface Held {
	requests: Requests;
	listings: Map<string, unknown>;
}

const requestKey = (dialect: unknown, round: unknown) => `${String(dialect)} ${String(round)}`;

/** A compact entry, or one that was and lost its list of references (its hash says it was). */
function isCompact(entry: TraceEntry): boolean {
	return (
		entry.compacted !== undefined ||
		entry.payloadSameAsRound !== undefined ||
		(entry.step === 'model.request' && entry.payloadSha256 !== undefined)
	);
}

/**
 * Each round rebuilds the trace so far to compact its request: an entry once rebuilt (and checked
 * against its hash) is not rebuilt again while it lives and the payloads it was rebuilt from are
 * still the ones its trace holds.
 */
const rebuiltEntries = new WeakMap<TraceEntry, { whole: TraceEntry; sources: unknown[] }>();

function rebuiltOnce<T extends TraceEntry>(entry: T, index: number, held: Held): T {
	const { requests, listings } = held;
	const sources =
		entry.payloadSameAsRound === undefined
			? referencesOf(entry, index).map(
					([key, reference]) =>
						requests.get(requestKey(entry.dialect, reference.sameAsRound))?.[key],
				)
			: [listings.get(listingKey(entry.payloadSameAsRound, entry.listHash))];
	const known = rebuiltEntries.get(entry);
	if (known?.sources.every((source, at) => source === sources[at])) return known.whole as T;
	const whole = rebuilt(entry, index, held);
	rebuiltEntries.set(entry, { whole, sources });
	return whole;
}

const listingKey = (round: unknown, listHash: unknown) => `${String(round)} ${String(listHash)}`;

const placeOf = (entry: TraceEntry, index: number) =>
	`Trace entry ${index + 1} (${entry.step}, round ${entry.round ?? 0})`;

/**
 * The compacted parts of a model.request and their references, checked for the shape they were
 * written in: an entry edited on the way fails to read, naming itself.
 */
function referencesOf(entry: TraceEntry, index: number): Array<[string, PartReference]> {
	const { payload, compacted } = entry;
	if (!Array.isArray(compacted))
		throw new TraceRebuildError(
			`${placeOf(entry, index)} is compact (it keeps the sha256 of the body sent), but it lost the list of the parts it refers to ("compacted")`,
		);
	const references = isRecord(payload)
		? compacted.map((key) => [String(key), payload[String(key)]] as const)
		: [];
	const wellFormed =
		isRecord(payload) &&
		references.every(
			([, reference]) =>
				isRecord(reference) &&
				typeof reference.sameAsRound === 'number' &&
				(reference.first === undefined || typeof reference.first === 'number') &&
				(reference.then === undefined || Array.isArray(reference.then)),
		);
	if (!wellFormed)
		throw new TraceRebuildError(
			`${placeOf(entry, index)} is compact, but its payload no longer holds the references it was written with (${compacted.join(', ')})`,
		);
	return references as Array<[string, PartReference]>;
}

function rebuilt<T extends TraceEntry>(entry: T, index: number, held: Held): T {
	const { requests, listings } = held;
	const where = placeOf(entry, index);
	if (entry.payloadSameAsRound !== undefined) {
		const { payloadSameAsRound: round, payloadSha256, ...rest } = entry;
		const listed = listings.get(listingKey(round, entry.listHash));
		if (listed === undefined)
			throw new TraceRebuildError(
				`${where} lists the same tools as the tools.list of round ${String(round)}, which the trace does not hold`,
			);
		// Traces written before the hash was kept have none to check.
		if (payloadSha256 !== undefined && sha256(jsonText(listed) ?? '') !== payloadSha256)
			throw new TraceRebuildError(
				`${where} did not rebuild into the tools that were listed (its sha256 differs): the listing it refers to was changed`,
			);
		return { ...rest, payload: listed } as T;
	}
	const { compacted: _compacted, payloadSha256, ...rest } = entry;
	const payload = { ...(entry.payload as Record<string, unknown>) };
	for (const [key, reference] of referencesOf(entry, index)) {
		const earlier = requests.get(requestKey(entry.dialect, reference.sameAsRound))?.[key];
		if (earlier === undefined || (reference.first !== undefined && !Array.isArray(earlier)))
			throw new TraceRebuildError(
				`${where} refers to the "${key}" of the model.request of round ${reference.sameAsRound}, which the trace does not hold`,
			);
		payload[key] =
			reference.first === undefined
				? earlier
				: [...(earlier as unknown[]).slice(0, reference.first), ...(reference.then ?? [])];
	}
	if (sha256(jsonText(payload) ?? '') !== payloadSha256)
		throw new TraceRebuildError(
			`${where} did not rebuild into the body that was sent (its sha256 differs): the requests it refers to were changed`,
		);
	return { ...rest, payload } as T;
}

function lastRequest(
	entries: readonly TraceEntry[],
	dialect: unknown,
): { round: number; payload: Record<string, unknown> } | undefined {
	const entry = entries.findLast(
		(candidate) =>
			candidate.step === 'model.request' &&
			candidate.dialect === dialect &&
			isRecord(candidate.payload),
	);
	return entry && { round: entry.round ?? 0, payload: entry.payload as Record<string, unknown> };
}

/** A reference to the earlier request's part, when it holds all of this one or a list's first items. */
function referenceTo(value: unknown, earlier: unknown, round: number): PartReference | undefined {
	if (earlier === undefined) return undefined;
	const text = jsonText(value) ?? '';
	if (text.length < WORTH_REFERRING_CHARACTERS) return undefined;
	if (text === jsonText(earlier)) return { sameAsRound: round };
	if (!Array.isArray(value) || !Array.isArray(earlier) || earlier.length > value.length)
		return undefined;
	// Items compared as the exact JSON they are sent as, so that the rebuilt body is the same bytes.
	const first = earlier.findIndex((item, at) => jsonText(item) !== jsonText(value[at]));
	const shared = first === -1 ? earlier.length : first;
	if (shared === 0) return undefined;
	return { sameAsRound: round, first: shared, then: value.slice(shared) };
}
