import { describeType } from '../conversation/read';
import type { TraceEntry } from '../conversation/types';
import { excerpt, isRecord } from '../json/value';
import { expandTrace, TraceRebuildError } from './compact';
import { JsonLinesError, parseJsonLines } from './jsonl';

/** A trace entry with the keys of docs/trace.md that comparing and exporting read. */
export interface RecordedEntry extends TraceEntry {
	/** The model turn the step belongs to; 0 before the first. */
	round?: number;
	payload?: unknown;
	/** Why the payload was left out. */
	payloadOmitted?: string;
}

/** What a user handed in is not a trace; the message says what was expected. */
export class TraceReadError extends Error {}

const EXPECTED =
	'an item\'s json with a "trace" list, a list of trace entries, or JSON Lines with one entry per line';

/**
 * A trace file's text: UTF-16 when it starts with a UTF-16 byte order mark (what Windows
 * PowerShell 5's `>` writes), else UTF-8. The mark stays for the trace reader to drop.
 */
export function traceFileText(bytes: Buffer): string {
	if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.toString('utf16le');
	if (bytes[0] === 0xfe && bytes[1] === 0xff)
		return Buffer.from(bytes.subarray(0, bytes.length & ~1))
			.swap16()
			.toString('utf16le');
	return bytes.toString('utf8');
}

/**
 * A trace from what users have: an item's json (`{ trace: [...] }`), a list of entries, or the
 * text of a JSON file or of the JSON Lines export; compact entries come back whole.
 */
export function readTrace(source: unknown): RecordedEntry[] {
	const entries = typeof source === 'string' ? readTraceText(source) : readTraceValue(source);
	try {
		return expandTrace(entries);
	} catch (error) {
		if (error instanceof TraceRebuildError) throw new TraceReadError(error.message);
		throw error;
	}
}

function readTraceText(withMark: string): RecordedEntry[] {
	// Editors on Windows (and PowerShell 5) save UTF-8 with a byte order mark.
	const text = withMark.startsWith('\uFEFF') ? withMark.slice(1) : withMark;
	if (text.trim() === '') throw new TraceReadError(`The text is empty; expected ${EXPECTED}`);
	let documentError: Error;
	try {
		return readTraceValue(JSON.parse(text));
	} catch (error) {
		if (error instanceof TraceReadError) throw error;
		documentError = error as Error;
	}
	try {
		return checkEntries(parseJsonLines(text));
	} catch (error) {
		// A first line that is no JSON either means a broken JSON document, not broken JSON Lines.
		if (error instanceof JsonLinesError && error.line > 1)
			throw new TraceReadError(`Not JSON Lines: ${error.message}`);
		if (error instanceof JsonLinesError)
			throw new TraceReadError(`Not JSON: ${documentError.message}`);
		throw error;
	}
}

function readTraceValue(value: unknown): RecordedEntry[] {
	if (Array.isArray(value)) return checkEntries(value);
	if (isRecord(value) && 'trace' in value) {
		if (!Array.isArray(value.trace))
			throw new TraceReadError(
				`The item's "trace" must be a list, but it is ${describeType(value.trace)}`,
			);
		return checkEntries(value.trace);
	}
	// JSON Lines of a single entry is also a JSON document.
	if (isEntry(value)) return checkEntries([value]);
	throw new TraceReadError(`Not a trace: expected ${EXPECTED}, got ${excerpt(value)}`);
}

function checkEntries(values: readonly unknown[]): RecordedEntry[] {
	for (const [index, value] of values.entries()) {
		if (!isEntry(value))
			throw new TraceReadError(`Trace entry ${index + 1} has no "step": ${excerpt(value)}`);
		const { round } = value;
		if (round !== undefined && !(Number.isInteger(round) && (round as number) >= 0)) {
			throw new TraceReadError(
				`Trace entry ${index + 1} (${value.step}) has a "round" that is not a whole number: ${excerpt(round)}`,
			);
		}
	}
	return values as RecordedEntry[];
}

function isEntry(value: unknown): value is Record<string, unknown> & { step: string } {
	return isRecord(value) && typeof value.step === 'string' && value.step !== '';
}
