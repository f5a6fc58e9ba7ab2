import type {
	ChatCompletion,
	ChatCompletionChunk,
	ChatCompletionCreateParamsBase,
} from 'openai/resources/chat/completions';
import type { Dialect } from '../types';
import { openaiHttp } from './http';
import { buildOpenAIRequest, type OpenAIRequestOptions } from './request';
import { parseOpenAIResponse } from './response';
import { createOpenAIStreamAssembler } from './stream';

/** OpenAI Chat Completions, and the servers that speak it (vLLM, LM Studio, OpenRouter, Groq, Ollama's /v1). */
export type OpenAIDialect = Dialect<
	ChatCompletionCreateParamsBase,
	ChatCompletion,
	ChatCompletionChunk
>;

export function createOpenAIDialect(options: OpenAIRequestOptions = {}): OpenAIDialect {
	return {
		id: 'openaiChat',
		http: openaiHttp('/chat/completions'),
		buildRequest: (conversation, settings) => buildOpenAIRequest(conversation, settings, options),
		parseResponse: parseOpenAIResponse,
		createStreamAssembler: createOpenAIStreamAssembler,
	};
}

export const openaiDialect: OpenAIDialect = createOpenAIDialect();

export type { OpenAIRequestOptions };
