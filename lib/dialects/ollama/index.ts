import type { Dialect } from '../types';
import { ollamaHttp } from './http';
import { buildOllamaRequest } from './request';
import { parseOllamaResponse } from './response';
import { createOllamaStreamAssembler } from './stream';
import type { OllamaChatRequest, OllamaChatResponse } from './wire';

/** Ollama's native /api/chat (its /v1 speaks the OpenAI dialect). */
export type OllamaDialect = Dialect<OllamaChatRequest, OllamaChatResponse, OllamaChatResponse>;

export const ollamaDialect: OllamaDialect = {
	id: 'ollama',
	http: ollamaHttp,
	buildRequest: buildOllamaRequest,
	parseResponse: parseOllamaResponse,
	createStreamAssembler: createOllamaStreamAssembler,
};
