import { StringDecoder } from 'node:string_decoder';

/**
 * Keeps the last lines a stdio server wrote to stderr: they explain most crashes. A server may
 * print the secrets it was given, so the tail is redacted before it is cut: a cut first could keep
 * half a secret that redaction no longer recognises.
 */
export class StderrTail {
	private text = '';
	private cut = false;
	// A character split across two chunks is decoded whole: a secret holding it stays recognisable.
	private readonly decoder = new StringDecoder('utf8');

	constructor(
		private readonly redact: (text: string) => string = (text) => text,
		private readonly maxChars = 2000,
	) {}

	append(chunk: Buffer | string): void {
		const text = this.text + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
		// Room for what redaction removes, so the tail still holds maxChars afterwards.
		const window = this.maxChars * 8;
		this.cut ||= text.length > window;
		this.text = text.slice(-window);
	}

	/** The tail, redacted, trimmed; empty when the server wrote nothing. */
	read(): string {
		let text = this.text;
		if (this.cut) {
			// The window may start inside a secret: its first line (or half, without one) goes.
			const newline = text.indexOf('\n');
			text = text.slice(newline === -1 ? Math.floor(text.length / 2) : newline + 1);
		}
		return this.redact(text).slice(-this.maxChars).trim();
	}
}
