import { collectToolCalls, expandParallelCall, textBesideCalls } from '../calls';
import { excerpt, isRecord, recordsIn } from '../../json/value';
import { rejectErrorBody } from '../errors';
import { modelName, usageOfTurn } from '../usage';
import type { ModelTurn, ToolNameMap } from '../types';
import { openaiFinish } from './finish';
import { openaiErrorMessage } from './http';
import { openaiUsage } from './usage';
import type { OpenAICompletion } from './wire';

/**
 * A Chat Completions body to a ModelTurn. The body is read as untrusted JSON: compatible servers
 * leave out ids, send arguments as objects, or answer with an error body and status 200.
 */
export function parseOpenAIResponse(body: OpenAICompletion, names: ToolNameMap): ModelTurn {
	rejectErrorBody(body, openaiErrorMessage);
	const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
	if (!choice?.message)
		throw new Error(`The model API response has no choices[0].message: ${excerpt(body)}`);
	const { message } = choice;

	const functionCalls = recordsIn(message.tool_calls).filter(
		(call) => call.type === undefined || call.type === 'function',
	);
	const { assistantCalls, toolCalls } = collectToolCalls(
		functionCalls.flatMap((call) =>
			expandParallelCall({
				id: call.id,
				name: call.function?.name,
				arguments: call.function?.arguments,
				sent: call,
			}),
		),
		names,
	);

	// A refusal is the model's answer in strict mode; it is kept as the text.
	const text = contentText(message.content) ?? message.refusal ?? null;
	// Streams often open with content "" before the calls; null keeps both paths alike.
	const content = textBesideCalls(text, assistantCalls.length > 0);
	const finishReason = choice.finish_reason ?? null;
	// Compatible servers (DeepSeek, vLLM, OpenRouter) send the reasoning apart from the answer.
	const reasoning = [message.reasoning_content, message.reasoning].find(
		(text): text is string => typeof text === 'string' && text !== '',
	);
	return {
		message: {
			role: 'assistant',
			content,
			...(assistantCalls.length > 0 && { tool_calls: assistantCalls }),
		},
		toolCalls,
		finish: openaiFinish(finishReason, toolCalls.length > 0),
		finishReason,
		...modelName(body.model),
		...(isRecord(body.usage) && { usage: body.usage }),
		...usageOfTurn(openaiUsage(body.usage)),
		...(reasoning !== undefined && { reasoning }),
	};
}

/**
 * A message's text, sent as a string or as a list of parts (Mistral's reasoning models put thinking
 * parts before the answer): the text parts joined. Null when content is neither.
 */
export function contentText(content: unknown): string | null {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return null;
	return content
		.filter(isRecord)
		.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
		.join('');
}
