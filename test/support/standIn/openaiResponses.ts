/**
 * The OpenAI Responses API side of the local stand-in (server.ts), which replaces the vendor's API
 * because no model API is reachable where tests run. Shapes follow the openai SDK's types
 * (resources/responses) and captured streams in the Vercel AI SDK's fixtures
 * (packages/openai/src/responses/__fixtures__): `message` and `function_call` output items, and
 * named SSE events from `response.created` to `response.completed`, each with a `sequence_number`,
 * argument JSON arriving in `response.function_call_arguments.delta` pieces. No `[DONE]`.
 */
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { bodyError, invalidRequest, obfuscation, openAIPlatform } from './openaiPlatform';
import type { AnswerTurn, TurnToolCall } from './turns';
import {
	isRecord,
	randomHex,
	SSE_HEADERS,
	splitAwkwardly,
	sseFrame,
	vendorId,
	type ModelCall,
	type Wire,
	type WireReply,
	type WireRequest,
} from './wire';

export type ResponsesRequest = ResponseCreateParams;

type Item = Record<string, unknown> & { type: string; id: string };

const callId = (call: TurnToolCall) => call.id ?? vendorId('call_', 24, call.idSeed);

/** The calls a conversation holds: the previous response's (when stored) and those in `input`. */
interface CallLedger {
	/** Every call id the model has made in this conversation. */
	known: Set<string>;
	/** Calls still waiting for a function_call_output. */
	pending: Set<string>;
}

function inputItems(body: Record<string, unknown>): Array<Record<string, unknown>> {
	return Array.isArray(body.input) ? body.input.filter(isRecord) : [];
}

function responseBody(
	turn: AnswerTurn,
	call: ModelCall,
	body: Record<string, unknown>,
	meta: { id: string; createdAt: number; output: Item[] },
	stage: 'started' | 'finished',
) {
	const incomplete =
		turn.finishReason === 'length'
			? 'max_output_tokens'
			: turn.finishReason === 'content_filter'
				? 'content_filter'
				: null;
	const finished = stage === 'finished';
	const usage = turn.usage && {
		input_tokens: turn.usage.prompt_tokens,
		input_tokens_details: { cached_tokens: turn.usage.prompt_tokens_details?.cached_tokens ?? 0 },
		output_tokens: turn.usage.completion_tokens,
		output_tokens_details: {
			reasoning_tokens: turn.usage.completion_tokens_details?.reasoning_tokens ?? 0,
		},
		total_tokens: turn.usage.total_tokens,
	};
	return {
		id: meta.id,
		object: 'response',
		created_at: meta.createdAt,
		status: !finished ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
		background: false,
		completed_at: finished && !incomplete ? meta.createdAt + 1 : null,
		error: null,
		incomplete_details: finished && incomplete ? { reason: incomplete } : null,
		instructions: body.instructions ?? null,
		max_output_tokens: body.max_output_tokens ?? null,
		max_tool_calls: null,
		model: turn.model ?? call.model,
		output: finished ? meta.output : [],
		parallel_tool_calls: body.parallel_tool_calls ?? true,
		previous_response_id: body.previous_response_id ?? null,
		prompt_cache_key: null,
		reasoning: { effort: null, summary: null },
		safety_identifier: null,
		service_tier: finished ? 'default' : 'auto',
		store: body.store ?? true,
		temperature: body.temperature ?? 1,
		text: { format: { type: 'text' }, verbosity: 'medium' },
		tool_choice: body.tool_choice ?? 'auto',
		tools: body.tools ?? [],
		top_logprobs: 0,
		top_p: body.top_p ?? 1,
		truncation: 'disabled',
		usage: finished ? usage : null,
		user: null,
		metadata: {},
	};
}

function outputItems(turn: AnswerTurn): Item[] {
	const items: Item[] = [];
	if (turn.content !== null) {
		items.push({
			id: 'msg_' + randomHex(50),
			type: 'message',
			status: 'completed',
			content: [{ type: 'output_text', annotations: [], logprobs: [], text: turn.content }],
			role: 'assistant',
		});
	}
	for (const call of turn.toolCalls) {
		items.push({
			id: 'fc_' + call.idSeed,
			type: 'function_call',
			status: 'completed',
			arguments: call.arguments,
			call_id: callId(call),
			name: call.name,
		});
	}
	return items;
}

/** The events between `response.in_progress` and the end for one output item, in OpenAI's order. */
type StreamEvent = Record<string, unknown> & { type: string };

