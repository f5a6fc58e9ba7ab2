import { outboundRequest, type EgressFilter } from '../http/outbound';
import { ModelApiError } from './errors';

/**
 * The one HTTP call the model layer needs, as a function the caller supplies: `outboundSend` at run
 * time, n8n's request helper where n8n offers nothing else (credential tests). This layer never
 * imports n8n.
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

/**
 * Model calls on connections kept alive per API host (one TLS handshake, not one per turn: n8n's
 * request helper opens a new connection for every request), through the outbound path of the MCP
 * layer: the environment's proxy variables, as n8n reads them, and the host's egress policy
 * (n8n's SSRF protection) checked for every URL and redirect.
 */
export function outboundSend(egress?: EgressFilter): HttpSend {
	const send = outboundRequest({ egress });
	return ({ url, ...request }) => send(url, request);
}

/** No model answer comes near this: a larger body is another server's, or a broken one. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** The response with its body cut off, failing the call, once it passes `maxBytes`. */
export function withCappedBody(response: HttpResponse, maxBytes = MAX_ANSWER_BYTES): HttpResponse {
	return { ...response, body: capped(response.body, maxBytes) };
}

async function* capped(
	body: HttpResponse['body'],
	maxBytes: number,
): AsyncGenerator<Uint8Array | string> {
	let bytes = 0;
	for await (const piece of body) {
		bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
		if (bytes > maxBytes)
			throw new ModelApiError(
				`The model API's answer passed ${maxBytes / 1024 / 1024} MB, more than any model answer, and was not read further: check the base URL`,
				'invalidResponse',
			);
		yield piece;
	}
}

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
