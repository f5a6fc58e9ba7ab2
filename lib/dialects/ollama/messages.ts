import type { AssistantMessage, Message } from '../../conversation/types';
import { argumentsObject } from '../calls';
import { isRecord } from '../../json/value';
import type { ToolNameMap } from '../types';
import type { OllamaMessage, OllamaToolCall } from './wire';

/**
 * Our messages as Ollama messages: our own keys stripped, tool names mapped to vendor names, and each
 * tool result told which tool answered (`tool_name`, how Ollama renders results) and which call
 * (`tool_call_id`, read by Ollama 0.12.10 and later, ignored before).
 */
export function toOllamaMessages(
	messages: readonly Message[],
	names: ToolNameMap,
): OllamaMessage[] {
	// Call ids are unique within a turn only (made-up ids restart at call_0), so the latest turn wins.
	const calledTools = new Map<string, string>();
	return messages.map((message): OllamaMessage => {
		if (message.role === 'assistant') {
			for (const call of message.tool_calls ?? []) calledTools.set(call.id, call.function.name);
			return toOllamaAssistant(message, names);
		}
		if (message.role === 'tool') {
			// isError needs no marker: the text already says the call failed.
			const toolName = calledTools.get(message.tool_call_id) ?? message.name;
			return {
				role: 'tool',
				content: message.content,
				...(toolName !== undefined && { tool_name: names.toVendor(toolName) }),
				tool_call_id: message.tool_call_id,
			};
		}
		return { role: message.role, content: message.content };
	});
}

function toOllamaAssistant(message: AssistantMessage, names: ToolNameMap): OllamaMessage {
	const calls = message.tool_calls ?? [];
	const thinking = ollamaThinking(message);
	return {
		role: 'assistant',
		content: message.content ?? '',
		...(thinking !== undefined && { thinking }),
		...(calls.length > 0 && {
			// index as Ollama numbers the calls it returns, and as its history examples send it.
			tool_calls: calls.map((call, index): OllamaToolCall => ({
				id: call.id,
				function: {
					index,
					name: names.toVendor(call.function.name),
					arguments: argumentsObject(call.function.arguments),
				},
			})),
		}),
	};
}

/** The reasoning this dialect kept in vendorTurn; Ollama asks for it back beside the calls it led to. */
function ollamaThinking(message: AssistantMessage): string | undefined {
	if (message.vendorTurn?.dialect !== 'ollama') return undefined;
	const part = message.vendorTurn.content.find(
		(item) => isRecord(item) && typeof item.thinking === 'string',
	);
	return isRecord(part) ? (part.thinking as string) : undefined;
}
