/** Reading what the model API stand-ins send as a plain client would: fetch, SSE frames, NDJSON lines. */

export interface SseEvent {
	event?: string;
	data: any;
}

/** Splits an SSE body into its events; `separator` is the blank line the vendor ends frames with. */
export function sseEvents(body: string, separator = '\n\n'): SseEvent[] {
	expect(body.endsWith(separator)).toBe(true);
	return body
		.split(separator)
		.slice(0, -1)
		.map((frame) => {
			const lines = frame.split(/\r?\n/);
			const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length);
			const data = lines.find((l) => l.startsWith('data: '));
			expect(lines).toHaveLength(event === undefined ? 1 : 2);
			return {
				...(event === undefined ? {} : { event }),
				data: JSON.parse(data!.slice('data: '.length)),
			};
		});
}

export function ndjsonLines(body: string): any[] {
	expect(body.endsWith('\n')).toBe(true);
	return body
		.slice(0, -1)
		.split('\n')
		.map((line) => JSON.parse(line));
}

export function post(
	url: string,
	body: unknown,
	headers: Record<string, string> = {},
): Promise<Response> {
	return fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

/** Calls every vendor can carry: arguments that are JSON objects, one with escapes and emoji. */
export const scriptedCalls = [
	{ name: 'get_weather', arguments: '{"city":"Paris"}' },
	{ name: 'search', arguments: '{"q":"say \\"Café\\" 😀","limit":3}' },
];

/** The parsed JSON body, loosely typed for assertions. */
export const json = (response: Response): Promise<any> => response.json();
