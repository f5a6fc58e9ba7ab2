import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { newTurn, turnRow } from '../../lib/memory/session';
import { readConversation } from '../../lib/conversation/read';
import type { ConversationUsage } from '../../lib/conversation/types';
import { createRedactor } from '../../lib/json/redact';
import { madeOnce } from '../../lib/util/madeOnce';
import { describeUsage } from '../../lib/usage/budget';
import { chunkSink, streamsToCaller } from '../shared/chatChunks';
import type { Routed } from '../shared/items';
import { itemParameter } from '../shared/parameters';
import { secretKeysOf } from '../shared/traceOptions';

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
	// One redactor for the items that hide the same keys.
	const shared = madeOnce();
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const options = itemParameter(context, 'saveOptions', itemIndex, {}) as SaveOptions;
		const keys = secretKeysOf(options.redactKeys);
		const redactor = shared([keys.join(',')], () => createRedactor({ secrets: [], keys }));
		const conversation = readConversation(item.json);
		const turn = newTurn(conversation, item.json.session);
		if (options.showUsage && turn.usage && conversation.usage && streamsToCaller(context))
			await sayUsage(context, itemIndex, turn.usage, conversation.usage);
		return { output: 0, item: { json: { ...turnRow(turn, redactor.all(turn.messages)) } } };
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
