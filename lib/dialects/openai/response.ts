import type { ChatCompletion } from 'openai/resources/chat/completions';
import { parseToolArguments } from '../../conversation/arguments';
import type { AssistantToolCall, PendingToolCall } from '../../conversation/types';
import type { ModelTurn, ToolNameMap } from '../types';

/**
 * A Chat Completions body to a ModelTurn. The body is read as untrusted JSON: compatible servers
 * leave out ids, send arguments as objects, or answer with an error body and status 200.
 */
export function parseOpenAIResponse(body: ChatCompletion, names: ToolNameMap): ModelTurn {
	const failure = errorText(body);
	if (failure) throw new Error(`The model API returned an error: ${failure}`);
	const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
	if (!choice?.message) throw new Error(`The model API response has no choices[0].message: ${excerpt(body)}`);
	const { message } = choice;

	const assistantCalls: AssistantToolCall[] = [];
	const toolCalls: PendingToolCall[] = [];
	const ids = new Set<string>();
	// Decided by the calls present, not by finish_reason: servers report "stop" with calls.
	for (const [index, call] of (message.tool_calls ?? []).entries()) {
		if (call.type !== undefined && call.type !== 'function') continue;
		// A missing or repeated id would leave tool messages unmatched, so one is made from the position.
		const id = typeof call.id === 'string' && call.id !== '' && !ids.has(call.id) ? call.id : `call_${index}`;
		ids.add(id);
		const name = names.fromVendor(String(call.function?.name ?? ''));
		const sent: unknown = call.function?.arguments;
		const rawArguments = typeof sent === 'string' ? sent : sent == null ? '' : JSON.stringify(sent);
		const parsed = parseToolArguments(rawArguments);
		assistantCalls.push({ id, type: 'function', function: { name, arguments: rawArguments } });
		toolCalls.push(
			parsed.ok
				? { id, name, arguments: parsed.value, rawArguments }
				: { id, name, arguments: null, rawArguments, argumentsError: parsed.error },
		);
	}

	// A refusal is the model's answer in strict mode; it is kept as the text.
	const text = typeof message.content === 'string' ? message.content : (message.refusal ?? null);
	// Streams often open with content "" before the calls; null keeps both paths alike.
	const content = text === '' && assistantCalls.length > 0 ? null : text;
	return {
		message: { role: 'assistant', content, ...(assistantCalls.length > 0 && { tool_calls: assistantCalls }) },
		toolCalls,
		finishReason: choice.finish_reason ?? null,
		...(isRecord(body.usage) && { usage: body.usage as unknown as Record<string, unknown> }),
	};
}

/** The message of an error body: {error:{message}}, {error:"..."}, {object:"error",message} or {detail}. */
function errorText(body: unknown): string | undefined {
	if (!isRecord(body)) return `not a JSON object: ${excerpt(body)}`;
	const { error } = body;
	if (typeof error === 'string') return error;
	if (isRecord(error)) return typeof error.message === 'string' ? error.message : excerpt(error);
	if (body.object === 'error' && typeof body.message === 'string') return body.message;
	if (body.detail !== undefined && body.choices === undefined) return excerpt(body.detail);
	return undefined;
}

function excerpt(value: unknown): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
