/**
 * The one HTTP call the model layer needs, as a function the caller supplies. In n8n it is n8n's own
 * HTTP helper (nodes/shared/modelHttp.ts), so model calls take n8n's outbound path: its proxy
 * settings, egress policy and tracing headers. This layer never imports n8n.
 */
export interface HttpRequest {
	method: 'GET' | 'POST';
	url: string;
	headers: Record<string, string>;
	body?: string;
	/** Aborted by the caller's own timer (per attempt, idle time while streaming) or a cancel. */
	signal: AbortSignal;
}

export interface HttpResponse {
	status: number;
	/** Lower-case names; a repeated header may come as an array. */
	headers: Record<string, string | string[] | undefined>;
	/** Read as it arrives, so streamed answers are parsed while the model still writes. */
	body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;
}

export type HttpSend = (request: HttpRequest) => Promise<HttpResponse>;

export function headerOf(response: HttpResponse, name: string): string | undefined {
	const value = response.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

export async function readText(body: HttpResponse['body']): Promise<string> {
	const decoder = new TextDecoder();
	let text = '';
	for await (const piece of body)
		text += typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true });
	return text + decoder.decode();
}

/** JSON when it parses, else the text itself: error bodies are not always JSON. */
export function parseBody(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
