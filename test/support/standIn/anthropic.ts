/**
 * The Anthropic Messages API side of the local stand-in (server.ts), which replaces the vendor's
 * API because no model API is reachable where tests run. Shapes follow Anthropic's API reference
 * (Messages, streaming, errors, models), the @anthropic-ai/sdk type definitions and captured
 * streams in the Vercel AI SDK's fixtures (packages/anthropic/src/__fixtures__): `text` and
 * `tool_use` content blocks with `toolu_…` ids; named SSE events message_start, content_block_start
 * / _delta / _stop (tool input as `input_json_delta` pieces), ping, message_delta, message_stop.
 * Error wording is the API's own, as quoted in public bug reports.
 */
import type { AnswerTurn, ErrorFields, FinishReason, TurnToolCall } from './turns';
import {
	argumentsObject,
	isRecord,
	SSE_HEADERS,
	splitAwkwardly,
	sseFrame,
	vendorId,
	type ModelCall,
	type ModelEntry,
	type Wire,
	type WireReply,
	type WireRequest,
} from './wire';

export interface AnthropicBlock {
	type: string;
	[field: string]: unknown;
}

export interface AnthropicRequest {
	model: string;
	max_tokens: number;
	messages: Array<{ role: 'user' | 'assistant'; content: string | AnthropicBlock[] }>;
	system?: string | AnthropicBlock[];
	tools?: Array<{ name: string; description?: string; input_schema: object }>;
	tool_choice?: {
		type: 'auto' | 'any' | 'none' | 'tool';
		name?: string;
		disable_parallel_tool_use?: boolean;
	};
	stream?: boolean;
	[field: string]: unknown;
}

const ERRORS: Record<number, [type: string, message: string]> = {
	400: ['invalid_request_error', 'Invalid request.'],
	401: ['authentication_error', 'invalid x-api-key'],
	403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
	404: ['not_found_error', 'Not Found'],
	413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
	429: [
		'rate_limit_error',
		'This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
	],
	500: ['api_error', 'Internal server error'],
	529: ['overloaded_error', 'Overloaded'],
};

const STOP_REASONS: Record<FinishReason, string> = {
	stop: 'end_turn',
	tool_calls: 'tool_use',
	function_call: 'tool_use',
	length: 'max_tokens',
	content_filter: 'refusal',
};

const DEFAULT_MODELS = [
	{
		type: 'model',
		id: 'claude-sonnet-4-5-20250929',
		display_name: 'Claude Sonnet 4.5',
		created_at: '2025-09-29T00:00:00Z',
	},
	{
		type: 'model',
		id: 'claude-haiku-4-5-20251001',
		display_name: 'Claude Haiku 4.5',
		created_at: '2025-10-15T00:00:00Z',
	},
];

const requestId = () => vendorId('req_011C', 20);
const toolUseId = (call: TurnToolCall) => call.id ?? vendorId('toolu_01', 22, call.idSeed);

function anthropicError(
	status: number,
	fields: ErrorFields = {},
	retryAfterSeconds?: number,
): WireReply {
	const [type, message] = ERRORS[status] ?? [
		status >= 500 ? 'api_error' : 'invalid_request_error',
		`Request failed with status ${status}.`,
	];
	return {
		status,
		headers: retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
		body: { type: 'error', error: { type, message, ...fields }, request_id: requestId() },
	};
}

const invalid = (message: string) => anthropicError(400, { message });

function blocksOf(content: unknown): AnthropicBlock[] {
	return Array.isArray(content) ? content.filter(isRecord).map((b) => b as AnthropicBlock) : [];
}

/**
 * Results must come in the user message right after the tool_use turn, at its start, one per
 * tool_use id; every tool_result must answer a tool_use of the message before.
 */
