import type { IExecuteFunctions } from 'n8n-workflow';
import { createAnswerStream, type AnswerStream } from '../../lib/decision/answerStream';
import { chunkSink, streamsToCaller } from '../shared/chatChunks';
import type { NodeSettings } from './settings';

/** The item's text streamed to the caller, when n8n streams the answer and the node is to stream to it. */
export function chatStreamFor(
	context: IExecuteFunctions,
	itemIndex: number,
	settings: NodeSettings,
	secrets: readonly string[],
): AnswerStream | undefined {
	if (!settings.chat.stream || !streamsToCaller(context)) return undefined;
	return createAnswerStream(chunkSink(context, itemIndex), {
		secrets,
		announceToolCalls: settings.chat.announceToolCalls,
	});
}
