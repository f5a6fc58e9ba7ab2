import { isRecord } from '../../json/value';
import { commonErrorMessage } from '../errors';
import type { DialectHttp, EndpointConfig } from '../types';
import { endpointUrl } from '../url';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * The model's resource path: "gemini-2.5-flash" and "models/gemini-2.5-flash" name the same model,
 * and a path that names its own collection ("tunedModels/…") is kept as it is.
 */
function modelPath(model: string): string {
	return model.includes('/') ? model : `models/${model}`;
}

/** The key goes in a header, not in the URL, so that it never shows in a logged URL. */
export function geminiHeaders(endpoint: EndpointConfig): Record<string, string> {
	return { ...endpoint.headers, ...(endpoint.apiKey && { 'x-goog-api-key': endpoint.apiKey }) };
}

/** `{error:{code, message, status}}`; the status ("RESOURCE_EXHAUSTED") is kept before the message. */
export function geminiErrorMessage(body: unknown): string | undefined {
	const error = isRecord(body) ? body.error : undefined;
	if (isRecord(error) && typeof error.status === 'string' && typeof error.message === 'string') {
		return `${error.status}: ${error.message}`;
	}
	return commonErrorMessage(body);
}

/**
 * GET /models answers `{models:[{name:"models/…", supportedGenerationMethods:[…]}], nextPageToken}`.
 * Models that cannot generateContent (embeddings, say) are left out; one page of 1000 holds them all.
 */
export function parseGeminiModels(body: unknown): string[] {
	const models = isRecord(body) && Array.isArray(body.models) ? body.models.filter(isRecord) : [];
	return models
		.filter(
			(model) =>
				!Array.isArray(model.supportedGenerationMethods) ||
				model.supportedGenerationMethods.includes('generateContent'),
		)
		.map((model) => (typeof model.name === 'string' ? model.name.replace(/^models\//, '') : ''))
		.filter((id) => id !== '');
}

export const geminiHttp: DialectHttp = {
	url: (endpoint, model, stream) =>
		stream
			? endpointUrl(endpoint.baseUrl, `/${modelPath(model)}:streamGenerateContent`, { alt: 'sse' })
			: endpointUrl(endpoint.baseUrl, `/${modelPath(model)}:generateContent`),
	headers: geminiHeaders,
	streamFraming: 'sse',
	errorMessage: geminiErrorMessage,
	modelsUrl: (endpoint) => endpointUrl(endpoint.baseUrl, '/models', { pageSize: '1000' }),
	parseModels: parseGeminiModels,
};
