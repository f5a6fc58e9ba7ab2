import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IPairedItemData,
} from 'n8n-workflow';
import {
	continueConversation,
	readStoredTurns,
	type ContextBudget,
	type SessionMark,
} from '../../lib/conversation/memory';
import type { Conversation } from '../../lib/conversation/types';
import { traceEntry } from '../../lib/trace/entries';
import { redactedError } from '../shared/redactedError';
import { nodeRedactions } from '../shared/traceOptions';

/**
 * Load: the input items are a session's stored turns, as a Data table node read them (or one
 * empty item for a new session); they become one conversation per session, the new message last.
 * A session whose rows cannot be read fails alone, naming itself.
 */
export async function load(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	const redaction = nodeRedactions(context, [])(0);
	const sessions = new Map<string, number[]>();
	const failed: INodeExecutionData[] = [];
	items.forEach((_item, itemIndex) => {
		const id = String(context.getNodeParameter('sessionId', itemIndex, '') ?? '').trim();
		if (id === '') {
			const error = new NodeOperationError(
				context.getNode(),
				'The Session ID is empty: point it at the chat session (the Chat Trigger’s sessionId)',
				{ itemIndex },
			);
			if (!context.continueOnFail()) throw error;
			failed.push({ json: { error: error.message }, pairedItem: { item: itemIndex } });
			return;
		}
		sessions.set(id, [...(sessions.get(id) ?? []), itemIndex]);
	});
	const loaded = [...sessions].map(([id, indices]): INodeExecutionData => {
		const pairedItem: IPairedItemData[] = indices.map((item) => ({ item }));
		try {
			return { json: { ...loadSession(context, id, indices) }, pairedItem };
		} catch (error) {
			const nodeError = redactedError(
				new NodeOperationError(context.getNode(), error as Error, { itemIndex: indices[0] }),
				redaction,
			);
			if (!context.continueOnFail()) throw nodeError;
			return { json: { error: nodeError.message, session: { id } }, pairedItem };
		}
	});
	return [[...loaded, ...failed]];
}

function loadSession(
	context: IExecuteFunctions,
	id: string,
	indices: number[],
): Conversation & { session: SessionMark } {
	const first = indices[0];
	const startedAt = Date.now();
	const rows = indices.map((index) => context.getInputData()[index].json);
	const turns = readStoredTurns(rows, id);
	const message = context.getNodeParameter('message', first, '') as unknown;
	if (typeof message !== 'string' || message.trim() === '')
		throw new Error(
			`Session '${id}': the Message is ${typeof message === 'string' ? 'empty' : `not text but ${typeof message}`}: point it at the person’s message (the Chat Trigger’s chatInput)`,
		);
	const budget = context.getNodeParameter('budget', first, {}) as Partial<ContextBudget>;
	const { messages, newFrom, usage, report } = continueConversation(turns, {
		system: String(context.getNodeParameter('systemMessage', first, '') ?? ''),
		message,
		budget: {
			maxMessages: budget.maxMessages ?? 0,
			maxTokens: budget.maxTokens ?? 32000,
			shortenToolResultsOver: budget.shortenToolResultsOver ?? 0,
		},
	});
	const policy = nodeRedactions(context, [])(first).trace;
	const entry = traceEntry(
		'memory.load',
		{ node: context.getNode().name, round: 0, startedAt, durationMs: Date.now() - startedAt },
		{ session: id, ...report },
		undefined,
		policy,
	);
	const turn = turns.reduce((last, stored) => Math.max(last, stored.turn), 0) + 1;
	return {
		messages,
		tools: [],
		toolCalls: [],
		trace: [entry],
		...(usage && { usage }),
		session: { id, turn, newFrom, ...(usage && { usageAtLoad: usage }) },
	};
}
