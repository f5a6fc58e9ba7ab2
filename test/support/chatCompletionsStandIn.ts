/**
 * A local HTTP endpoint that stands in for a vendor's OpenAI Chat Completions API, because no
 * model API is reachable from the machines the tests run on. Reply shapes follow the openai
 * SDK's type definitions (resources/chat/completions) and OpenAI's documented wire format,
 * streaming included: SSE `data:` frames of `chat.completion.chunk`s ending in `data: [DONE]`.
 *
 * Tests script the replies in order; each POST /v1/chat/completions that passes the request
 * checks OpenAI makes consumes one, so an SDK retry after a 429 or 5xx consumes the next one too.
 * The same scripted answer is served as one `chat.completion` or as chunks, as the request's
 * `stream` flag asks. Every request is recorded so tests can assert what the client sent.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type {
	ChatCompletion,
	ChatCompletionChunk,
	ChatCompletionCreateParams,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Model } from 'openai/resources/models';

export type FinishReason = ChatCompletion.Choice['finish_reason'];

export interface ScriptedToolCall {
	/** Generated as OpenAI shapes them (`call_…`) when left out. */
	id?: string;
	name: string;
	/** Sent as given: tests may script invalid JSON on purpose. */
	arguments: string;
}

export interface AnswerOptions {
	/** Token counts; null leaves usage out, as some compatible vendors do. */
	usage?: CompletionUsage | null;
	finishReason?: FinishReason;
	/** The model named in the reply; the requested one when left out. */
	model?: string;
}

export interface AnswerTurn {
	kind: 'answer';
	content: string | null;
	toolCalls: Array<Required<ScriptedToolCall>>;
	finishReason: FinishReason;
	usage: CompletionUsage | null;
	model?: string;
}

export interface OpenAIErrorBody {
	error: { message: string; type: string; param: string | null; code: string | null };
}

export interface ErrorTurn {
	kind: 'error';
	status: number;
	body: OpenAIErrorBody;
	headers: Record<string, string>;
}

/** An answer whose connection drops after `afterChunks` SSE frames (mid-body when not streamed). */
export interface CutTurn {
	kind: 'cut';
	answer: AnswerTurn;
	afterChunks: number;
}

/** Sent byte for byte, for shapes the other kinds do not make (non-JSON bodies, errors inside a stream). */
export interface RawTurn {
	kind: 'raw';
	status: number;
	body: string;
	headers: Record<string, string>;
}

export type Turn = AnswerTurn | ErrorTurn | CutTurn | RawTurn;

export interface RecordedRequest {
	method: string;
	/** Path and query as sent, e.g. `/v1/chat/completions`. */
	path: string;
	/** Lower-cased names, repeated headers joined with `, `. */
	headers: Record<string, string>;
	/** The parsed JSON body, undefined when empty or not JSON; typed for reading, never checked. */
	body: ChatCompletionCreateParams | undefined;
}

export interface StandInOptions {
	/** What GET /v1/models lists: ids, or whole entries. */
	models?: Array<string | Model>;
	/** When set, every request must carry `Authorization: Bearer <apiKey>` or gets OpenAI's 401. */
	apiKey?: string;
}

export interface ChatCompletionsStandIn {
	/** `http://127.0.0.1:PORT/v1`, the SDK's `baseURL`. */
	baseURL: string;
	requests: RecordedRequest[];
	/** Queues replies, consumed one per POST /v1/chat/completions in order. */
	script(...turns: Turn[]): void;
	/** Scripted replies not yet consumed. */
	remaining(): number;
	close(): Promise<void>;
}

const DEFAULT_USAGE: CompletionUsage = {
	prompt_tokens: 21,
	completion_tokens: 9,
	total_tokens: 30,
	prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
	completion_tokens_details: {
		reasoning_tokens: 0,
		audio_tokens: 0,
		accepted_prediction_tokens: 0,
		rejected_prediction_tokens: 0,
	},
};

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

function randomId(prefix: string, length: number): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	return prefix + Array.from(randomBytes(length), (b) => alphabet[b % alphabet.length]).join('');
}

