import { ByteEnds } from './byteEnds';

/**
 * One event of an SSE stream as it went by: its type, its id, the size of its data and the data's
 * two ends, where a JSON-RPC id sits. Read as the SDK's parser (eventsource-parser) reads it: the
 * type and id hold for one event, and an event without data lines is no event.
 */
export interface SseEvent {
	/** Its `event` field; empty when it named none (a `message`). */
	type: string;
	/** Its `id` field; empty when it gave none. */
	id: string;
	/** The size of its data: the values of its `data` lines, joined by line feeds. */
	bytes: number;
	/** The data's first and last bytes. */
	head: string;
	tail: string;
	/** Larger than the limit: its bytes were passed on no further than where it passed the limit. */
	cut: boolean;
}

export interface SseEventEvents {
	/** Passes bytes on, as they came. */
	pass(bytes: Uint8Array): void;
	/** An event passed the limit (what came of it so far); false stops reading the stream there. */
	cut(event: SseEvent): boolean;
	/** An event ended (a cut one too, once its last byte was counted). */
	ended(event: SseEvent): void;
}

const LF = 0x0a;
const CR = 0x0d;
/** Ends a line cut short, and its event: the reader drops what it got of it. */
const EVENT_END = new Uint8Array([LF, LF]);

/** The line being read: its size and its two ends. */
class Line extends ByteEnds {
	/** Its field and where its value starts (after the colon and one space), as SSE reads a line. */
	field(first: boolean): { name: string; valueAt: number } {
		// Latin-1 keeps one character a byte. The SDK drops a byte-order mark before the first line.
		const skipped = first && this.head.toString('latin1', 0, 3) === '\xef\xbb\xbf' ? 3 : 0;
		const text = this.head.toString('latin1', skipped);
		const colon = text.indexOf(':');
		if (colon === -1) return { name: text, valueAt: this.bytes };
		const space = text.charCodeAt(colon + 1) === 0x20 ? 1 : 0;
		return { name: text.slice(0, colon), valueAt: skipped + colon + 1 + space };
	}
}

const JOINT = Buffer.from('\n');

/** The event being read, as its lines ended. */
class PendingEvent {
	type = '';
	id = '';
	dataLines = 0;
	/** Its data: the values of its data lines, joined by line feeds. */
	data = new ByteEnds();
	cut = false;

	addData(line: Line, valueAt: number): void {
		if (this.dataLines > 0) this.data.add(JOINT);
		this.data.append(line.from(valueAt));
		this.dataLines++;
	}

	seen(): SseEvent {
		return { type: this.type, id: this.id, ...this.data.text(), cut: this.cut };
	}
}

/**
 * Passes an SSE stream's bytes on as they arrive and tells of each event as it ends. Lines end at
 * CR, LF or CRLF, as SSE has it. An event whose data (or one of whose lines) passes `maxBytes()`
 * is counted, not passed on nor held, as LineReader does for stdio: a server that sends 5 GB, on
 * one endless line or on many, costs no memory.
 */
export class SseEvents {
	private line = new Line();
	private event = new PendingEvent();
	private firstLine = true;
	/**
	 * The last chunk ended in a CR: its line ends with the next chunk (a LF that starts it is part
	 * of that end). The SDK's parser holds such a CR so, and never ends the line if the stream ends.
	 */
	private pendingCr = false;

	constructor(
		private readonly maxBytes: () => number,
		private readonly events: SseEventEvents,
	) {}

	/** False when the stream is to be read no further. */
	push(chunk: Uint8Array): boolean {
		const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		let start = 0;
		if (this.pendingCr && buffer.length > 0) {
			this.pendingCr = false;
			if (buffer[0] === LF) {
				if (!this.event.cut) this.events.pass(buffer.subarray(0, 1));
				start = 1;
			}
			this.lineEnded();
		}
		let nextLf = -2;
		let nextCr = -2;
		while (start < buffer.length) {
			if (nextLf !== -1 && nextLf < start) nextLf = buffer.indexOf(LF, start);
			if (nextCr !== -1 && nextCr < start) nextCr = buffer.indexOf(CR, start);
			const lineEnd = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextLf, nextCr);
			const crlf = lineEnd === nextCr && buffer[lineEnd + 1] === LF;
			const end = lineEnd === -1 ? buffer.length : lineEnd + (crlf ? 2 : 1);
			const wasCut = this.event.cut;
			this.line.add(buffer.subarray(start, lineEnd === -1 ? end : lineEnd));
			if (!wasCut && this.event.data.bytes + this.line.bytes > this.maxBytes()) {
				this.event.cut = true;
				this.events.pass(EVENT_END);
				if (!this.events.cut(this.eventSoFar())) return false;
			} else if (!wasCut) this.events.pass(buffer.subarray(start, end));
			if (lineEnd === buffer.length - 1 && lineEnd === nextCr) this.pendingCr = true;
			else if (lineEnd !== -1) this.lineEnded();
			start = end;
		}
		return true;
	}

	/** The event as it would end with the line being read. */
	private eventSoFar(): SseEvent {
		const { name, valueAt } = this.line.field(this.firstLine);
		const seen = this.event.seen();
		if (name !== 'data') return seen;
		const value = this.line.from(valueAt);
		return {
			...seen,
			bytes: seen.bytes + value.bytes,
			head: seen.head || value.head.toString('utf8'),
		};
	}

	private lineEnded(): void {
		const { line, event } = this;
		this.line = new Line();
		const first = this.firstLine;
		this.firstLine = false;
		if (line.bytes === 0 || (first && line.bytes === 3 && line.field(true).name === '')) {
			if (event.dataLines > 0) this.events.ended(event.seen());
			this.event = new PendingEvent();
			return;
		}
		const { name, valueAt } = line.field(first);
		const value = () => line.from(valueAt).head.toString('utf8');
		if (name === 'data') event.addData(line, valueAt);
		else if (name === 'event') event.type = value();
		else if (name === 'id' && !value().includes('\0')) event.id = value();
	}
}
