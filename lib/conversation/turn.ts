import type { ModelTurn } from '../dialects/types';
import { dropAddedNulls } from '../schema/strict';
import type { Conversation } from './types';

/**
 * The conversation after a model turn: the assistant message appended, its calls pending (or
 * the answer set), one more round counted. Calls to tools sent in strict mode lose the nulls
 * that strict mode made the model send for optional arguments, so they pass the tool's own schema.
 */
export function applyModelTurn(conversation: Conversation, turn: ModelTurn, strictTools: ReadonlySet<string>): Conversation {
	const toolCalls = turn.toolCalls.map((call) => {
		const tool = conversation.tools.find((candidate) => candidate.name === call.name);
		if (!tool || !strictTools.has(call.name) || call.arguments === null) return call;
		return { ...call, arguments: dropAddedNulls(call.arguments, tool.inputSchema) };
	});
	const next: Conversation = {
		...conversation,
		messages: [...conversation.messages, turn.message],
		toolCalls,
		rounds: (conversation.rounds ?? 0) + 1,
	};
	delete next.answer;
	if (toolCalls.length === 0) next.answer = turn.message.content ?? '';
	return next;
}
