import type { Conversation, TraceEntry } from '../conversation/types';
import type { Dialect, ModelSettings, ModelTurn, NotStrict } from '../dialects/types';
import type { Exchange } from '../model/transport';
import { compactModelRequest } from '../trace/compact';
import { traceEntry, type TracePolicy } from '../trace/entries';
import type { AnswerStream } from './answerStream';
import { applyModelTurn } from './applyTurn';
import type { ModelEndpoint } from './endpoint';
import { checkReadyForTurn } from './readiness';

export interface DecisionContext {
	nodeName: string;
	dialect: Dialect;
	settings: ModelSettings;
	/** Model turns a conversation may take; it stops before one more. */
	maxRounds: number;
	endpoint: ModelEndpoint;
	tracePolicy: TracePolicy;
	/** Where the turn's text goes as it is written, when the workflow streams its answer to a person. */
	answer?: AnswerStream;
}

export interface TurnTaken {
	conversation: Conversation;
	/** The model's turn, its round and how long it took; none when Max Rounds stopped the conversation. */
	turn?: ModelTurn & { round: number; durationMs: number };
}

/**
 * One model turn for the conversation: its request built by the dialect, answered by the
 * endpoint, the answer applied (the assistant message, its calls pending or the answer set) and
 * the exchange traced. A conversation at Max Rounds stops instead, with the reason, unasked.
 */
export async function takeModelTurn(
	conversation: Conversation,
	context: DecisionContext,
): Promise<TurnTaken> {
	const rounds = conversation.rounds ?? 0;
	if (rounds >= context.maxRounds) {
		const stopReason = `Stopped before round ${rounds + 1}: Max Rounds is ${context.maxRounds}`;
		// Stopped without an answer: one an earlier question got is not this one's.
		const { answer: _earlier, ...stopped } = conversation;
		// A person waiting in a chat learns why no answer comes.
		await context.answer?.fail(stopReason);
		return { conversation: { ...stopped, stopReason } };
	}
	const { dialect, settings, endpoint, answer } = context;
	const round = rounds + 1;
	const startedAt = Date.now();
	const { exchange, turn, notStrict } = await (async () => {
		checkReadyForTurn(conversation, settings);
		const request = dialect.buildRequest(conversation, settings);
		const exchange = await endpoint.exchange({
			body: request.body,
			model: settings.model,
			stream: settings.stream,
			round,
			trace: conversation.trace,
			onText: answer && ((text) => answer.text(text)),
		});
		return { ...request, exchange, turn: dialect.parseResponse(exchange.response, request.names) };
	})().catch(async (error: unknown) => {
		await answer?.fail((error as Error).message);
		throw error;
	});
	await answer?.finish({ content: turn.message.content, toolCalls: turn.toolCalls });
	const next = applyModelTurn(conversation, turn, strictTools(conversation, settings, notStrict));
	const trace = turnTrace(
		exchange,
		turn,
		{ node: context.nodeName, round, startedAt },
		notStrict,
		context,
		// Full payloads keep of the request only what the trace does not already hold.
		(request) => compactModelRequest(request, conversation.trace),
	);
	return {
		conversation: { ...next, trace: [...next.trace, ...trace] },
		turn: { ...turn, round, durationMs: Date.now() - startedAt },
	};
}

/** The tools sent in strict mode: all of them when asked for, but those the dialect could not make strict. */
function strictTools(
	conversation: Conversation,
	settings: ModelSettings,
	notStrict: NotStrict[],
): Set<string> {
	if (!settings.strict) return new Set();
	return new Set(
		conversation.tools
			.map((tool) => tool.name)
			.filter((name) => !notStrict.some((tool) => tool.name === name)),
	);
}

/** model.request and model.response, as docs/trace.md describes them. */
function turnTrace(
	exchange: Exchange<unknown>,
	turn: ModelTurn,
	timing: { node: string; round: number; startedAt: number },
	notStrict: NotStrict[],
	context: DecisionContext,
	compactRequest: (request: TraceEntry) => TraceEntry,
): TraceEntry[] {
	const { url, method, headers, body } = exchange.request;
	const { dialect, tracePolicy: policy } = context;
	const { replayed } = context.endpoint;
	return [
		traceEntry(
			'model.request',
			timing,
			{
				dialect: dialect.id,
				...(!replayed && { url, method, headers }),
				...(notStrict.length > 0 && { notStrict }),
			},
			body,
			policy,
			replayed,
			compactRequest,
		),
		traceEntry(
			'model.response',
			{ ...timing, durationMs: Date.now() - timing.startedAt },
			{
				dialect: dialect.id,
				...(!replayed && { attempts: exchange.attempts }),
				...(exchange.chunks !== undefined && { streamedChunks: exchange.chunks }),
				finish: turn.finish,
				finishReason: turn.finishReason,
				...(turn.usage && { usage: turn.usage }),
				toolCalls: turn.toolCalls.map((call) => ({ id: call.id, name: call.name })),
			},
			exchange.response,
			policy,
			replayed,
		),
	];
}
