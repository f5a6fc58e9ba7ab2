/**
 * The vendors the local model API stand-in (server.ts) can speak, one wire module each; it stands in
 * for their APIs because no model API is reachable where tests run. Each module names the
 * references its shapes follow.
 */
import { anthropicWire, type AnthropicRequest } from './anthropic';
import { geminiWire, type GeminiRequest } from './gemini';
import { ollamaWire, type OllamaChatRequest } from './ollama';
import { openaiChatWire, type ChatCompletionsRequest } from './openaiChat';
import { openaiResponsesWire, type ResponsesRequest } from './openaiResponses';
import type { Wire, WireOptions } from './wire';

/** What each vendor's model calls carry, for reading recorded requests. */
export interface RequestBodies {
	openaiChat: ChatCompletionsRequest;
	openaiResponses: ResponsesRequest;
	anthropic: AnthropicRequest;
	gemini: GeminiRequest;
	ollama: OllamaChatRequest;
}

export type DialectId = keyof RequestBodies;

export const WIRES: Record<DialectId, (options: WireOptions) => Wire> = {
	openaiChat: openaiChatWire,
	openaiResponses: openaiResponsesWire,
	anthropic: anthropicWire,
	gemini: geminiWire,
	ollama: ollamaWire,
};

export const DIALECT_IDS = Object.keys(WIRES) as DialectId[];
