/** What is kept of a line too long to hold: its size and its two ends, where a JSON-RPC id sits. */
export interface SkippedLine {
	bytes: number;
	head: string;
	tail: string;
}

/** How much of each end of a line is kept. */
export const END_BYTES = 256;
const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines. A line longer than `maxBytes()` is counted, not kept, so a
 * server that writes 50 MB (or never ends its line) costs no memory; the stream goes on with the
 * next line.
 */
export class LineReader {
	private chunks: Buffer[] = [];
	private length = 0;
	private skipped?: { bytes: number; head: Buffer; tail: Buffer };

	constructor(
		private readonly maxBytes: () => number,
		private readonly onLine: (line: string) => void,
		private readonly onSkipped: (line: SkippedLine) => void,
	) {}

	push(chunk: Buffer): void {
		let start = 0;
		for (;;) {
			const newline = chunk.indexOf(NEWLINE, start);
			this.take(newline === -1 ? chunk.subarray(start) : chunk.subarray(start, newline));
			if (newline === -1) return;
			this.endLine();
			start = newline + 1;
		}
	}

	private take(piece: Buffer): void {
		if (piece.length === 0) return;
		if (this.skipped) {
			this.skipped.bytes += piece.length;
			this.skipped.tail = lastBytes([this.skipped.tail, piece]);
			return;
		}
		if (this.length + piece.length <= this.maxBytes()) {
			this.chunks.push(piece);
			this.length += piece.length;
			return;
		}
		const held = [...this.chunks, piece];
		this.skipped = {
			bytes: this.length + piece.length,
			head: firstBytes(held),
			tail: lastBytes(held),
		};
		this.chunks = [];
		this.length = 0;
	}

	private endLine(): void {
		if (this.skipped) {
			const { bytes, head, tail } = this.skipped;
			this.skipped = undefined;
			this.onSkipped({ bytes, head: head.toString('utf8'), tail: tail.toString('utf8') });
			return;
		}
		const line = Buffer.concat(this.chunks, this.length).toString('utf8').replace(/\r$/, '');
		this.chunks = [];
		this.length = 0;
		if (line.trim() !== '') this.onLine(line);
	}
}

/** The first END_BYTES of the pieces, copied: the pieces themselves are let go. */
export function firstBytes(pieces: Buffer[]): Buffer {
	const kept: Buffer[] = [];
	let length = 0;
	for (const piece of pieces) {
		if (length >= END_BYTES) break;
		kept.push(piece.subarray(0, END_BYTES - length));
		length += kept.at(-1)!.length;
	}
	return Buffer.concat(kept, length);
}

/** The last END_BYTES of the pieces, copied. */
export function lastBytes(pieces: Buffer[]): Buffer {
	const kept: Buffer[] = [];
	let length = 0;
	for (let index = pieces.length - 1; index >= 0 && length < END_BYTES; index--) {
		const piece = pieces[index];
		kept.unshift(piece.subarray(Math.max(0, piece.length - (END_BYTES - length))));
		length += kept[0].length;
	}
	return Buffer.concat(kept, length);
}
