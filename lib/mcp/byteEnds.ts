/** How much of each end of a run of bytes is kept. */
const END_BYTES = 256;
const NONE = Buffer.alloc(0);

/** A run of bytes as far as its ends keep it: the whole run when it is no longer than END_BYTES. */
export interface ByteRun {
	bytes: number;
	head: Buffer;
	tail: Buffer;
}

/** What is kept of a run of bytes, as text: its size and its two ends, where a JSON-RPC id sits. */
export interface RunEnds {
	bytes: number;
	head: string;
	tail: string;
}

/**
 * The size of a run of bytes passed on (or let go) as it comes, and copies of its first and last
 * END_BYTES: a line or an event of any length costs at most twice END_BYTES to watch.
 */
export class ByteEnds implements ByteRun {
	bytes = 0;
	head: Buffer = NONE;
	tail: Buffer = NONE;

	/** Adds the run's next bytes. */
	add(piece: Buffer): void {
		this.append({ bytes: piece.length, head: piece, tail: piece });
	}

	/** Adds a run of which only the ends are known. */
	append(run: ByteRun): void {
		this.bytes += run.bytes;
		if (this.head.length < END_BYTES) this.head = firstBytes([this.head, run.head]);
		this.tail = lastBytes([this.tail, run.tail]);
	}

	/** The run from byte `at` on, as far as its ends keep it. */
	from(at: number): ByteRun {
		const head = this.head.subarray(Math.min(at, this.head.length));
		const bytes = Math.max(0, this.bytes - at);
		if (this.bytes <= this.head.length) return { bytes, head, tail: head };
		return { bytes, head, tail: this.tail.subarray(Math.max(0, this.tail.length - bytes)) };
	}

	text(): RunEnds {
		return {
			bytes: this.bytes,
			head: this.head.toString('utf8'),
			tail: this.tail.toString('utf8'),
		};
	}
}

/** The first END_BYTES of the pieces, copied: the pieces themselves are let go. */
function firstBytes(pieces: Buffer[]): Buffer {
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
function lastBytes(pieces: Buffer[]): Buffer {
	const kept: Buffer[] = [];
	let length = 0;
	for (let index = pieces.length - 1; index >= 0 && length < END_BYTES; index--) {
		const piece = pieces[index];
		kept.unshift(piece.subarray(Math.max(0, piece.length - (END_BYTES - length))));
		length += kept[0].length;
	}
	return Buffer.concat(kept, length);
}
