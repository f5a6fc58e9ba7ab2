import type { HttpResponse } from './http';

/**
 * The data of each streamed event, as text: Server-Sent Events (`data:` lines up to a blank line;
 * OpenAI's closing `[DONE]` ends the stream, whether or not the server then closes it) or
 * newline-delimited JSON (Ollama).
 * Comments, `event:` and `id:` lines carry nothing the dialects need: every vendor repeats the
 * event type inside the data.
 */
const DONE = Symbol('[DONE]');

export async function* streamedEvents(
	body: HttpResponse['body'],
	framing: 'sse' | 'ndjson',
): AsyncGenerator<string> {
	const decoder = new TextDecoder();
	let buffered = '';
	/** The text read so far ended in a CR, held back as it may be half of a CRLF. */
	let heldCr = false;
	let data: string[] = [];
	const lineEvent = (line: string): string | typeof DONE | undefined => {
		if (framing === 'ndjson') return line.trim() === '' ? undefined : line;
		if (line === '') {
			const event = data.join('\n');
			data = [];
			return event === '[DONE]' ? DONE : event === '' ? undefined : event;
		}
		if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
		return undefined;
	};
	for await (const piece of body) {
		const text = typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true });
		buffered += text;
		// A piece with no line end ends no line (unless a CR held back ends one): a long line is
		// split once, not read again at every piece.
		if (!heldCr && !/[\r\n]/.test(text)) continue;
		// A closing \r may be half of a \r\n whose \n is in the next piece: it waits, or the \n would read as a blank line.
		heldCr = buffered.endsWith('\r');
		const lines = (heldCr ? buffered.slice(0, -1) : buffered).split(/\r\n|\r|\n/);
		// The last piece may be half a line; it waits for the rest.
		buffered = (lines.pop() ?? '') + (heldCr ? '\r' : '');
		for (const line of lines) {
			const event = lineEvent(line);
			if (event === DONE) return;
			if (event !== undefined) yield event;
		}
	}
	for (const line of [...(buffered + decoder.decode()).split(/\r\n|\r|\n/), '']) {
		const event = lineEvent(line);
		if (event === DONE) return;
		if (event !== undefined) yield event;
	}
}
