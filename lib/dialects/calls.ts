import { parseToolArguments } from '../conversation/arguments';
import { excerpt, isRecord } from '../json/value';
import type { AssistantToolCall, Message, PendingToolCall } from '../conversation/types';
import type { ToolNameMap } from './types';

/** One tool call as a vendor sent it: its id may be missing, its arguments a string or an object. */
export interface VendorToolCall {
	id?: unknown;
	name: unknown;
	arguments: unknown;
	/** The vendor's own JSON of the call, named when the call cannot be read. */
	sent?: unknown;
}

/**
 * Vendor tool calls to the assistant message's calls and the pending calls, for every dialect alike:
 * a call without a name refused, names mapped back, arguments kept as the exact text and parsed in a guard, and an id made from the
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
		if (typeof call.name !== 'string' || call.name === '')
			// A call without a name: nothing could run it, so the turn fails, naming the piece.
			throw new Error(
				`The model API sent a tool call without a name (call ${index + 1} of ${calls.length}), which no tool can answer: ${excerpt('sent' in call ? call.sent : call)}`,
			);
		const id = isId(call.id) && !ids.has(call.id) ? call.id : madeUpId(index, ids, given);
		ids.add(id);
		const name = names.fromVendor(call.name);
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

/**
 * A call of the wrapper some OpenAI models put parallel calls in, named `multi_tool_use.parallel`
 * (Chat Completions) or `parallel` (Responses), with `{"tool_uses":[{"recipient_name":"functions.x",
 * "parameters":{…}}]}`, as the calls it wraps, as other clients expand it; each gets the wrapper's id
 * and its position. Anything else, a wrapper that cannot be read included, stays one call.
 */
export function expandParallelCall(call: VendorToolCall): VendorToolCall[] {
	if (call.name !== 'multi_tool_use.parallel' && call.name !== 'parallel') return [call];
	const parsed = parseToolArguments(argumentsText(call.arguments));
	const uses = parsed.ok && Array.isArray(parsed.value.tool_uses) ? parsed.value.tool_uses : [];
	const wrapped = uses.every(
		(use) =>
			isRecord(use) &&
			typeof use.recipient_name === 'string' &&
			use.recipient_name.startsWith('functions.'),
	);
	if (uses.length === 0 || !wrapped) return [call];
	return (uses as Array<Record<string, unknown>>).map((use, index) => ({
		id: typeof call.id === 'string' && call.id !== '' ? `${call.id}_${index}` : undefined,
		name: String(use.recipient_name).slice('functions.'.length),
		arguments: use.parameters ?? {},
		sent: use,
	}));
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
