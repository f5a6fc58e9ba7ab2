import type { Message } from '../../conversation/types';
import type { ToolNameMap } from '../types';
import { historyArguments } from '../calls';
import type { OpenAIMessage } from './wire';

/** Our messages as Chat Completions messages: our own keys stripped, tool names mapped to vendor names. */
export function toOpenAIMessages(
	messages: readonly Message[],
	names: ToolNameMap,
): OpenAIMessage[] {
	return messages.map((message) => toOpenAIMessage(message, names));
}

function toOpenAIMessage(message: Message, names: ToolNameMap): OpenAIMessage {
	if (message.role === 'tool') {
		// isError needs no marker: the text already says the call failed.
		return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
	}
	if (message.role === 'assistant') {
		const calls = message.tool_calls ?? [];
		return {
			role: 'assistant',
			content: message.content,
			// An empty tool_calls array is refused ("too short"), so it is left out.
			...(calls.length > 0 && {
				tool_calls: calls.map((call) => ({
					id: call.id,
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