function errorBody(status: number, error: string | Partial<OpenAIErrorBody['error']>): OpenAIErrorBody {
	const fallback = DEFAULT_ERRORS[status] ?? {
		message: `Request failed with status ${status}.`,
		type: status >= 500 ? 'server_error' : 'invalid_request_error',
		param: null,
		code: null,
	};
	return { error: { ...fallback, ...(typeof error === 'string' ? { message: error } : error) } };
}

function answer(
	content: string | null,
	calls: ScriptedToolCall[],
	finishReason: FinishReason,
	options: AnswerOptions,
): AnswerTurn {
	return {
		kind: 'answer',
		content,
		// Ids are fixed here, so a turn served twice (streamed and not) names its calls alike.
		toolCalls: calls.map((c) => ({ id: c.id ?? randomId('call_', 24), name: c.name, arguments: c.arguments })),
		finishReason: options.finishReason ?? finishReason,
		usage: options.usage === undefined ? DEFAULT_USAGE : options.usage,
		model: options.model,
	};
}

/** Builders for scripted turns. */
export const reply = {
	text(content: string, options: AnswerOptions = {}): AnswerTurn {
		return answer(content, [], 'stop', options);
	},
	/** `content` is text some models send before their calls. */
	toolCalls(calls: ScriptedToolCall[], options: AnswerOptions & { content?: string } = {}): AnswerTurn {
		return answer(options.content ?? null, calls, 'tool_calls', options);
	},
	/** OpenAI's error body; fields left out take the status's usual values. */
	error(
		status: number,
		error: string | Partial<OpenAIErrorBody['error']> = {},
		headers: Record<string, string> = {},
	): ErrorTurn {
		return { kind: 'error', status, body: errorBody(status, error), headers };
	},
	/** A 429 with `Retry-After` in seconds, which the SDK waits before retrying. */
	rateLimited(retryAfterSeconds: number): ErrorTurn {
		return reply.error(429, {}, { 'retry-after': String(retryAfterSeconds) });
	},
	cutStream(
		afterChunks: number,
		of: AnswerTurn = reply.text('This answer is cut off before it ends.'),
	): CutTurn {
		return { kind: 'cut', answer: of, afterChunks };
	},
	raw(
		status: number,
		body: string,
		headers: Record<string, string> = { 'content-type': 'application/json' },
	): RawTurn {
		return { kind: 'raw', status, body, headers };
	},
};

/** Piece lengths in code points, cycled: they land mid-key, mid-value and between `\` and what it escapes. */
const PIECE_LENGTHS = [1, 4, 2, 7, 3, 5];

function splitAwkwardly(text: string): string[] {
	const points = Array.from(text);
	const pieces: string[] = [];
	for (let at = 0, n = 0; at < points.length; n++) {
		const length = PIECE_LENGTHS[n % PIECE_LENGTHS.length];
		pieces.push(points.slice(at, at + length).join(''));
		at += length;
	}
	return pieces;
}

interface ServedMeta {
	id: string;
	created: number;
	model: string;
	systemFingerprint: string;
}

function completionBody(turn: AnswerTurn, meta: ServedMeta): ChatCompletion {
	const message: ChatCompletion.Choice['message'] = {
		role: 'assistant',
		content: turn.content,
		// OpenAI leaves the key out when there are no calls.
		...(turn.toolCalls.length > 0
			? {
					tool_calls: turn.toolCalls.map((c) => ({
						id: c.id,
						type: 'function' as const,
						function: { name: c.name, arguments: c.arguments },
					})),
				}
			: {}),
		refusal: null,
		annotations: [],
	};
	return {
		id: meta.id,
		object: 'chat.completion',
		created: meta.created,
		model: meta.model,
		choices: [{ index: 0, message, logprobs: null, finish_reason: turn.finishReason }],
		...(turn.usage ? { usage: turn.usage } : {}),
		service_tier: 'default',
		system_fingerprint: meta.systemFingerprint,
	};
}

type Delta = ChatCompletionChunk.Choice['delta'];

