import { parseToolArguments } from '../conversation/arguments';
import type { AssistantToolCall, Message, PendingToolCall } from '../conversation/types';
import type { ToolNameMap } from './types';

/** One tool call as a vendor sent it: its id may be missing, its arguments a string or an object. */
export interface VendorToolCall {
	id?: unknown;
	name: unknown;
	arguments: unknown;
}

/**
 * Vendor tool calls to the assistant message's calls and the pending calls, for every dialect alike:
 * names mapped back, arguments kept as the exact text and parsed in a guard, and an id made from the
 * position where the vendor gave none or repeated one (tool results must match their call).
 */
export function collectToolCalls(
	calls: readonly VendorToolCall[],
	names: ToolNameMap,
): { assistantCalls: AssistantToolCall[]; toolCalls: PendingToolCall[] } {
	const assistantCalls: AssistantToolCall[] = [];
	const toolCalls: PendingToolCall[] = [];
	// A made-up id is none of the turn's vendor ids, later ones included, so those stay as they came.
	const given = new Set(calls.map((call) => call.id).filter(isId));
	const ids = new Set<string>();
	for (const [index, call] of calls.entries()) {
		const id = isId(call.id) && !ids.has(call.id) ? call.id : madeUpId(index, ids, given);
		ids.add(id);
		const name = names.fromVendor(String(call.name ?? ''));
		const rawArguments = argumentsText(call.arguments);
		const parsed = parseToolArguments(rawArguments);
		assistantCalls.push({ id, type: 'function', function: { name, arguments: rawArguments } });
		toolCalls.push(
			parsed.ok
				? { id, name, arguments: parsed.value, rawArguments }
				: { id, name, arguments: null, rawArguments, argumentsError: parsed.error },
		);
	}
	return { assistantCalls, toolCalls };
}

/** call_ and the call's position, with a count after it while that is taken. */
function madeUpId(index: number, ...taken: ReadonlySet<string>[]): string {
	let id = `call_${index}`;
	for (let n = 2; taken.some((ids) => ids.has(id)); n++) id = `call_${index}_${n}`;
	return id;
}

function isId(id: unknown): id is string {
	return typeof id === 'string' && id !== '';
}

/** Arguments as the exact text: some servers send an object where the format has JSON text. */
export function argumentsText(sent: unknown): string {
	return typeof sent === 'string' ? sent : sent == null ? '' : JSON.stringify(sent);
}

/** A call's arguments as history sends them back: "" means no arguments, and servers that parse history fail on it. */
export function historyArguments(rawArguments: string): string {
	return rawArguments.trim() === '' ? '{}' : rawArguments;
}

/**
 * Arguments as an object, for vendors that take them so (Gemini, Ollama). Text that is no JSON
 * object goes as {}: the executor already answered that call with an error telling the model why.
 */
export function argumentsObject(rawArguments: string): Record<string, unknown> {
	const parsed = parseToolArguments(rawArguments);
	return parsed.ok ? parsed.value : {};
}

/** The text beside tool calls: streams often open with "" before the calls, and null keeps both paths alike. */
export function textBesideCalls(text: string | null, hasCalls: boolean): string | null {
	return text === '' && hasCalls ? null : text;
}

/** Every call id a history holds, its calls' and its results' alike: what a dialect's id map must cover. */
export function historyCallIds(messages: readonly Message[]): string[] {
	return messages.flatMap((message) => {
		if (message.role === 'tool') return [message.tool_call_id];
		return message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [];
	});
}
