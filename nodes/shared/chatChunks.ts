import type { IExecuteFunctions } from 'n8n-workflow';
import type { TextSink } from '../../lib/decision/answerStream';

/**
 * Whether n8n streams this execution's answer to its caller (a Chat Trigger or Webhook in
 * Streaming response mode). n8n versions before streaming have no isStreaming: they never stream.
 */
export function streamsToCaller(context: IExecuteFunctions): boolean {
	return typeof context.isStreaming === 'function' && context.isStreaming();
}

/** n8n's chunk protocol for one item: each of its messages is a begin, items and an end. */
export function chunkSink(context: IExecuteFunctions, itemIndex: number): TextSink {
	// sendChunk is declared void but returns n8n's hook promise: awaited, chunks keep their order.
	const send = async (type: 'begin' | 'item' | 'end' | 'error', content?: string) =>
		await Promise.resolve(context.sendChunk(type, itemIndex, content));
	return {
		begin: async () => await send('begin'),
		item: async (text) => await send('item', text),
		end: async () => await send('end'),
		error: async (message) => await send('error', message),
	};
}
