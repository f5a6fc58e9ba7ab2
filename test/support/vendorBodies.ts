/**
 * Vendor answers as the dialect tests write them: one finished answer per vendor, in the shape of
 * the vendor's API reference and SDK types (each per-dialect test names its sources), with the
 * vendor's usual stop reason and token counts. The arguments fill in or replace parts.
 */
import type { AnthropicMessage } from '../../lib/dialects/anthropic/wire';
import type { GeminiPart, GeminiResponse } from '../../lib/dialects/gemini/wire';
import type { OllamaChatResponse } from '../../lib/dialects/ollama/wire';
import type {
	OpenAIChoice,
	OpenAIChunk,
	OpenAICompletion,
	OpenAIResponseMessage,
} from '../../lib/dialects/openai/wire';
import type { ResponsesResponse, ResponsesStreamEvent } from '../../lib/dialects/responses/wire';

type Json = Record<string, unknown>;

export const USAGE = {
	openaiChat: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
	openaiResponses: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
	anthropic: { input_tokens: 10, output_tokens: 5 },
	gemini: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
	ollama: { prompt_eval_count: 20, eval_count: 5 },
};

export function chatCompletion(
	message: Partial<OpenAIResponseMessage>,
	extra: Partial<OpenAIChoice> = {},
): OpenAICompletion {
	return {
		id: 'chatcmpl-1',
		object: 'chat.completion',
		created: 1_700_000_000,
		model: 'gpt-test',
		choices: [
			{
				index: 0,
				finish_reason: 'stop',
				logprobs: null,
				message: { role: 'assistant', content: null, refusal: null, ...message },
				...extra,
			},
		],
		usage: USAGE.openaiChat,
	};
}

export function chatChunk(choices: unknown[], extra: Json = {}): OpenAIChunk {
	return {
		id: 'chatcmpl-1',
		object: 'chat.completion.chunk',
		created: 1_700_000_000,
		model: 'gpt-test',
		choices,
		...extra,
	} as OpenAIChunk;
}

export function responsesBody(output: unknown[], extra: Json = {}): ResponsesResponse {
	return {
		id: 'resp_1',
		object: 'response',
		created_at: 1_767_000_000,
		status: 'completed',
		error: null,
		incomplete_details: null,
		model: 'gpt-test',
		output,
		usage: USAGE.openaiResponses,
		...extra,
	};
}

/** A Responses output message of these content parts. */
export const responsesMessage = (...content: unknown[]) => ({
	id: 'msg_1',
	type: 'message',
	role: 'assistant',
	status: 'completed',
	content,
});

export const outputText = (text: string) => ({ type: 'output_text', text, annotations: [] });

export function responsesEvent(type: string, fields: Json = {}): ResponsesStreamEvent {
	return { type, ...fields };
}

export function anthropicMessage(
	content: unknown[],
	extra: Partial<AnthropicMessage> = {},
): AnthropicMessage {
	return {
		id: 'msg_1',
		type: 'message',
		role: 'assistant',
		model: 'claude-test',
		content: content as AnthropicMessage['content'],
		stop_reason: 'end_turn',
		stop_sequence: null,
		usage: USAGE.anthropic,
		...extra,
	};
}

/** A generateContent body; `extra` goes into the candidate. */
export function geminiResponse(parts: unknown[], extra: Json = {}): GeminiResponse {
	return {
		candidates: [
			{
				content: { role: 'model', parts: parts as GeminiPart[] },
				finishReason: 'STOP',
				index: 0,
				...extra,
			},
		],
		usageMetadata: USAGE.gemini,
	};
}

/** One streamGenerateContent event, without finish reason unless `extra` gives one. */
export const geminiChunk = (parts: unknown[], extra: Json = {}): GeminiResponse => ({
	candidates: [{ content: { role: 'model', parts: parts as GeminiPart[] }, index: 0, ...extra }],
});

export function ollamaResponse(message: Json, extra: Json = {}): OllamaChatResponse {
	return {
		model: 'qwen3:8b',
		created_at: '2026-03-02T10:00:00Z',
		message: { role: 'assistant', content: '', ...message },
		done: true,
		done_reason: 'stop',
		...USAGE.ollama,
		...extra,
	};
}
