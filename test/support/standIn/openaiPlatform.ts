/**
 * What OpenAI's two model APIs (Chat Completions and Responses) share in the local stand-ins for
 * them, which replace the vendor's API because no model API is reachable where tests run: the
 * `/v1` base path, Bearer keys, error bodies, request headers and the model list, shaped as the
 * openai SDK's types (resources/models, core/error) and OpenAI's documented error codes show.
 */
import { randomBytes } from 'node:crypto';
import type { Model } from 'openai/resources/models';
import type { ErrorFields } from './turns';
import {
	isRecord,
	vendorId,
	type ModelEntry,
	type Wire,
	type WireReply,
	type WireRequest,
} from './wire';

export interface OpenAIErrorBody {
	error: { message: string; type: string; param: string | null; code: string | null };
}

const DEFAULT_MODELS = ['gpt-4o-mini', 'gpt-4.1'];

// Defaults worded as OpenAI words them, so clients that show vendor messages are tested on real text.
const DEFAULT_ERRORS: Record<number, OpenAIErrorBody['error']> = {
	400: { message: 'Invalid request.', type: 'invalid_request_error', param: null, code: null },
	401: {
		message:
			'Incorrect API key provided: sk-test***. You can find your API key at https://platform.openai.com/account/api-keys.',
		type: 'invalid_request_error',
		param: null,
		code: 'invalid_api_key',
	},
	404: {
		message: 'The model does not exist or you do not have access to it.',
		type: 'invalid_request_error',
		param: null,
		code: 'model_not_found',
	},
	429: {
		message:
			'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
		type: 'requests',
		param: null,
		code: 'rate_limit_exceeded',
	},
	500: {
		message: 'The server had an error while processing your request. Sorry about that!',
		type: 'server_error',
		param: null,
		code: null,
	},
};

export function openAIError(
	status: number,
	fields: ErrorFields = {},
	retryAfterSeconds?: number,
): WireReply {
	const fallback = DEFAULT_ERRORS[status] ?? {
		message: `Request failed with status ${status}.`,
		type: status >= 500 ? 'server_error' : 'invalid_request_error',
		param: null,
		code: null,
	};
	return {
		status,
		headers: retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
		body: { error: { ...fallback, ...fields } },
	};
}

export const invalidRequest = (fields: ErrorFields) => openAIError(400, fields);

/** The parts of a wire both OpenAI APIs have alike; `generatePath` is the one model call path. */
export function openAIPlatform(
	generatePath: string,
): Pick<
	Wire,
	'basePath' | 'replyHeaders' | 'route' | 'checkAuth' | 'error' | 'notFound' | 'modelList'
> {
	return {
		basePath: '/v1',
		replyHeaders: () => ({
			'x-request-id': 'req_' + randomBytes(16).toString('hex'),
			'openai-version': '2020-10-01',
		}),
		route({ method, pathname, body }) {
			if (method === 'GET' && pathname === '/v1/models') return { kind: 'models' };
			if (method !== 'POST' || pathname !== generatePath) return undefined;
			const request = isRecord(body) ? body : {};
			return {
				kind: 'generate',
				model: String(request.model ?? ''),
				stream: request.stream === true,
			};
		},
		checkAuth({ headers }, apiKey) {
			if (apiKey === undefined || headers.authorization === `Bearer ${apiKey}`) return undefined;
			if (headers.authorization) return openAIError(401);
			return openAIError(401, {
				message:
					"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
				code: null,
			});
		},
		error: openAIError,
		notFound: ({ method, url }) =>
			openAIError(404, { message: `Invalid URL (${method} ${url})`, code: null }),
		modelList(models: ModelEntry[] = DEFAULT_MODELS) {
			const data: Model[] = models.map((m) =>
				typeof m === 'string'
					? { id: m, object: 'model', created: 1715367049, owned_by: 'system' }
					: (m as Model),
			);
			return { object: 'list', data };
		},
	};
}

/** The checks both APIs make first: a JSON body naming a model. */
export function bodyError(request: WireRequest, missingModel: ErrorFields): WireReply | undefined {
	if (!isRecord(request.body)) {
		return invalidRequest({
			message:
				"We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
		});
	}
	const model = request.body.model;
	return typeof model === 'string' && model !== '' ? undefined : invalidRequest(missingModel);
}

/** Padding OpenAI adds to stream events against length side channels (on unless turned off). */
export function obfuscation(streamOptions: unknown): { obfuscation?: string } {
	if (isRecord(streamOptions) && streamOptions.include_obfuscation === false) return {};
	return { obfuscation: vendorId('', 1 + (randomBytes(1)[0] % 16)) };
}

/** A fingerprint in OpenAI's `fp_<hex>` form. */
export function systemFingerprint(): string {
	return 'fp_' + randomBytes(5).toString('hex');
}
