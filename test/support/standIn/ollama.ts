/**
 * The Ollama native API (/api/chat, /api/tags) side of the local stand-in (server.ts), which
 * replaces the vendor's API because no model API is reachable where tests run. Shapes follow
 * Ollama's API documentation (docs/api.md, docs/api/errors.mdx) and its server source (api/types.go,
 * server/routes.go): streaming is on unless `stream: false`; a stream is NDJSON lines ending in one
 * with `done: true` and the metrics; tool calls arrive whole, `arguments` as an object, ids as
 * `call_` and eight characters; errors are `{"error": "…"}`, inside the stream once it has begun.
 */
import type { AnswerTurn, ErrorFields, TurnToolCall } from './turns';
import {
	argumentsObject,
	isRecord,
	splitAwkwardly,
	vendorId,
	type ModelCall,
	type ModelEntry,
	type Wire,
	type WireReply,
	type WireRequest,
} from './wire';

export interface OllamaToolCall {
	id?: string;
	function: { index?: number; name: string; arguments: Record<string, unknown> };
}

export interface OllamaMessage {
	role: string;
	content: string;
	thinking?: string;
	images?: string[];
	tool_calls?: OllamaToolCall[];
	tool_name?: string;
	tool_call_id?: string;
}

export interface OllamaChatRequest {
	model: string;
	messages: OllamaMessage[];
	tools?: Array<{
		type: 'function';
		function: { name: string; description?: string; parameters: object };
	}>;
	stream?: boolean;
	format?: unknown;
	options?: Record<string, unknown>;
	think?: boolean | string;
	keep_alive?: string | number;
}

const DEFAULT_MESSAGES: Record<number, string> = {
	400: 'invalid request',
	401: 'unauthorized',
	404: 'model not found',
	429: 'too many requests',
	500: 'the model failed to generate a response',
	503: 'server busy, please try again.  maximum pending requests exceeded',
};

const DEFAULT_MODELS = ['llama3.2:latest', 'qwen3:8b'];

const LOWER_ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
const toolCallId = (call: TurnToolCall) =>
	call.id ?? vendorId('call_', 8, call.idSeed, LOWER_ALPHANUMERIC);

function ollamaError(
	status: number,
	fields: ErrorFields = {},
	retryAfterSeconds?: number,
): WireReply {
	const { message, ...rest } = fields;
	return {
		status,
		headers: retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
		body: {
			error: message ?? DEFAULT_MESSAGES[status] ?? `request failed with status ${status}`,
			...rest,
		},
	};
}

/** The JSON kinds as Go's encoding/json names them in its errors. */
function goKind(value: unknown): string {
	if (Array.isArray(value)) return 'array';
	return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** Ollama binds the body to Go structs first, so ill-typed fields fail as encoding/json words it. */
function validate(request: WireRequest): WireReply | undefined {
	if (request.text === '') return ollamaError(400, { message: 'missing request body' });
	if (!isRecord(request.body)) return ollamaError(400, { message: 'unexpected EOF' });
	const { messages, model } = request.body;
	for (const message of Array.isArray(messages) ? messages : []) {
		// Tool results included: Ollama's content is a string, never parts.
		if (isRecord(message) && message.content != null && typeof message.content !== 'string') {
			return ollamaError(400, {
				message: `json: cannot unmarshal ${goKind(message.content)} into Go struct field ChatRequest.messages.content of type string`,
			});
		}
	}
	return typeof model === 'string' && model !== ''
		? undefined
		: ollamaError(400, { message: 'model is required' });
}

function metrics(turn: AnswerTurn) {
	if (!turn.usage) return {};
	return {
		total_duration: 182242375,
		load_duration: 41295167,
		prompt_eval_count: turn.usage.prompt_tokens,
		prompt_eval_duration: 24573166,
		eval_count: turn.usage.completion_tokens,
		eval_duration: 115959084,
	};
}

/** The turn's calls as Ollama sends them, or the error its parser gives for arguments that are not an object. */
function toolCalls(turn: AnswerTurn): OllamaToolCall[] | string {
	const calls: OllamaToolCall[] = [];
	for (const [index, call] of turn.toolCalls.entries()) {
		const args = argumentsObject(call.arguments);
		if (!args)
			return `error parsing tool call: raw='${call.arguments}', err=unexpected end of JSON input`;
		calls.push({ id: toolCallId(call), function: { index, name: call.name, arguments: args } });
	}
	return calls;
}

function line(call: ModelCall, turn: AnswerTurn, message: Partial<OllamaMessage>, done = false) {
	return {
		model: turn.model ?? call.model,
		created_at: new Date().toISOString(),
		message: { role: 'assistant', content: '', ...message },
		...(done
			? {
					done_reason: turn.finishReason === 'length' ? 'length' : 'stop',
					done: true,
					...metrics(turn),
				}
			: { done: false }),
	};
}

export function ollamaWire(): Wire {
	return {
		basePath: '',
		replyHeaders: () => ({}),
		route({ method, pathname, body }) {
			if (method === 'GET' && pathname === '/api/tags') return { kind: 'models' };
			if (method !== 'POST' || pathname !== '/api/chat') return undefined;
			const request = isRecord(body) ? body : {};
			// Ollama streams unless told not to.
			return {
				kind: 'generate',
				model: String(request.model ?? ''),
				stream: request.stream !== false,
			};
		},
		checkAuth({ headers }, apiKey) {
			return apiKey === undefined || headers.authorization === `Bearer ${apiKey}`
				? undefined
				: ollamaError(401);
		},
		validate,
		answer(turn, call) {
			const calls = toolCalls(turn);
			if (typeof calls === 'string') return ollamaError(500, { message: calls });
			const message = {
				content: turn.content ?? '',
				...(calls.length > 0 ? { tool_calls: calls } : {}),
			};
			return { status: 200, body: line(call, turn, message, true) };
		},
		stream(turn, call) {
			const calls = toolCalls(turn);
			const lines: object[] = splitAwkwardly(turn.content ?? '').map((content) =>
				line(call, turn, { content }),
			);
			if (typeof calls === 'string') lines.push({ error: calls });
			else {
				lines.push(...calls.map((c) => line(call, turn, { tool_calls: [c] })));
				lines.push(line(call, turn, {}, true));
			}
			return {
				headers: { 'content-type': 'application/x-ndjson' },
				frames: lines.map((l) => JSON.stringify(l) + '\n'),
			};
		},
		error: ollamaError,
		notFound: () => ({
			status: 404,
			headers: { 'content-type': 'text/plain' },
			body: '404 page not found',
		}),
		modelList(models: ModelEntry[] = DEFAULT_MODELS) {
			return {
				models: models.map((m) =>
					typeof m === 'string'
						? {
								name: m,
								model: m,
								modified_at: '2025-07-07T20:22:19.184789Z',
								size: 2019393189,
								digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
								details: {
									parent_model: '',
									format: 'gguf',
									family: 'llama',
									families: ['llama'],
									parameter_size: '3.2B',
									quantization_level: 'Q4_K_M',
								},
							}
						: m,
				),
			};
		},
	};
}
