import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IPairedItemData,
} from 'n8n-workflow';
import {
	continueConversation,
	readStoredTurns,
	type ContextBudget,
	type SessionMark,
} from '../../lib/memory/session';
import type { Conversation } from '../../lib/conversation/types';
import { traceEntry } from '../../lib/trace/entries';
import { redactedError } from '../shared/redactedError';
import { nodeRedactions, type NodeRedaction } from '../shared/traceOptions';

/**
 * Load: the input items are a session's stored turns, as a Data table node read them (or one empty
 * item for a new session); the rows of one session become one conversation, the new message last.
 * Its parameters are read once for those rows, from the first: n8n evaluates an expression anew
 * for each item it is read for, which in n8n's sandboxed expression engine costs about a
 * millisecond, and a session's rows are many. A session whose rows cannot be read fails alone,
 * naming itself.
 */
export async function load(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const redactionFor = nodeRedactions(context, []);
	const redaction = redactionFor(0);
	const items = context.getInputData();
	const sessions = new Map<string, number[]>();
	items.forEach((item, itemIndex) => {
		const stored = item.json.sessionId;
		// A row names its session; an item without one (a new session's) is a session of its own.
		const key =
			typeof stored === 'string' || typeof stored === 'number'
				? `session ${stored}`
				: `item ${itemIndex}`;
		const indices = sessions.get(key);
		if (indices) indices.push(itemIndex);
		else sessions.set(key, [itemIndex]);
	});
	return [
		[...sessions.values()].map((indices): INodeExecutionData => {
			const pairedItem: IPairedItemData[] = indices.map((item) => ({ item }));
			try {
				const rows = indices.map((index) => items[index].json);
				const session = loadSession(context, indices[0], rows, redactionFor);
				return { json: { ...session }, pairedItem };
			} catch (error) {
				const nodeError = redactedError(
					error instanceof NodeOperationError
						? error
						: new NodeOperationError(context.getNode(), error as Error, { itemIndex: indices[0] }),
					redaction,
				);
				if (!context.continueOnFail()) throw nodeError;
				return { json: { error: nodeError.message }, pairedItem };
			}
		}),
	];
}

/** One session's rows, its parameters read for `first`, its first row. */
function loadSession(
	context: IExecuteFunctions,
	first: number,
	rows: readonly IDataObject[],
	redactionFor: (itemIndex: number) => NodeRedaction,
): Conversation & { session: SessionMark } {
	const id = String(context.getNodeParameter('sessionId', first, '') ?? '').trim();
	if (id === '')
		throw new NodeOperationError(
			context.getNode(),
			'The Session ID is empty: point it at the chat session (the Chat Trigger’s sessionId)',
			{ itemIndex: first },
		);
	const startedAt = Date.now();
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
	const entry = traceEntry(
		'memory.load',
		{ node: context.getNode().name, round: 0, startedAt, durationMs: Date.now() - startedAt },
		{ session: id, ...report },
		undefined,
		redactionFor(first).trace,
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