function itemEvents(item: Item, outputIndex: number, streamOptions: unknown): StreamEvent[] {
	const at = { item_id: item.id, output_index: outputIndex };
	if (item.type === 'function_call') {
		const args = String(item.arguments);
		return [
			{
				type: 'response.output_item.added',
				item: { ...item, status: 'in_progress', arguments: '' },
				output_index: outputIndex,
			},
			...splitAwkwardly(args).map((delta) => ({
				type: 'response.function_call_arguments.delta',
				delta,
				item_id: item.id,
				...obfuscation(streamOptions),
				output_index: outputIndex,
			})),
			{ type: 'response.function_call_arguments.done', arguments: args, ...at },
			{ type: 'response.output_item.done', item, output_index: outputIndex },
		];
	}
	const [part] = item.content as Array<{ text: string }>;
	const inPart = { content_index: 0, ...at };
	return [
		{
			type: 'response.output_item.added',
			item: { ...item, status: 'in_progress', content: [] },
			output_index: outputIndex,
		},
		{ type: 'response.content_part.added', ...inPart, part: { ...part, text: '' } },
		...splitAwkwardly(part.text).map((delta) => ({
			type: 'response.output_text.delta',
			content_index: 0,
			delta,
			item_id: item.id,
			logprobs: [],
			...obfuscation(streamOptions),
			output_index: outputIndex,
		})),
		{ type: 'response.output_text.done', ...inPart, logprobs: [], text: part.text },
		{ type: 'response.content_part.done', ...inPart, part },
		{ type: 'response.output_item.done', item, output_index: outputIndex },
	];
}

export function openaiResponsesWire(): Wire {
	// Stored responses' calls, so a request naming a previous_response_id is checked against them.
	const stored = new Map<string, CallLedger>();

	/** The conversation's calls, or the error OpenAI gives when outputs and calls do not pair up. */
	function ledger(body: Record<string, unknown>): CallLedger | WireReply {
		const previousId = body.previous_response_id;
		const previous = typeof previousId === 'string' ? stored.get(previousId) : undefined;
		if (typeof previousId === 'string' && !previous) {
			return invalidRequest({
				message: `Previous response with id '${previousId}' not found.`,
				param: 'previous_response_id',
				code: 'previous_response_not_found',
			});
		}
		const known = new Set(previous?.known);
		const pending = new Set(previous?.pending);
		for (const item of inputItems(body)) {
			const id = String(item.call_id);
			if (item.type === 'function_call') {
				known.add(id);
				pending.add(id);
			} else if (item.type === 'function_call_output') {
				if (!known.has(id)) {
					return invalidRequest({
						message: `No tool call found for function call output with call_id ${id}.`,
						param: 'input',
					});
				}
				pending.delete(id);
			}
		}
		return { known, pending };
	}

	function serve(turn: AnswerTurn, call: ModelCall, request: WireRequest) {
		const body = request.body as Record<string, unknown>;
		const meta = {
			id: 'resp_' + randomHex(50),
			createdAt: Math.floor(Date.now() / 1000),
			output: outputItems(turn),
		};
		const calls = ledger(body) as CallLedger;
		if (body.store !== false) {
			const made = turn.toolCalls.map(callId);
			stored.set(meta.id, { known: new Set([...calls.known, ...made]), pending: new Set(made) });
		}
		const started = responseBody(turn, call, body, meta, 'started');
		return { body, meta, started, finished: responseBody(turn, call, body, meta, 'finished') };
	}

	return {
		...openAIPlatform('/v1/responses'),
		validate(request) {
			const unreadable = bodyError(request, {
				message: "Missing required parameter: 'model'.",
				param: 'model',
				code: 'missing_required_parameter',
			});
			if (unreadable) return unreadable;
			const calls = ledger(request.body as Record<string, unknown>);
			if (!('known' in calls)) return calls;
			const [unanswered] = calls.pending;
			return unanswered === undefined
				? undefined
				: invalidRequest({
						message: `No tool output found for function call ${unanswered}.`,
						param: 'input',
					});
		},
		answer(turn, call, request) {
			return { status: 200, body: serve(turn, call, request).finished };
		},
		stream(turn, call, request) {
			const { body, meta, started, finished } = serve(turn, call, request);
			const events: StreamEvent[] = [
				{ type: 'response.created', response: started },
				{ type: 'response.in_progress', response: started },
				...meta.output.flatMap((item, index) => itemEvents(item, index, body.stream_options)),
				{
					type: finished.status === 'completed' ? 'response.completed' : 'response.incomplete',
					response: finished,
				},
			];
			const frames = events.map((event, n) =>
				sseFrame({ ...event, sequence_number: n }, event.type),
			);
			return { headers: SSE_HEADERS, frames };
		},
	};
}
