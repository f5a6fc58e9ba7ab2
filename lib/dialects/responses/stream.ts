import { isRecord } from '../../json/value';
import type { StreamAssembler } from '../types';
import type { ResponsesResponse, ResponsesStreamEvent } from './wire';

type Json = Record<string, unknown>;

/** The events that end a turn; `error` may come alone, without the `response.failed` after it. */
const END_EVENTS = new Set([
	'response.completed',
	'response.incomplete',
	'response.failed',
	'error',
]);

/**
 * Assembles Responses stream events into the body a non-streamed call returns, so both paths go
 * through parseResponsesResponse. The output is built from the item events (added, then text and
 * argument deltas, then done with the vendor's final form of the item); the lifecycle events
 * (created, in_progress, then completed, incomplete or failed) give status, usage and
 * incomplete_details. Events we do not use (reasoning summary deltas: the done item holds them) are ignored.
 */
export function createResponsesStreamAssembler(): StreamAssembler<
	ResponsesStreamEvent,
	ResponsesResponse
> {
	let response: Json | undefined;
	const output: Json[] = [];
	let error: unknown;
	let ended = false;
	/** The message item whose text was streamed last: the next one's starts a new paragraph. */
	let textItem: number | undefined;

	// Item events name their item by output_index; the item id is the fallback for servers without it.
	// Servers with neither send one item at a time: output_item.added opens the next, the rest are
	// about the last one.
	function indexOf(event: Json): number {
		if (typeof event.output_index === 'number') return event.output_index;
		const id = event.item_id ?? (isRecord(event.item) ? event.item.id : undefined);
		if (typeof id !== 'string' || id === '')
			return event.type === 'response.output_item.added' ? output.length : lastIndex();
		const found = output.findIndex((item) => item !== undefined && item.id === id);
		return found >= 0 ? found : output.length;
	}

	function lastIndex(): number {
		return Math.max(output.length - 1, 0);
	}

	function itemOf(event: Json): Json | undefined {
		return output[indexOf(event)];
	}

	function contentOf(event: Json): Json[] | undefined {
		const item = itemOf(event);
		if (!item) return undefined;
		if (!Array.isArray(item.content)) item.content = [];
		return item.content as Json[];
	}

	/** The content part a text or refusal event writes to, made when its content_part.added was not seen. */
	function partOf(event: Json, type: 'output_text' | 'refusal'): Json | undefined {
		const content = contentOf(event);
		if (!content) return undefined;
		const index = contentIndex(event);
		content[index] ??= type === 'output_text' ? { type, text: '' } : { type, refusal: '' };
		return content[index];
	}

	function append(target: Json | undefined, key: string, delta: unknown): void {
		if (target && typeof delta === 'string')
			target[key] = (typeof target[key] === 'string' ? target[key] : '') + delta;
	}

	function replace(target: Json | undefined, key: string, value: unknown): void {
		if (target && typeof value === 'string') target[key] = value;
	}

	/** A text or refusal delta as the answer shows it: messages are read as paragraphs (see readOutput). */
	function answerText(event: Json): string {
		if (typeof event.delta !== 'string' || event.delta === '') return '';
		const index = indexOf(event);
		if (output[index]?.type !== 'message') return '';
		const paragraph = textItem !== undefined && textItem !== index ? '\n\n' : '';
		textItem = index;
		return paragraph + event.delta;
	}

	return {
		push(event) {
			// A malformed event (data: null) carries nothing; the rest of the stream is read.
			if (!isRecord(event)) return '';
			if (isRecord(event.response)) response = event.response;
			if (END_EVENTS.has(String(event.type))) ended = true;
			switch (event.type) {
				case 'error':
					// OpenAI nests the error ({error:{message,code}}); the SDK types put it at the top.
					error = isRecord(event.error)
						? event.error
						: { message: event.message, code: event.code };
					break;
				// Added opens the item, done brings the vendor's final form of it. Copies: deltas are written
				// into them, and the caller's events stay as they came.
				case 'response.output_item.added':
					if (isRecord(event.item)) output[indexOf(event)] = structuredClone(event.item);
					break;
				// A done item that leaves out a field (arguments, say) keeps what was streamed for it.
				case 'response.output_item.done':
					if (isRecord(event.item)) {
						const index = indexOf(event);
						output[index] = { ...output[index], ...structuredClone(event.item) };
					}
					break;
				case 'response.content_part.added': {
					const content = contentOf(event);
					if (content && isRecord(event.part))
						content[contentIndex(event)] = structuredClone(event.part);
					break;
				}
				case 'response.output_text.delta':
					append(partOf(event, 'output_text'), 'text', event.delta);
					return answerText(event);
				case 'response.output_text.done':
					replace(partOf(event, 'output_text'), 'text', event.text);
					break;
				case 'response.refusal.delta':
					append(partOf(event, 'refusal'), 'refusal', event.delta);
					return answerText(event);
				case 'response.refusal.done':
					replace(partOf(event, 'refusal'), 'refusal', event.refusal);
					break;
				case 'response.function_call_arguments.delta':
					append(itemOf(event), 'arguments', event.delta);
					break;
				case 'response.function_call_arguments.done':
					replace(itemOf(event), 'arguments', event.arguments);
					break;
			}
			return '';
		},
		finished: () => ended,
		result() {
			const items = output.filter(isRecord);
			return {
				...response,
				// Servers that send only the lifecycle events still give the output in the last one.
				...(items.length > 0 && { output: items }),
				...(error !== undefined && { error }),
			};
		},
	};
}

function contentIndex(event: Json): number {
	return typeof event.content_index === 'number' ? event.content_index : 0;
}
