import type { Message } from '../../conversation/types';
import type { ToolNameMap } from '../types';
import { historyArguments, historyCallIds } from '../calls';
import { openaiCallIds } from './names';
import type { OpenAIMessage } from './wire';

/**
 * Our messages as Chat Completions messages: our own keys stripped, tool names mapped to vendor
 * names, call ids to ones the API accepts. An assistant turn that said nothing and called nothing
 * (a Gemini candidate without parts, a turn cut off while thinking) is left out, as the other
 * dialects leave it: sent, its null content is refused.
 */
export function toOpenAIMessages(
	messages: readonly Message[],
	names: ToolNameMap,
): OpenAIMessage[] {
	const ids = openaiCallIds(historyCallIds(messages));
	return messages
		.filter((message) => !isEmptyTurn(message))
		.map((message) => toOpenAIMessage(message, names, ids));
}

const isEmptyTurn = (message: Message) =>
	message.role === 'assistant' && !message.content && !message.tool_calls?.length;

function toOpenAIMessage(message: Message, names: ToolNameMap, ids: ToolNameMap): OpenAIMessage {
	if (message.role === 'tool') {
		// isError needs no marker: the text already says the call failed.
		return {
			role: 'tool',
			tool_call_id: ids.toVendor(message.tool_call_id),
			content: message.content,
		};
	}
	if (message.role === 'assistant') {
		const calls = message.tool_calls ?? [];
		return {
			role: 'assistant',
			content: message.content,
			// An empty tool_calls array is refused ("too short"), so it is left out.
			...(calls.length > 0 && {
				tool_calls: calls.map((call) => ({
					id: ids.toVendor(call.id),
					type: 'function' as const,
					function: {
						name: names.toVendor(call.function.name),
						arguments: historyArguments(call.function.arguments),
					},
				})),
			}),
		};
	}
	return { role: message.role, content: message.content };
}
