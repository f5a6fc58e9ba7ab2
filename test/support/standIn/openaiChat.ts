/**
 * The OpenAI Chat Completions side of the local stand-in (server.ts), which replaces the vendor's
 * API because no model API is reachable where tests run. Shapes follow the openai SDK's types
 * (resources/chat/completions) and OpenAI's documented wire format, streaming included: SSE
 * `data:` frames of `chat.completion.chunk`s, argument pieces keyed by call index, ending in
 * `data: [DONE]`.
 */
import type {
	ChatCompletion,
	ChatCompletionChunk,
	ChatCompletionCreateParams,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import {
	bodyError,
	invalidRequest,
	obfuscation,
	openAIPlatform,
	systemFingerprint,
} from './openaiPlatform';
import type { AnswerTurn } from './turns';
import {
	isRecord,
	SSE_HEADERS,
	splitAwkwardly,
	sseFrame,
	vendorId,
	type ModelCall,
	type Wire,
	type WireReply,
	type WireRequest,
} from './wire';

export type ChatCompletionsRequest = ChatCompletionCreateParams;

interface ServedMeta {
	id: string;
	created: number;
	model: string;
	systemFingerprint: string;
}

const callId = (call: AnswerTurn['toolCalls'][number]) =>
	call.id ?? vendorId('call_', 24, call.idSeed);

function servedMeta(turn: AnswerTurn, call: ModelCall): ServedMeta {
	return {
		id: vendorId('chatcmpl-', 29),
		created: Math.floor(Date.now() / 1000),
		model: turn.model ?? call.model,
		systemFingerprint: systemFingerprint(),
	};
}

function completion(turn: AnswerTurn, meta: ServedMeta): ChatCompletion {
	const message: ChatCompletion.Choice['message'] = {
		role: 'assistant',
		content: turn.content,
		// OpenAI leaves the key out when there are no calls.
		...(turn.toolCalls.length > 0
			? {
					tool_calls: turn.toolCalls.map((c) => ({
						id: callId(c),
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
function chunks(turn: AnswerTurn, meta: ServedMeta, streamOptions: unknown): ChatCompletionChunk[] {
	const deltas: Delta[] = [];
	if (turn.content !== null) {
		deltas.push({ role: 'assistant', content: '', refusal: null });
		for (const piece of splitAwkwardly(turn.content)) deltas.push({ content: piece });
	}
	turn.toolCalls.forEach((call, index) => {
		// Only a call's first fragment names it; later ones carry argument pieces under the same index.
		const opening: Delta = {
			tool_calls: [
				{ index, id: callId(call), type: 'function', function: { name: call.name, arguments: '' } },
			],
		};
		// With no text before it, OpenAI sends the role in the same chunk as the first call opens.
		deltas.push(
			deltas.length === 0
				? { role: 'assistant', content: null, ...opening, refusal: null }
				: opening,
		);
		for (const piece of splitAwkwardly(call.arguments)) {
			deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
		}
	});
	if (deltas.length === 0) deltas.push({ role: 'assistant', content: null, refusal: null });

	const includeUsage =
		isRecord(streamOptions) && streamOptions.include_usage === true && turn.usage !== null;
	const chunk = (
		choices: ChatCompletionChunk.Choice[],
		usage?: CompletionUsage,
	): ChatCompletionChunk => ({
		id: meta.id,
		object: 'chat.completion.chunk',
		created: meta.created,
		model: meta.model,
		service_tier: 'default',
		system_fingerprint: meta.systemFingerprint,
		choices,
		// With include_usage every chunk has the key, null until the last one.
		...(includeUsage ? { usage: usage ?? null } : {}),
		...obfuscation(streamOptions),
	});
	const all = deltas.map((delta) =>
		chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]),
	);
	all.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: turn.finishReason }]));
	if (includeUsage && turn.usage) all.push(chunk([], turn.usage));
	return all;
}

/** Every tool call needs a tool message right after its assistant message, and every tool message a call. */
function toolReplyError(messages: Array<Record<string, unknown>>): WireReply | undefined {
	let awaiting = new Set<string>();
	let assistantAt = -1;
	const unanswered = (at: number) =>
		invalidRequest({
			message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`,
			param: `messages.[${at}].role`,
		});
	for (const [at, message] of messages.entries()) {
		if (message?.role === 'tool') {
			if (!awaiting.delete(String(message.tool_call_id))) {
				return invalidRequest({
					// OpenAI's spelling.
					message:
						"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
					param: `messages.[${at}].role`,
				});
			}
			continue;
		}
		if (awaiting.size > 0) return unanswered(at);
		const calls =
			message?.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls : [];
		awaiting = new Set(calls.map((c: { id?: unknown }) => String(c?.id)));
		assistantAt = at;
	}
	return awaiting.size > 0 ? unanswered(assistantAt) : undefined;
}

/** The checks OpenAI makes before generating. */
function validate(request: WireRequest): WireReply | undefined {
	const unreadable = bodyError(request, { message: 'you must provide a model parameter' });
	if (unreadable) return unreadable;
	const body = request.body as Record<string, unknown>;
	if (!Array.isArray(body.messages)) {
		return invalidRequest({
			message: "Missing required parameter: 'messages'.",
			param: 'messages',
			code: 'missing_required_parameter',
		});
	}
	if (body.stream_options != null && body.stream !== true) {
		return invalidRequest({
			message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
			param: 'stream_options',
		});
	}
	if (body.tool_choice != null && !(Array.isArray(body.tools) && body.tools.length > 0)) {
		return invalidRequest({
			message:
				"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
			param: 'tool_choice',
		});
	}
	return toolReplyError(body.messages as Array<Record<string, unknown>>);
}

export function openaiChatWire(): Wire {
	return {
		...openAIPlatform('/v1/chat/completions'),
		validate,
		answer: (turn, call) => ({ status: 200, body: completion(turn, servedMeta(turn, call)) }),
		stream(turn, call, request) {
			const streamOptions = (request.body as Record<string, unknown>).stream_options;
			const frames = chunks(turn, servedMeta(turn, call), streamOptions).map((chunk) =>
				sseFrame(chunk),
			);
			return { headers: SSE_HEADERS, frames: [...frames, 'data: [DONE]\n\n'] };
		},
	};
}
