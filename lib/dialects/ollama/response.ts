import { collectToolCalls, textBesideCalls } from '../calls';
import { excerpt, isRecord } from '../../json/value';
import { commonErrorMessage, rejectErrorBody } from '../errors';
import { modelName, usageOfTurn } from '../usage';
import type { ModelTurn, ToolNameMap } from '../types';
import { ollamaFinish } from './finish';
import { ollamaUsage } from './usage';
import type { OllamaChatResponse } from './wire';

/** Ollama's token counts and timings (in nanoseconds), as it names them. */
const USAGE_KEYS = [
	'prompt_eval_count',
	'eval_count',
	'total_duration',
	'load_duration',
	'prompt_eval_duration',
	'eval_duration',
] as const;

/**
 * An Ollama /api/chat body to a ModelTurn. The body is read as untrusted JSON: calls may lack ids
 * (servers before 0.12.10 send none), and an error may come as `{error}`.
 */
export function parseOllamaResponse(body: OllamaChatResponse, names: ToolNameMap): ModelTurn {
	rejectErrorBody(body, commonErrorMessage);
	const { message } = body;
	if (!isRecord(message))
		throw new Error(`The model API response has no message: ${excerpt(body)}`);

	const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
	const { assistantCalls, toolCalls } = collectToolCalls(
		calls.map((call) => ({
			id: call?.id,
			name: call?.function?.name,
			arguments: call?.function?.arguments,
			sent: call,
		})),
		names,
	);

	// Small models sometimes write a call as JSON in the text. It is not guessed into a call: a guess
	// could run a tool the model did not call, and the text, kept as it is, shows the user what happened.
	const text = typeof message.content === 'string' ? message.content : null;
	// Ollama sends content "" beside calls; null says "no text" as the other dialects do.
	const content = textBesideCalls(text, assistantCalls.length > 0);
	const thinking =
		typeof message.thinking === 'string' && message.thinking !== '' ? message.thinking : undefined;
	const finishReason = typeof body.done_reason === 'string' ? body.done_reason : null;
	const usage = Object.fromEntries(
		USAGE_KEYS.filter((key) => typeof body[key] === 'number').map((key) => [key, body[key]]),
	);
	return {
		message: {
			role: 'assistant',
			content,
			...(assistantCalls.length > 0 && { tool_calls: assistantCalls }),
			// Reasoning is no part of the answer; it is kept to go back with the calls, as Ollama asks.
			...(thinking !== undefined && { vendorTurn: { dialect: 'ollama', content: [{ thinking }] } }),
		},
		toolCalls,
		finish: ollamaFinish(finishReason, toolCalls.length > 0),
		finishReason,
		...modelName(body.model),
		...(Object.keys(usage).length > 0 && { usage }),
		...usageOfTurn(ollamaUsage(body)),
		...(thinking !== undefined && { reasoning: thinking }),
	};
}
