import { excerpt, isRecord } from '../../json/value';
import type { StreamAssembler } from '../types';
import type { OllamaChatResponse, OllamaToolCall } from './wire';

/**
 * Assembles Ollama's NDJSON lines into the body a non-streamed call returns, the way Ollama builds
 * that body itself: text and thinking pieces joined, whole calls collected from every line, the
 * rest (done_reason, counts) from the last line.
 */
export function createOllamaStreamAssembler(): StreamAssembler<
	OllamaChatResponse,
	OllamaChatResponse
> {
	let last: OllamaChatResponse | undefined;
	let content = '';
	let thinking = '';
	const toolCalls: OllamaToolCall[] = [];
	let error: unknown;
	let done = false;

	return {
		push(line) {
			if (!isRecord(line)) {
				error ??= `not a JSON object: ${excerpt(line)}`;
				return '';
			}
			// An error line can arrive after the stream started (the HTTP status is already 200).
			if (line.error !== undefined) {
				error ??= line.error;
				return '';
			}
			last = line;
			if (line.done === true) done = true;
			const message = isRecord(line.message) ? line.message : {};
			if (typeof message.content === 'string') content += message.content;
			if (typeof message.thinking === 'string') thinking += message.thinking;
			if (Array.isArray(message.tool_calls)) toolCalls.push(...message.tool_calls);
			return typeof message.content === 'string' ? message.content : '';
		},
		// The last line says done:true and carries done_reason; a stream without it was cut short.
		finished: () => done,
		result() {
			const body: OllamaChatResponse = { ...last };
			if (last) {
				body.message = {
					role: 'assistant',
					content,
					...(thinking !== '' && { thinking }),
					...(toolCalls.length > 0 && { tool_calls: toolCalls }),
				};
			}
			if (error !== undefined) body.error = error;
			return body;
		},
	};
}
