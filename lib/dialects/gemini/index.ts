import type { Dialect } from '../types';
import { geminiHttp } from './http';
import { buildGeminiRequest } from './request';
import { parseGeminiResponse } from './response';
import { createGeminiStreamAssembler } from './stream';
import type { GeminiRequest, GeminiResponse } from './wire';

/** Google Gemini generateContent (the Gemini API; Vertex AI's endpoint speaks the same body). */
export type GeminiDialect = Dialect<GeminiRequest, GeminiResponse, GeminiResponse>;

export const geminiDialect: GeminiDialect = {
	id: 'gemini',
	http: geminiHttp,
	buildRequest: buildGeminiRequest,
	parseResponse: parseGeminiResponse,
	createStreamAssembler: createGeminiStreamAssembler,
};
