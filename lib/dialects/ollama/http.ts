import { isRecord } from '../../json/value';
import { commonErrorMessage } from '../errors';
import type { DialectHttp, EndpointConfig } from '../types';
import { endpointUrl } from '../url';

export const OLLAMA_BASE_URL = 'http://localhost:11434';

/** A local Ollama needs no key; ollama.com's API and authenticating proxies take a bearer token. */
function ollamaHeaders(endpoint: EndpointConfig): Record<string, string> {
	return {
		...endpoint.headers,
		...(endpoint.apiKey && { authorization: `Bearer ${endpoint.apiKey}` }),
	};
}

/** GET /api/tags answers `{models:[{name, model, ...}]}`; both hold the name a request uses. */
export function parseOllamaModels(body: unknown): string[] {
	const models = isRecord(body) && Array.isArray(body.models) ? body.models : [];
	return models
		.map((model) => (isRecord(model) ? (model.name ?? model.model) : undefined))
		.filter((name): name is string => typeof name === 'string' && name !== '');
}

export const ollamaHttp: DialectHttp = {
	url: (endpoint) => endpointUrl(endpoint.baseUrl, '/api/chat'),
	headers: ollamaHeaders,
	// Ollama streams one JSON object per line (application/x-ndjson), not Server-Sent Events.
	streamFraming: 'ndjson',
	// Ollama's errors are `{error:"..."}`, with a 4xx/5xx status or as a line in a started stream.
	errorMessage: commonErrorMessage,
	modelsUrl: (endpoint) => endpointUrl(endpoint.baseUrl, '/api/tags'),
	parseModels: parseOllamaModels,
};