/** The chunks OpenAI streams for an answer, in its order: role, content, calls, finish, usage. */
function completionChunks(
	turn: AnswerTurn,
	meta: ServedMeta,
	streamOptions: { include_usage?: boolean; include_obfuscation?: boolean } | undefined,
): ChatCompletionChunk[] {
	const deltas: Delta[] = [];
	if (turn.content !== null) {
		deltas.push({ role: 'assistant', content: '', refusal: null });
		for (const piece of splitAwkwardly(turn.content)) deltas.push({ content: piece });
	}
	turn.toolCalls.forEach((call, index) => {
		// Only a call's first fragment names it; later ones carry argument pieces under the same index.
		const opening: Delta = {
			tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
		};
		// With no text before it, OpenAI sends the role in the same chunk as the first call opens.
		deltas.push(
			deltas.length === 0 ? { role: 'assistant', content: null, ...opening, refusal: null } : opening,
		);
		for (const piece of splitAwkwardly(call.arguments)) {
			deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
		}
	});
	if (deltas.length === 0) deltas.push({ role: 'assistant', content: null, refusal: null });

	const includeUsage = streamOptions?.include_usage === true && turn.usage !== null;
	const chunk = (choices: ChatCompletionChunk.Choice[], usage?: CompletionUsage): ChatCompletionChunk => ({
		id: meta.id,
		object: 'chat.completion.chunk',
		created: meta.created,
		model: meta.model,
		service_tier: 'default',
		system_fingerprint: meta.systemFingerprint,
		choices,
		// With include_usage every chunk has the key, null until the last one.
		...(includeUsage ? { usage: usage ?? null } : {}),
		// On by default; padding against length side channels, which clients must ignore.
		...(streamOptions?.include_obfuscation === false
			? {}
			: { obfuscation: randomId('', 1 + (randomBytes(1)[0] % 16)) }),
	});
	const chunks = deltas.map((delta) => chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]));
	chunks.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: turn.finishReason }]));
	if (includeUsage && turn.usage) chunks.push(chunk([], turn.usage));
	return chunks;
}

/** The checks OpenAI makes before generating, so a client's malformed request fails as it would there. */
function requestError(body: unknown): OpenAIErrorBody | undefined {
	if (typeof body !== 'object' || body === null) {
		return errorBody(400, {
			message:
				"We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
		});
	}
	const request = body as Record<string, unknown>;
	if (typeof request.model !== 'string' || request.model === '') {
		return errorBody(400, { message: 'you must provide a model parameter' });
	}
	if (!Array.isArray(request.messages)) {
		return errorBody(400, {
			message: "Missing required parameter: 'messages'.",
			param: 'messages',
			code: 'missing_required_parameter',
		});
	}
	if (request.stream_options != null && request.stream !== true) {
		return errorBody(400, {
			message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
			param: 'stream_options',
		});
	}
	if (request.tool_choice != null && !(Array.isArray(request.tools) && request.tools.length > 0)) {
		return errorBody(400, {
			message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
			param: 'tool_choice',
		});
	}
	return toolReplyError(request.messages as Array<Record<string, unknown>>);
}

