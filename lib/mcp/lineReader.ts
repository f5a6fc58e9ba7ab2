import { ByteEnds, type RunEnds } from './byteEnds';

/** What is kept of a line too long to hold: its size and its two ends. */
export type SkippedLine = RunEnds;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines. A line longer than `maxBytes()` is counted, not kept, so a
 * server that writes 50 MB (or never ends its line) costs no memory; the stream goes on with the
 * next line.
 */
export class LineReader {
	private chunks: Buffer[] = [];
	private length = 0;
	private skipped?: ByteEnds;

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
			this.skipped.add(piece);
			return;
		}
		if (this.length + piece.length <= this.maxBytes()) {
			this.chunks.push(piece);
			this.length += piece.length;
			return;
		}
		this.skipped = new ByteEnds();
		for (const held of [...this.chunks, piece]) this.skipped.add(held);
		this.chunks = [];
		this.length = 0;
	}

	private endLine(): void {
		if (this.skipped) {
			const skipped = this.skipped.text();
			this.skipped = undefined;
			this.onSkipped(skipped);
			return;
		}
		const line = Buffer.concat(this.chunks, this.length).toString('utf8').replace(/\r$/, '');
		this.chunks = [];
		this.length = 0;
		if (line.trim() !== '') this.onLine(line);
	}
}
