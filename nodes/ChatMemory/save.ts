import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { turnToStore } from '../../lib/conversation/memory';
import { readConversation } from '../../lib/conversation/read';
import { createRedactor, DEFAULT_SECRET_KEYS } from '../../lib/json/redact';
import type { Routed } from '../shared/items';

/**
 * Save: each conversation's new turn as the row a Data table node inserts. What is stored is
 * redacted as traces are: credential secrets left the nodes before already; values under secret
 * keys are hidden here, in tool arguments and in results given as JSON.
 */
export function save(context: IExecuteFunctions) {
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const options = context.getNodeParameter('saveOptions', itemIndex, {}) as {
			redactKeys?: string;
		};
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
		return { output: 0, item: { json: { ...row, messages: JSON.stringify(messages) } } };
	};
}
