import type { IExecuteFunctions } from 'n8n-workflow';
import { createAnswerStream, type AnswerStream } from '../../lib/decision/answerStream';
import type { NodeSettings } from './settings';

/**
 * The item's text streamed to the caller through n8n's chunk protocol, when n8n streams this
 * execution's answer (a Chat Trigger or Webhook in Streaming response mode) and the node is to
 * stream to it. n8n versions before streaming have no isStreaming: they never stream.
 */
export function chatStreamFor(
	context: IExecuteFunctions,
	itemIndex: number,
	settings: NodeSettings,
	secrets: readonly string[],
): AnswerStream | undefined {
	if (!settings.chat.stream || typeof context.isStreaming !== 'function' || !context.isStreaming())
		return undefined;
	// sendChunk is declared void but returns n8n's hook promise: awaited, chunks keep their order.
	const send = async (type: 'begin' | 'item' | 'end' | 'error', content?: string) =>
		await Promise.resolve(context.sendChunk(type, itemIndex, content));
	return createAnswerStream(
		{
			begin: async () => await send('begin'),
			item: async (text) => await send('item', text),
			end: async () => await send('end'),
			error: async (message) => await send('error', message),
		},
		{ secrets, announceToolCalls: settings.chat.announceToolCalls },
	);
}