function toolResultError(messages: Array<Record<string, unknown>>): WireReply | undefined {
	for (const [at, message] of messages.entries()) {
		const blocks = blocksOf(message.content);
		const previous = at > 0 ? messages[at - 1] : undefined;
		const asked =
			previous?.role === 'assistant'
				? blocksOf(previous.content).filter((b) => b.type === 'tool_use')
				: [];
		const askedIds = new Set(asked.map((b) => String(b.id)));
		for (const [index, block] of blocks.entries()) {
			if (block.type === 'tool_result' && !askedIds.has(String(block.tool_use_id))) {
				return invalid(
					`messages.${at}.content.${index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
				);
			}
		}
		if (message.role !== 'assistant') continue;
		const uses = blocks.filter((b) => b.type === 'tool_use');
		const next = messages[at + 1];
		if (uses.length === 0 || next === undefined) continue;
		const results = next.role === 'user' ? blocksOf(next.content) : [];
		const answered = new Set(
			results.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)),
		);
		const missing = uses.map((b) => String(b.id)).filter((id) => !answered.has(id));
		if (missing.length > 0) {
			return invalid(
				`messages.${at + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
			);
		}
		const leading = results.findIndex((b) => b.type !== 'tool_result');
		if (leading !== -1 && leading < uses.length) {
			return invalid(
				`messages.${at + 1}: Did not find ${uses.length} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`,
			);
		}
	}
	return undefined;
}

function validate(request: WireRequest): WireReply | undefined {
	if (!isRecord(request.body)) {
		let reason = 'expected value';
		try {
			JSON.parse(request.text);
		} catch (error) {
			reason = (error as Error).message;
		}
		return invalid(`The request body is not valid JSON: ${reason}`);
	}
	const body = request.body;
	for (const field of ['model', 'max_tokens', 'messages']) {
		if (body[field] === undefined) return invalid(`${field}: Field required`);
	}
	if (!Array.isArray(body.messages)) return invalid('messages: Input should be a valid list');
	if (body.messages.length === 0) return invalid('messages: at least one message is required');
	return toolResultError(body.messages.filter(isRecord));
}

/** Anthropic counts its cache apart: input_tokens are only the tokens no cache held. */
function usageOf(turn: AnswerTurn, outputTokens = turn.usage?.completion_tokens) {
	if (!turn.usage) return undefined;
	const cached = turn.usage.prompt_tokens_details?.cached_tokens ?? 0;
	return {
		input_tokens: turn.usage.prompt_tokens - cached,
		cache_creation_input_tokens: 0,
		cache_read_input_tokens: cached,
		output_tokens: outputTokens,
	};
}

function contentBlocks(turn: AnswerTurn): AnthropicBlock[] {
	return [
		...(turn.content === null ? [] : [{ type: 'text', text: turn.content }]),
		// Anthropic sends tool input as an object; arguments that are not one can only arrive streamed.
		...turn.toolCalls.map((c) => ({
			type: 'tool_use',
			id: toolUseId(c),
			name: c.name,
			input: argumentsObject(c.arguments) ?? {},
		})),
	];
}

function message(
	turn: AnswerTurn,
	call: ModelCall,
	content: AnthropicBlock[],
	stopReason: string | null,
) {
	const usage = stopReason === null ? usageOf(turn, 1) : usageOf(turn);
	return {
		model: turn.model ?? call.model,
		id: vendorId('msg_01', 22),
		type: 'message',
		role: 'assistant',
		content,
		stop_reason: stopReason,
		stop_sequence: null,
		...(usage ? { usage: { ...usage, service_tier: 'standard' } } : {}),
	};
}

type StreamEvent = Record<string, unknown> & { type: string };

/** Anthropic's events for an answer: blocks opened, filled in pieces and closed, one after another. */
function events(turn: AnswerTurn, call: ModelCall): StreamEvent[] {
	const all: StreamEvent[] = [{ type: 'message_start', message: message(turn, call, [], null) }];
	const blocks: Array<{ start: AnthropicBlock; deltas: AnthropicBlock[] }> = [];
	if (turn.content !== null) {
		blocks.push({
			start: { type: 'text', text: '' },
			deltas: splitAwkwardly(turn.content).map((text) => ({ type: 'text_delta', text })),
		});
	}
	for (const c of turn.toolCalls) {
		// An empty input still gets one delta, with an empty piece.
		const pieces = c.arguments === '' ? [''] : splitAwkwardly(c.arguments);
		blocks.push({
			start: { type: 'tool_use', id: toolUseId(c), name: c.name, input: {} },
			deltas: pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
		});
	}
	if (blocks.length === 0) all.push({ type: 'ping' });
	blocks.forEach(({ start, deltas }, index) => {
		all.push({ type: 'content_block_start', index, content_block: start });
		if (index === 0) all.push({ type: 'ping' });
		for (const delta of deltas) all.push({ type: 'content_block_delta', index, delta });
		all.push({ type: 'content_block_stop', index });
	});
	const usage = usageOf(turn);
	all.push({
		type: 'message_delta',
		delta: { stop_reason: STOP_REASONS[turn.finishReason], stop_sequence: null },
		...(usage ? { usage } : {}),
	});
	all.push({ type: 'message_stop' });
	return all;
}

export function anthropicWire(): Wire {
	return {
		basePath: '',
		replyHeaders: () => ({ 'request-id': requestId() }),
		route({ method, pathname, body }) {
			if (method === 'GET' && pathname === '/v1/models') return { kind: 'models' };
			if (method !== 'POST' || pathname !== '/v1/messages') return undefined;
			const request = isRecord(body) ? body : {};
			return {
				kind: 'generate',
				model: String(request.model ?? ''),
				stream: request.stream === true,
			};
		},
		checkAuth({ headers }, apiKey) {
			// Keys go in x-api-key; @anthropic-ai/sdk 1.x sends them as a Bearer token, which the API takes too.
			const key = headers['x-api-key'] ?? /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
			if (!key) return anthropicError(401, { message: 'x-api-key header is required' });
			if (apiKey !== undefined && key !== apiKey) return anthropicError(401);
			if (!headers['anthropic-version']) return invalid('anthropic-version: header is required');
			return undefined;
		},
		validate,
		answer(turn, call) {
			return {
				status: 200,
				body: message(turn, call, contentBlocks(turn), STOP_REASONS[turn.finishReason]),
			};
		},
		stream(turn, call) {
			return {
				headers: SSE_HEADERS,
				frames: events(turn, call).map((event) => sseFrame(event, event.type)),
			};
		},
		error: anthropicError,
		notFound: () => anthropicError(404),
		modelList(models: ModelEntry[] = DEFAULT_MODELS) {
			const data = models.map((m) =>
				typeof m === 'string'
					? { type: 'model', id: m, display_name: m, created_at: '2025-01-01T00:00:00Z' }
					: m,
			) as Array<{ id: string }>;
			return {
				data,
				has_more: false,
				first_id: data[0]?.id ?? null,
				last_id: data.at(-1)?.id ?? null,
			};
		},
	};
}
