import { END_BYTES, firstBytes, lastBytes } from './lineReader';

/** One line of an SSE stream as it went by: its size and its two ends, where a JSON-RPC id sits. */
export interface SseLine {
	/** The field (`data`, `id`, `event`, …; empty for a comment or a blank line) and the start of its value. */
	field: string;
	value: string;
	bytes: number;
	/** The line's last bytes. */
	tail: string;
	/** Longer than the limit: its bytes were passed on no further than where it passed the limit. */
	cut: boolean;
}

export interface SseLineEvents {
	/** Passes bytes on, as they came. */
	pass(bytes: Uint8Array): void;
	/** A line passed the limit; false stops reading the stream there. */
	cut(line: SseLine): boolean;
	/** A line ended (a cut one too, once its last byte was counted). */
	ended(line: SseLine): void;
}

const NEWLINE = 0x0a;
/** Ends a line cut short, and its event: the reader drops what it got of it. */
const EVENT_END = new Uint8Array([NEWLINE, NEWLINE]);

/**
 * Passes an SSE stream's bytes on as they arrive and tells of each line as it ends. A line longer
 * than `maxBytes()` is counted, not passed on nor held, as LineReader does for stdio: a server that
 * sends 5 GB, or one endless line, costs no memory.
 */
export class SseLines {
	private bytes = 0;
	private head: Buffer = Buffer.alloc(0);
	private tail: Buffer = Buffer.alloc(0);
	private cut = false;

	constructor(
		private readonly maxBytes: () => number,
		private readonly events: SseLineEvents,
	) {}

	/** False when the stream is to be read no further. */
	push(chunk: Uint8Array): boolean {
		const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		let start = 0;
		while (start < buffer.length) {
			const newline = buffer.indexOf(NEWLINE, start);
			const end = newline === -1 ? buffer.length : newline + 1;
			const piece = buffer.subarray(start, newline === -1 ? end : newline);
			const wasCut = this.cut;
			this.note(piece);
			if (!wasCut && this.bytes > this.maxBytes()) {
				this.cut = true;
				this.events.pass(EVENT_END);
				if (!this.events.cut(this.line())) return false;
			} else if (!this.cut) this.events.pass(buffer.subarray(start, end));
			if (newline !== -1) {
				this.events.ended(this.line());
				this.bytes = 0;
				this.head = this.tail = Buffer.alloc(0);
				this.cut = false;
			}
			start = end;
		}
		return true;
	}

	private note(piece: Buffer): void {
		this.bytes += piece.length;
		if (this.head.length < END_BYTES) this.head = firstBytes([this.head, piece]);
		this.tail = lastBytes([this.tail, piece]);
	}

	private line(): SseLine {
		const text = this.head.toString('utf8');
		const colon = text.indexOf(':');
		const field = colon === -1 ? text.replace(/\r$/, '') : text.slice(0, colon);
		const value = colon === -1 ? '' : text.slice(colon + 1).replace(/^ /, '');
		return { field, value, bytes: this.bytes, tail: this.tail.toString('utf8'), cut: this.cut };
	}
}
