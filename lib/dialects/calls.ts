import { parseToolArguments } from '../conversation/arguments';
import type { AssistantToolCall, PendingToolCall } from '../conversation/types';
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
	const ids = new Set<string>();
	for (const [index, call] of calls.entries()) {
		const id =
			typeof call.id === 'string' && call.id !== '' && !ids.has(call.id)
				? call.id
				: `call_${index}`;
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
