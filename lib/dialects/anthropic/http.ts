import { isRecord } from '../../json/value';
import { commonErrorMessage } from '../errors';
import type { DialectHttp, EndpointConfig } from '../types';
import { endpointUrl } from '../url';

/** Without /v1: the paths below carry it, as Anthropic's own SDKs do. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The API version every request must name; the endpoint's `version` replaces it. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** x-api-key when a key is set (a local gateway may need none), and the required anthropic-version. */
export function anthropicHeaders(endpoint: EndpointConfig): Record<string, string> {
	return {
		...endpoint.headers,
		...(endpoint.apiKey && { 'x-api-key': endpoint.apiKey }),
		'anthropic-version': endpoint.version || ANTHROPIC_VERSION,
	};
}

/**
 * `{type:"error", error:{type, message}}`, as a body and as a streamed `error` event; the error type
 * (overloaded_error, invalid_request_error, …) is kept beside the message. Gateways' `{error:"..."}` too.
 */
export function anthropicErrorMessage(body: unknown): string | undefined {
	const error = isRecord(body) ? body.error : undefined;
	if (isRecord(error) && typeof error.message === 'string' && typeof error.type === 'string') {
		return `${error.message} (${error.type})`;
	}
	return commonErrorMessage(body);
}

/** GET /v1/models answers `{data:[{id, display_name, …}], has_more}`; 1000 is the largest page. */
export function parseAnthropicModels(body: unknown): string[] {
	const data = isRecord(body) && Array.isArray(body.data) ? body.data : [];
	return data
		.map((model) => (isRecord(model) && typeof model.id === 'string' ? model.id : ''))
		.filter((id) => id !== '');
}

export const anthropicHttp: DialectHttp = {
	url: (endpoint) => endpointUrl(endpoint.baseUrl, '/v1/messages'),
	headers: anthropicHeaders,
	streamFraming: 'sse',
	errorMessage: anthropicErrorMessage,
	modelsUrl: (endpoint) => endpointUrl(endpoint.baseUrl, '/v1/models', { limit: '1000' }),
	parseModels: parseAnthropicModels,
};
