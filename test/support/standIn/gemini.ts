/**
 * The Google Gemini API (generateContent) side of the local stand-in (server.ts), which replaces the
 * vendor's API because no model API is reachable where tests run. Shapes follow Google's Gemini API
 * reference (generateContent, streamGenerateContent, function calling, thought signatures, errors),
 * the @google/genai type definitions and captured replies in the Vercel AI SDK's fixtures
 * (packages/google/src/__fixtures__): `functionCall` parts sent whole, with `args` as an object and
 * usually no `id`; Gemini 3's `thoughtSignature` on the first functionCall part of a turn; streams as
 * SSE `data:` frames (`?alt=sse`) or one JSON array; errors as `{error: {code, message, status}}`.
 * Error wording is the API's own, as quoted in public bug reports.
 */
import type { AnswerTurn, ErrorFields, FinishReason } from './turns';
import {
	argumentsObject,
	isRecord,
	splitAwkwardly,
	vendorId,
	type ModelCall,
	type ModelEntry,
	type Wire,
	type WireOptions,
	type WireReply,
	type WireRequest,
	type WireStream,
} from './wire';

export interface GeminiPart {
	text?: string;
	functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
	functionResponse?: { name: string; id?: string; response: Record<string, unknown> };
	thoughtSignature?: string;
	thought?: boolean;
	[field: string]: unknown;
}

export interface GeminiContent {
	role?: string;
	parts: GeminiPart[];
}

export interface GeminiRequest {
	contents: GeminiContent[];
	systemInstruction?: GeminiContent;
	tools?: Array<{
		functionDeclarations?: Array<{ name: string; description?: string; [field: string]: unknown }>;
	}>;
	toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
	generationConfig?: Record<string, unknown>;
	[field: string]: unknown;
}

const STATUSES: Record<number, [status: string, message: string]> = {
	400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
	401: ['UNAUTHENTICATED', 'Request had invalid authentication credentials.'],
	403: ['PERMISSION_DENIED', 'The caller does not have permission'],
	404: ['NOT_FOUND', 'Requested entity was not found.'],
	429: [
		'RESOURCE_EXHAUSTED',
		'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
	],
	500: [
		'INTERNAL',
		'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
	],
	503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
	504: ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'],
};

const FINISH_REASONS: Record<FinishReason, string> = {
	stop: 'STOP',
	tool_calls: 'STOP',
	function_call: 'STOP',
	length: 'MAX_TOKENS',
	content_filter: 'SAFETY',
};

const DEFAULT_MODELS = ['gemini-2.5-flash', 'gemini-3-pro-preview'];

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function geminiError(
	status: number,
	fields: ErrorFields = {},
	retryAfterSeconds?: number,
): WireReply {
	const [name, message] = STATUSES[status] ?? [
		status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT',
		`Request failed with status ${status}.`,
	];
	// Gemini tells how long to wait inside the body, not in a Retry-After header.
	const retry =
		retryAfterSeconds === undefined
			? {}
			: {
					details: [
						{
							'@type': 'type.googleapis.com/google.rpc.RetryInfo',
							retryDelay: `${retryAfterSeconds}s`,
						},
					],
				};
	return { status, body: { error: { code: status, message, status: name, ...retry, ...fields } } };
}

const invalid = (message: string) => geminiError(400, { message });

const partsOf = (content: unknown): GeminiPart[] =>
	isRecord(content) && Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
const callsIn = (content: unknown) => partsOf(content).filter((p) => p.functionCall !== undefined);
const responsesIn = (content: unknown) =>
	partsOf(content).filter((p) => p.functionResponse !== undefined);

