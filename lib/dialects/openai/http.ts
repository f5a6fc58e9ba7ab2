import { excerpt, isRecord } from '../../json/value';
import { commonErrorMessage } from '../errors';
import type { DialectHttp, EndpointConfig } from '../types';
import { endpointUrl } from '../url';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** Bearer auth when a key is set (local servers need none), OpenAI's organization header when given. */
export function openaiHeaders(endpoint: EndpointConfig): Record<string, string> {
	return {
		...endpoint.headers,
		...(endpoint.apiKey && { authorization: `Bearer ${endpoint.apiKey}` }),
		...(endpoint.organization && { 'openai-organization': endpoint.organization }),
	};
}

/** `{error:{message}}`, `{error:"..."}`, and vLLM's `{object:"error",message}` or FastAPI's `{detail}`. */
export function openaiErrorMessage(body: unknown): string | undefined {
	const common = commonErrorMessage(body);
	if (common !== undefined || !isRecord(body)) return common;
	if (body.object === 'error' && typeof body.message === 'string') return body.message;
	if (body.detail !== undefined && body.choices === undefined) return excerpt(body.detail);
	return undefined;
}

/**
 * GET /models answers `{object:"list", data:[{id}]}`; some compatible servers (Together AI) answer
 * the bare array of models.
 */
export function parseOpenAIModels(body: unknown): string[] {
	const data = Array.isArray(body)
		? body
		: isRecord(body) && Array.isArray(body.data)
			? body.data
			: [];
	return data
		.map((model) => (isRecord(model) && typeof model.id === 'string' ? model.id : ''))
		.filter((id) => id !== '');
}

export function openaiHttp(path: string): DialectHttp {
	return {
		url: (endpoint) => endpointUrl(endpoint.baseUrl, path),
		headers: openaiHeaders,
		streamFraming: 'sse',
		errorMessage: openaiErrorMessage,
		modelsUrl: (endpoint) => endpointUrl(endpoint.baseUrl, '/models'),
		parseModels: parseOpenAIModels,
	};
}
