import type { Dialect } from '../types';
import { openaiHttp } from './http';
import { buildOpenAIRequest, type OpenAIRequestOptions } from './request';
import { parseOpenAIResponse } from './response';
import { createOpenAIStreamAssembler } from './stream';
import type { OpenAIChunk, OpenAICompletion, OpenAIRequest } from './wire';

/** OpenAI Chat Completions, and the servers that speak it (vLLM, LM Studio, OpenRouter, Groq, Ollama's /v1). */
export type OpenAIDialect = Dialect<OpenAIRequest, OpenAICompletion, OpenAIChunk>;

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
