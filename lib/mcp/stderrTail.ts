/** Keeps the last lines a stdio server wrote to stderr: they explain most crashes. */
export class StderrTail {
	private text = '';

	constructor(private readonly maxChars = 2000) {}

	append(chunk: Buffer | string): void {
		this.text = (this.text + chunk.toString()).slice(-this.maxChars);
	}

	/** The tail, trimmed; empty when the server wrote nothing. */
	read(): string {
		return this.text.trim();
	}
}
