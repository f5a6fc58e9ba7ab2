import type { AssistantMessage, Message } from '../../conversation/types';
import { canonicalJson } from '../../json/canonical';
import { isRecord } from '../../json/value';
import type { ToolNameMap } from '../types';
import { readOutput } from './response';
import { historyArguments, historyCallIds } from '../calls';
import { responsesCallIds } from './names';
import type { ResponsesInputItem } from './wire';

export interface ResponsesInput {
	instructions?: string;
	input: ResponsesInputItem[];
}

/**
 * Our messages as Responses input, our own keys stripped and tool names mapped. System messages go
 * to `instructions`, the field the API has for them: it means the same to every model, where a
 * `system` or `developer` input item depends on the model and the server. Calls and results are
 * items of their own, matched on call_id (one longer than the API takes is shortened).
 */
export function toResponsesInput(messages: readonly Message[], names: ToolNameMap): ResponsesInput {
	const ids = responsesCallIds(historyCallIds(messages));
	const system = messages.flatMap((message) =>
		message.role === 'system' ? [message.content] : [],
	);
	return {
		...(system.length > 0 && { instructions: system.join('\n\n') }),
		input: messages.flatMap((message) => toInputItems(message, names, ids)),
	};
}

function toInputItems(
	message: Message,
	names: ToolNameMap,
	ids: ToolNameMap,
): ResponsesInputItem[] {
	switch (message.role) {
		case 'system':
			return [];
		case 'user':
			return [{ role: 'user', content: message.content }];
		case 'tool':
			// isError needs no marker: the text already says the call failed.
			return [
				{
					type: 'function_call_output',
					call_id: ids.toVendor(message.tool_call_id),
					output: message.content,
				},
			];
		case 'assistant':
			return echoedTurn(message, names, ids) ?? rebuiltTurn(message, names, ids);
	}
}

/**
 * A turn this dialect wrote, sent back as the vendor's own items: its reasoning items (encrypted
 * content and all) must come back before the calls they led to. Only while those items still say what
 * the neutral message says: an edited message, or a name the current map spells differently, is rebuilt.
 */
function echoedTurn(
	message: AssistantMessage,
	names: ToolNameMap,
	ids: ToolNameMap,
): ResponsesInputItem[] | undefined {
	const turn = message.vendorTurn;
	if (turn?.dialect !== 'openaiResponses' || !Array.isArray(turn.content)) return undefined;
	const reading = readOutput(turn.content, names);
	// A wrapper of parallel calls was expanded into its calls, whose results the wrapper cannot take.
	const calls = turn.content.filter((item) => isRecord(item) && item.type === 'function_call');
	const agrees =
		reading.content === message.content &&
		calls.length === reading.assistantCalls.length &&
		canonicalJson(reading.assistantCalls) === canonicalJson(message.tool_calls ?? []);
	return agrees
		? (turn.content as ResponsesInputItem[]).map((item) => echoedItem(item, ids))
		: undefined;
}

/**
 * An item as it came, but a call's empty arguments sent as "{}", as a rebuilt call's are, and its
 * call_id as its output gives it (shortened past what the API takes).
 */
function echoedItem(item: ResponsesInputItem, ids: ToolNameMap): ResponsesInputItem {
	if (!('type' in item) || item.type !== 'function_call') return item;
	return {
		...item,
		...(typeof item.call_id === 'string' && { call_id: ids.toVendor(item.call_id) }),
		...(typeof item.arguments === 'string' && { arguments: historyArguments(item.arguments) }),
	};
}

/** The neutral turn as input items; calls carry no item id (fc_…), which the neutral form does not hold. */
function rebuiltTurn(
	message: AssistantMessage,
	names: ToolNameMap,
	ids: ToolNameMap,
): ResponsesInputItem[] {
	const text: ResponsesInputItem[] = message.content
		? [{ role: 'assistant', content: message.content }]
		: [];
	const calls = (message.tool_calls ?? []).map((call): ResponsesInputItem => ({
		type: 'function_call',
		call_id: ids.toVendor(call.id),
		name: names.toVendor(call.function.name),
		// "" means no arguments; a server that parses history arguments fails on it.
		arguments: historyArguments(call.function.arguments),
	}));
	return [...text, ...calls];
}
