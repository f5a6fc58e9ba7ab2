/** JSON Lines, the trace's export format: one entry per line, in order, each line ending in a newline. */
export function toJsonLines(trace: readonly unknown[]): string {
	return trace.map((entry) => `${JSON.stringify(entry)}\n`).join('');
}

/** A line of JSON Lines text that is not JSON; `line` counts from 1. */
export class JsonLinesError extends Error {
	constructor(
		readonly line: number,
		reason: string,
	) {
		super(`Line ${line} is not JSON: ${reason}`);
	}
}

/** The values of JSON Lines text, blank lines skipped. */
export function parseJsonLines(text: string): unknown[] {
	const values: unknown[] = [];
	for (const [index, line] of text.split(/\r?\n/).entries()) {
		if (line.trim() === '') continue;
		try {
			values.push(JSON.parse(line));
		} catch (error) {
			throw new JsonLinesError(index + 1, (error as Error).message);
		}
	}
	return values;
}
