import { collectToolCalls } from '../calls';
import { excerpt, isRecord } from '../../json/value';
import { rejectErrorBody } from '../errors';
import { modelName, usageOfTurn } from '../usage';
import type { ModelTurn, ToolNameMap } from '../types';
import { geminiFinish } from './finish';
import { geminiErrorMessage } from './http';
import { geminiUsage } from './usage';
import type { GeminiFunctionCall, GeminiPart, GeminiResponse } from './wire';

/** The function calls among a model turn's parts, in order. */
export function functionCallsOf(parts: readonly GeminiPart[]): GeminiFunctionCall[] {
	return parts.flatMap((part) => (isRecord(part.functionCall) ? [part.functionCall] : []));
}

/**
 * A GenerateContentResponse to a ModelTurn, read as untrusted JSON. The model turn's parts are always
 * kept as the message's vendorTurn: they carry the thought signatures Gemini wants echoed.
 */
export function parseGeminiResponse(body: GeminiResponse, names: ToolNameMap): ModelTurn {
	rejectErrorBody(body, geminiErrorMessage);
	const usage = {
		...modelName(body.modelVersion),
		...(isRecord(body.usageMetadata) && { usage: body.usageMetadata }),
		...usageOfTurn(geminiUsage(body.usageMetadata)),
	};
	const candidate = Array.isArray(body.candidates) ? body.candidates[0] : undefined;
	if (!isRecord(candidate)) {
		const blockReason = isRecord(body.promptFeedback) ? body.promptFeedback.blockReason : undefined;
		if (typeof blockReason !== 'string')
			throw new Error(`The model API response has no candidates[0]: ${excerpt(body)}`);
		// The prompt itself was blocked: no candidate at all, which is an answer, not a failure.
		const said = body.promptFeedback?.blockReasonMessage;
		const message = { role: 'assistant' as const, content: typeof said === 'string' ? said : null };
		return {
			message,
			toolCalls: [],
			finish: 'content_filter',
			finishReason: blockReason,
			...usage,
		};
	}

	const sent =
		isRecord(candidate.content) && Array.isArray(candidate.content.parts)
			? candidate.content.parts
			: [];
	const parts = sent.filter(isRecord) as GeminiPart[];
	const calls = functionCallsOf(parts);
	calls.forEach(refuseUnassembled);
	const { assistantCalls, toolCalls } = collectToolCalls(
		calls.map((call) => ({
			id: call.id,
			name: call.name,
			arguments: call.args,
			sent: call,
		})),
		names,
	);
	const text = visibleText(parts);
	// A turn without text or calls has only finishMessage to say why it ended (a malformed call, say).
	const reason =
		toolCalls.length === 0 && typeof candidate.finishMessage === 'string'
			? candidate.finishMessage
			: null;
	const finishReason = typeof candidate.finishReason === 'string' ? candidate.finishReason : null;
	const reasoning = parts
		.filter((part) => part.thought === true && typeof part.text === 'string')
		.map((part) => part.text)
		.join('');
	return {
		message: {
			role: 'assistant',
			content: text !== '' ? text : reason,
			...(assistantCalls.length > 0 && { tool_calls: assistantCalls }),
			...(parts.length > 0 && { vendorTurn: { dialect: 'gemini', content: parts } }),
		},
		toolCalls,
		finish: geminiFinish(finishReason, toolCalls.length > 0),
		finishReason,
		...usage,
		...(reasoning !== '' && { reasoning }),
	};
}

/** A call streamed in pieces that did not fold into whole arguments fails the turn, naming the pieces. */
function refuseUnassembled(call: GeminiFunctionCall): void {
	const name = typeof call.name === 'string' ? `'${call.name}'` : 'without a name';
	if (Array.isArray(call.partialArgs) && call.partialArgs.length > 0)
		throw new Error(
			`The model API streamed pieces of the arguments of the call ${name} that could not be placed: ${excerpt(call.partialArgs)}`,
		);
	if (call.willContinue === true)
		throw new Error(
			`The model API's stream ended in the middle of the call ${name}, before all its arguments came: ${excerpt(call)}`,
		);
}

/** The text of a turn's parts a reader sees: its thoughts left out. */
export function visibleText(parts: readonly GeminiPart[]): string {
	return parts
		.filter((part) => typeof part.text === 'string' && part.thought !== true)
		.map((part) => part.text)
		.join('');
}