/** Every tool call needs a tool message right after its assistant message, and every tool message a call. */
function toolReplyError(messages: Array<Record<string, unknown>>): OpenAIErrorBody | undefined {
	let awaiting = new Set<string>();
	let assistantAt = -1;
	const unanswered = (at: number) =>
		errorBody(400, {
			message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`,
			param: `messages.[${at}].role`,
		});
	for (const [at, message] of messages.entries()) {
		if (message?.role === 'tool') {
			if (!awaiting.delete(String(message.tool_call_id))) {
				return errorBody(400, {
					// OpenAI's spelling.
					message:
						"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
					param: `messages.[${at}].role`,
				});
			}
			continue;
		}
		if (awaiting.size > 0) return unanswered(at);
		const calls = message?.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls : [];
		awaiting = new Set(calls.map((c: { id?: unknown }) => String(c?.id)));
		assistantAt = at;
	}
	return awaiting.size > 0 ? unanswered(assistantAt) : undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const parts: Buffer[] = [];
		req.on('data', (part: Buffer) => parts.push(part));
		req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
		req.on('error', reject);
	});
}

function write(res: ServerResponse, data: string): Promise<void> {
	return new Promise((resolve, reject) => res.write(data, (err) => (err ? reject(err) : resolve())));
}

function sendJson(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
}

async function serveAnswer(
	res: ServerResponse,
	turn: AnswerTurn,
	request: Record<string, unknown>,
	cutAfter: number | undefined,
): Promise<void> {
	const meta: ServedMeta = {
		id: randomId('chatcmpl-', 29),
		created: Math.floor(Date.now() / 1000),
		model: turn.model ?? String(request.model),
		systemFingerprint: 'fp_' + randomBytes(5).toString('hex'),
	};
	if (request.stream !== true) {
		const completion = completionBody(turn, meta);
		if (cutAfter === undefined) return sendJson(res, 200, completion);
		const json = JSON.stringify(completion);
		res.writeHead(200, { 'content-type': 'application/json' });
		await write(res, json.slice(0, Math.floor(json.length / 2)));
		res.socket?.end();
		return;
	}
	const streamOptions = request.stream_options as Parameters<typeof completionChunks>[2];
	const chunks = completionChunks(turn, meta, streamOptions);
	res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
	res.flushHeaders();
	for (const [n, chunk] of chunks.entries()) {
		if (n === cutAfter) break;
		await write(res, `data: ${JSON.stringify(chunk)}\n\n`);
	}
	if (cutAfter !== undefined) {
		// Ending the socket (not the response) flushes what was written, then closes before [DONE].
		res.socket?.end();
		return;
	}
	await write(res, 'data: [DONE]\n\n');
	res.end();
}

export async function startChatCompletionsStandIn(
	options: StandInOptions = {},
): Promise<ChatCompletionsStandIn> {
	const requests: RecordedRequest[] = [];
	const turns: Turn[] = [];
	const sockets = new Set<Socket>();
	const models: Model[] = (options.models ?? DEFAULT_MODELS).map((m) =>
		typeof m === 'string' ? { id: m, object: 'model', created: 1715367049, owned_by: 'system' } : m,
	);

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const text = await readBody(req);
		let body: unknown;
		try {
			body = text === '' ? undefined : JSON.parse(text);
		} catch {
			body = undefined;
		}
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(req.headers)) {
			if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
		}
		const method = req.method ?? 'GET';
		const path = req.url ?? '/';
		requests.push({ method, path, headers, body: body as RecordedRequest['body'] });
		res.setHeader('x-request-id', 'req_' + randomBytes(16).toString('hex'));
		res.setHeader('openai-version', '2020-10-01');

		if (options.apiKey !== undefined && headers.authorization !== `Bearer ${options.apiKey}`) {
			return sendJson(
				res,
				401,
				errorBody(
					401,
					headers.authorization
						? {}
						: {
								message:
									"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
								code: null,
							},
				),
			);
		}
		const route = `${method} ${path.split('?')[0]}`;
		if (route === 'GET /v1/models') return sendJson(res, 200, { object: 'list', data: models });
		if (route !== 'POST /v1/chat/completions') {
			return sendJson(res, 404, errorBody(404, { message: `Invalid URL (${method} ${path})`, code: null }));
		}
		const invalid = requestError(body);
		if (invalid) return sendJson(res, 400, invalid);

		const turn = turns.shift();
		if (!turn) {
			// x-should-retry stops the SDK retrying, so the test fails at once on this message.
			return sendJson(
				res,
				500,
				errorBody(500, {
					message: `The stand-in's script ran out: nothing scripted for request ${requests.length} (${route}).`,
				}),
				{ 'x-should-retry': 'false' },
			);
		}
		const request = body as Record<string, unknown>;
		switch (turn.kind) {
			case 'answer':
				return serveAnswer(res, turn, request, undefined);
			case 'cut':
				return serveAnswer(res, turn.answer, request, turn.afterChunks);
			case 'error':
				return sendJson(res, turn.status, turn.body, turn.headers);
			case 'raw':
				res.writeHead(turn.status, turn.headers);
				res.end(turn.body);
				return;
		}
	}

	const server = createServer((req, res) => {
		handle(req, res).catch(() => {
			// The client went away mid-reply (an aborted stream, say): nothing is left to answer.
			res.destroy();
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		baseURL: `http://127.0.0.1:${port}/v1`,
		requests,
		script(...more) {
			turns.push(...more);
		},
		remaining: () => turns.length,
		close() {
			// Connections the client pools, or that are mid-request, would hold close() open: end them now.
			for (const socket of sockets) socket.destroy();
			return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
		},
	};
}
