import type { AssistantToolCall, Conversation, PendingToolCall } from '../conversation/types';
import type { ModelTurn } from '../dialects/types';
import { dropAddedNulls } from '../schema/strict';
import type { TurnCost } from '../usage/prices';
import { withModelCall } from '../usage/totals';

/**
 * The conversation after a model turn: the assistant message appended, its calls pending (or
 * the answer set), one more round counted, its tokens and cost added to the totals. Calls to tools sent in strict mode lose the nulls
 * that strict mode made the model send for optional arguments, so they pass the tool's own schema.
 */
export function applyModelTurn(
	conversation: Conversation,
	turn: ModelTurn,
	strictTools: ReadonlySet<string>,
	cost: TurnCost,
): Conversation {
	const round = (conversation.rounds ?? 0) + 1;
	const ids = uniqueIds(conversation, turn, round);
	const toolCalls = turn.toolCalls.map((call, index): PendingToolCall => {
		const tool = conversation.tools.find((candidate) => candidate.name === call.name);
		const renamed = { ...call, id: ids[index] };
		if (!tool || !strictTools.has(call.name) || call.arguments === null) return renamed;
		return { ...renamed, arguments: dropAddedNulls(call.arguments, tool.inputSchema) };
	});
	const message = turn.message.tool_calls
		? {
				...turn.message,
				tool_calls: turn.message.tool_calls.map((call, index): AssistantToolCall => ({
					...call,
					id: ids[index],
				})),
			}
		: turn.message;
	const next: Conversation = {
		...conversation,
		messages: [...conversation.messages, message],
		toolCalls,
		rounds: round,
		usage: withModelCall(conversation.usage, turn.tokens, cost),
	};
	delete next.answer;
	delete next.output;
	// A turn was taken: an earlier stop at Max Rounds no longer holds.
	delete next.stopReason;
	// Decisions of a person were for calls of an earlier turn, never for these.
	delete next.approval;
	if (toolCalls.length > 0) return next;
	if (turn.unanswered) next.stopReason = unansweredReason(turn.unanswered);
	else next.answer = turn.message.content ?? '';
	return next;
}

/** Why a turn of only what the node does not run is no answer. */
function unansweredReason(unanswered: readonly string[]): string {
	return `The model asked for what this node does not run, and gave no answer: ${unanswered.join(', ')}. Offer only function tools, or run these outside the loop.`;
}

/**
 * The turn's call ids, each unique in the conversation. Ids made up for vendors that send none
 * (Gemini, Ollama) restart at call_0 every turn, and some vendors refuse a history with repeated
 * ids (Anthropic: "tool_use ids must be unique"), so a repeat gets the round as a suffix.
 */
function uniqueIds(conversation: Conversation, turn: ModelTurn, round: number): string[] {
	const used = new Set(
		conversation.messages.flatMap((message) =>
			message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
		),
	);
	return turn.toolCalls.map((call) => {
		let id = call.id;
		for (let n = 1; used.has(id); n++)
			id = n === 1 ? `${call.id}_r${round}` : `${call.id}_r${round}_${n}`;
		used.add(id);
		return id;
	});
}