/** Calls come right after a user turn and are answered, one response per call, by the next turn. */
function pairingError(contents: Array<Record<string, unknown>>): WireReply | undefined {
	for (const [at, content] of contents.entries()) {
		const previous = contents[at - 1];
		if (callsIn(content).length > 0 && (previous === undefined || previous.role === 'model')) {
			return invalid(
				'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
			);
		}
		const responses = responsesIn(content);
		if (responses.length === 0 && !(previous?.role === 'model' && callsIn(previous).length > 0))
			continue;
		if (previous?.role !== 'model' || callsIn(previous).length === 0) {
			return invalid(
				'Please ensure that function response turn comes immediately after a function call turn.',
			);
		}
		if (responses.length !== callsIn(previous).length) {
			return invalid(
				'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
			);
		}
	}
	return undefined;
}

/** Gemini 3 wants each call step of the current turn to echo the signature on its first functionCall part. */
function signatureError(contents: Array<Record<string, unknown>>): WireReply | undefined {
	// The current turn starts after the last user message that is not only function responses.
	const lastUserText = contents.findLastIndex(
		(c) => c.role !== 'model' && partsOf(c).some((p) => p.functionResponse === undefined),
	);
	for (let at = lastUserText + 1; at < contents.length; at++) {
		const [first] = callsIn(contents[at]);
		if (contents[at].role !== 'model' || !first || typeof first.thoughtSignature === 'string')
			continue;
		return invalid(
			`Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.functionCall?.name}\` , position ${at + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
		);
	}
	return undefined;
}

/** Gemini counts thoughts apart from the candidates' tokens, and leaves out a count of zero. */
function usageMetadata(turn: AnswerTurn) {
	if (!turn.usage) return {};
	const { prompt_tokens, completion_tokens, total_tokens } = turn.usage;
	const cached = turn.usage.prompt_tokens_details?.cached_tokens ?? 0;
	const thoughts = turn.usage.completion_tokens_details?.reasoning_tokens ?? 0;
	return {
		usageMetadata: {
			promptTokenCount: prompt_tokens,
			candidatesTokenCount: completion_tokens - thoughts,
			totalTokenCount: total_tokens,
			promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt_tokens }],
			...(cached > 0 && { cachedContentTokenCount: cached }),
			...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
		},
	};
}

export function geminiWire(options: WireOptions): Wire {
	const signing = options.thoughtSignatures !== false;
	// Once the stand-in has signed a call, later requests must echo signatures, as Gemini 3 checks.
	let signed = false;

	/** The turn's functionCall parts, or undefined when some arguments are not an object (a malformed call). */
	function callParts(turn: AnswerTurn): GeminiPart[] | undefined {
		const parts: GeminiPart[] = [];
		for (const [index, call] of turn.toolCalls.entries()) {
			const args = argumentsObject(call.arguments);
			if (!args) return undefined;
			parts.push({
				functionCall: { name: call.name, args, ...(call.id === undefined ? {} : { id: call.id }) },
				...(index === 0 && signing
					? { thoughtSignature: vendorId('Eq', 120, undefined, BASE64) }
					: {}),
			});
		}
		signed ||= signing && parts.length > 0;
		return parts;
	}

	/** One generateContent reply per candidate state; a stream is several, the last with the finish reason. */
	function chunk(
		turn: AnswerTurn,
		call: ModelCall,
		responseId: string,
		parts: GeminiPart[],
		finish?: string,
	) {
		const candidate =
			finish === 'MALFORMED_FUNCTION_CALL'
				? {
						finishReason: finish,
						index: 0,
						finishMessage: 'Malformed function call: the arguments are not a JSON object.',
					}
				: {
						content: { parts, role: 'model' },
						...(finish ? { finishReason: finish } : {}),
						index: 0,
					};
		return {
			candidates: [candidate],
			...usageMetadata(turn),
			modelVersion: turn.model ?? call.model,
			responseId,
		};
	}

	function whole(turn: AnswerTurn, call: ModelCall) {
		const calls = callParts(turn);
		if (!calls) return chunk(turn, call, vendorId('', 23), [], 'MALFORMED_FUNCTION_CALL');
		const parts = [...(turn.content === null ? [] : [{ text: turn.content }]), ...calls];
		return chunk(
			turn,
			call,
			vendorId('', 23),
			parts.length > 0 ? parts : [{ text: '' }],
			FINISH_REASONS[turn.finishReason],
		);
	}

	function chunks(turn: AnswerTurn, call: ModelCall): object[] {
		const responseId = vendorId('', 23);
		const calls = callParts(turn);
		const finish = calls ? FINISH_REASONS[turn.finishReason] : 'MALFORMED_FUNCTION_CALL';
		const all = (turn.content === null ? [] : splitAwkwardly(turn.content)).map(
			(text): GeminiPart[] => [{ text }],
		);
		if (calls && calls.length > 0) all.push(calls);
		// A turn ending in calls (or with nothing) gets a last chunk of empty text carrying the finish reason.
		const last = calls?.length === 0 && all.length > 0 ? all.pop()! : [{ text: '' }];
		return [
			...all.map((parts) => chunk(turn, call, responseId, parts)),
			chunk(turn, call, responseId, last, finish),
		];
	}

	return {
		basePath: '/v1beta',
		replyHeaders: () => ({}),
		route({ method, pathname }) {
			if (method === 'GET' && pathname === '/v1beta/models') return { kind: 'models' };
			const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(
				pathname,
			);
			if (method !== 'POST' || !match) return undefined;
			return {
				kind: 'generate',
				model: decodeURIComponent(match[1]),
				stream: match[2] === 'streamGenerateContent',
			};
		},
		checkAuth({ headers, query }, apiKey) {
			const key = headers['x-goog-api-key'] ?? query.get('key');
			if (!key) {
				return geminiError(403, {
					message:
						"Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
				});
			}
			if (apiKey === undefined || key === apiKey) return undefined;
			return geminiError(400, {
				message: 'API key not valid. Please pass a valid API key.',
				details: [
					{
						'@type': 'type.googleapis.com/google.rpc.ErrorInfo',
						reason: 'API_KEY_INVALID',
						domain: 'googleapis.com',
						metadata: { service: 'generativelanguage.googleapis.com' },
					},
				],
			});
		},
		validate(request: WireRequest) {
			if (!isRecord(request.body))
				return invalid('Invalid JSON payload received. Unexpected token.');
			const { contents } = request.body;
			if (!Array.isArray(contents) || contents.length === 0) {
				return invalid('* GenerateContentRequest.contents: contents is not specified\n');
			}
			for (const [at, content] of contents.entries()) {
				if (
					!isRecord(content) ||
					(content.role !== undefined && content.role !== 'user' && content.role !== 'model')
				) {
					return invalid('Please use a valid role: user, model.');
				}
				if (partsOf(content).length === 0) {
					return invalid(
						`* GenerateContentRequest.contents[${at}].parts: contents.parts must not be empty.\n`,
					);
				}
			}
			return pairingError(contents) ?? (signed ? signatureError(contents) : undefined);
		},
		answer: (turn, call) => ({ status: 200, body: whole(turn, call) }),
		stream(turn, call, request): WireStream {
			const all = chunks(turn, call);
			if (request.query.get('alt') === 'sse') {
				return {
					headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
					frames: all.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
				};
			}
			// Without alt=sse Gemini streams one JSON array, element by element.
			const frames = all.map((c, n) => `${n === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}`);
			return {
				headers: { 'content-type': 'application/json; charset=UTF-8' },
				frames: [...frames, ']'],
			};
		},
		error: geminiError,
		notFound: () => geminiError(404),
		modelList(models: ModelEntry[] = DEFAULT_MODELS) {
			return {
				models: models.map((m) =>
					typeof m === 'string'
						? {
								name: `models/${m}`,
								version: '001',
								displayName: m,
								inputTokenLimit: 1048576,
								outputTokenLimit: 65536,
								supportedGenerationMethods: [
									'generateContent',
									'countTokens',
									'createCachedContent',
									'batchGenerateContent',
								],
								temperature: 1,
								topP: 0.95,
								topK: 64,
								maxTemperature: 2,
								thinking: true,
							}
						: m,
				),
			};
		},
	};
}
