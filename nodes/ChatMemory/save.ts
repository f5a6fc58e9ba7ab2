import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { turnToStore } from '../../lib/memory/session';
import { readConversation } from '../../lib/conversation/read';
import type { ConversationUsage } from '../../lib/conversation/types';
import { createRedactor, DEFAULT_SECRET_KEYS } from '../../lib/json/redact';
import { describeUsage } from '../../lib/usage/budget';
import { chunkSink, streamsToCaller } from '../shared/chatChunks';
import type { Routed } from '../shared/items';

interface SaveOptions {
	redactKeys?: string;
	showUsage?: boolean;
}

/**
 * Save: each conversation's new turn as the row a Data table node inserts. What is stored is
 * redacted as traces are: credential secrets left the nodes before already; values under secret
 * keys are hidden here, in tool arguments and in results given as JSON.
 */
export function save(context: IExecuteFunctions) {
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const options = context.getNodeParameter('saveOptions', itemIndex, {}) as SaveOptions;
		const keys =
			options.redactKeys === undefined
				? DEFAULT_SECRET_KEYS
				: String(options.redactKeys)
						.split(',')
						.map((key) => key.trim())
						.filter((key) => key !== '');
		const conversation = readConversation(item.json);
		const row = turnToStore(conversation, item.json.session);
		const messages = createRedactor({ secrets: [], keys }).all(JSON.parse(row.messages) as unknown);
		if (options.showUsage && conversation.usage && streamsToCaller(context))
			await sayUsage(
				context,
				itemIndex,
				JSON.parse(row.usage) as ConversationUsage,
				conversation.usage,
			);
		return { output: 0, item: { json: { ...row, messages: JSON.stringify(messages) } } };
	};
}

/** What the answer cost, and the session so far, as a message of its own in the chat. */
async function sayUsage(
	context: IExecuteFunctions,
	itemIndex: number,
	turn: ConversationUsage,
	session: ConversationUsage,
): Promise<void> {
	const sink = chunkSink(context, itemIndex);
	await sink.begin();
	await sink.item(
		`This answer: ${describeUsage(turn)}. The session so far: ${describeUsage(session)}.`,
	);
	await sink.end();
}
