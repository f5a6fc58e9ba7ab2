import type { Conversation, TraceEntry } from '../conversation/types';
import type { AnswerTool, Dialect, ModelSettings, ModelTurn, NotStrict } from '../dialects/types';
import type { Exchange } from '../model/transport';
import { compactModelRequest } from '../trace/compact';
import { traceEntry, type TracePolicy } from '../trace/entries';
import { budgetExceeded, describeUsage, type Budget } from '../usage/budget';
import { priceModelCall, type PricingOptions, type TurnCost } from '../usage/prices';
import { NO_USAGE } from '../usage/totals';
import type { AnswerStream } from './answerStream';
import { applyModelTurn } from './applyTurn';
import type { ModelEndpoint } from './endpoint';
import { fallbackReason, withFirstFailure, type ModelRoute } from './fallback';
import { checkReadyForTurn } from './readiness';
import { AnswerFormatError, answerByTool, checkAnswer, repairMessage } from './structuredAnswer';

export interface DecisionContext {
	nodeName: string;
	dialect: Dialect;
	settings: ModelSettings;
	/** Model turns a conversation may take; it stops before one more. */
	maxRounds: number;
	/** Limits on the conversation's tokens, cost and tool calls, checked before each model call. */
	budget?: Budget;
	/** How a model call is priced: the node's own prices, or the provider to price as. */
	pricing?: PricingOptions;
	endpoint: ModelEndpoint;
	tracePolicy: TracePolicy;
	/** Where the turn's text goes as it is written, when the workflow streams its answer to a person. */
	answer?: AnswerStream;
	/** Answers that break the Response Format sent back to the model before the item fails (2 when not set). */
	maxRepairs?: number;
	/** Asked when the model fails after its retries with what another model may not (fallback.ts). */
	fallback?: ModelRoute;
}

/** On a turn the fallback answered: the model it answered instead of, and why that one did not. */
interface FallbackDetail {
	instead: { dialect: string; model: string };
	because: string;
}

export interface TurnTaken {
	conversation: Conversation;
	/** The model's turn, its round and how long it took; none when Max Rounds or a budget stopped the conversation. */
	turn?: ModelTurn & { round: number; durationMs: number };
}

/**
 * One model turn for the conversation: its request built by the dialect, answered by the
 * endpoint, the answer applied (the assistant message, its calls pending or the answer set, the
 * call's tokens and cost added up) and the exchange traced. A conversation at Max Rounds or at a
 * budget stops instead, with the reason, unasked. With a Response Format the answer is read as
 * JSON and checked (`output` on the item); one that breaks it goes back to the model, naming what
 * is wrong, as another round, up to Max Repairs, then fails.
 */
export async function takeModelTurn(
	conversation: Conversation,
	context: DecisionContext,
): Promise<TurnTaken> {
	const format = context.settings.responseFormat;
	let current = conversation;
	for (let repairs = 0; ; repairs++) {
		const taken = await takeOneTurn(current, context);
		const { turn, answerTool } = taken;
		if (!format || !turn || taken.conversation.answer === undefined) return taken;
		const checked = checkAnswer(taken.conversation.answer, format);
		const entry = traceEntry(
			'answer.validation',
			{ node: context.nodeName, round: turn.round, startedAt: Date.now() },
			checked.ok ? { status: 'valid' } : { status: 'invalid', problem: checked.problem },
			checked.ok ? checked.value : taken.conversation.answer,
			context.tracePolicy,
		);
		const trace = [...taken.conversation.trace, entry];
		if (checked.ok)
			return {
				turn,
				conversation: { ...taken.conversation, output: checked.value as object, trace },
			};
		if (repairs >= (context.maxRepairs ?? DEFAULT_MAX_REPAIRS))
			throw new AnswerFormatError(checked.problem, repairs);
		const { answer: _broken, ...rest } = taken.conversation;
		current = {
			...rest,
			messages: [...rest.messages, repairMessage(checked.problem, answerTool)],
			trace,
		};
	}
}

/** Answers that break the Response Format sent back to the model, when the node sets none. */
export const DEFAULT_MAX_REPAIRS = 2;

async function takeOneTurn(
	conversation: Conversation,
	context: DecisionContext,
): Promise<TurnTaken & { answerTool?: AnswerTool }> {
	const rounds = conversation.rounds ?? 0;
	const stopReason = reasonToStop(conversation, context);
	if (stopReason) {
		// Stopped without an answer: one an earlier question got is not this one's.
		const { answer: _earlier, ...stopped } = conversation;
		// A person waiting in a chat learns why no answer comes.
		await context.answer?.fail(stopReason);
		return { conversation: { ...stopped, stopReason } };
	}
	const { answer } = context;
	const round = rounds + 1;
	const startedAt = Date.now();
	let streamed = false;
	const onText = answer && ((text: string) => ((streamed = true), answer.text(text)));
	const ask = async (route: ModelRoute) => {
		const request = route.dialect.buildRequest(conversation, route.settings);
		const exchange = await route.endpoint.exchange({
			body: request.body,
			model: route.settings.model,
			stream: route.settings.stream,
			round,
			trace: conversation.trace,
			onText,
		});
		const parsed = route.dialect.parseResponse(exchange.response, request.names);
		const turn = request.answerTool
			? answerByTool(parsed, request.answerTool, request.names)
			: parsed;
		return { ...request, exchange, turn, route };
	};
	const primary: ModelRoute = context;
	const askWithFallback = async (): Promise<
		Awaited<ReturnType<typeof ask>> & { fallback?: FallbackDetail }
	> => {
		try {
			return await ask(primary);
		} catch (error) {
			// A fallback after text reached the chat would tell the person a second, different answer.
			const because = context.fallback && !streamed ? fallbackReason(error) : undefined;
			if (!context.fallback || because === undefined) throw error;
			const instead = { dialect: primary.dialect.id, model: primary.settings.model };
			try {
				return { ...(await ask(context.fallback)), fallback: { instead, because } };
			} catch (fallbackError) {
				throw withFirstFailure(fallbackError, instead, because);
			}
		}
	};
	let taken: Awaited<ReturnType<typeof askWithFallback>>;
	try {
		checkReadyForTurn(conversation, context.settings);
		taken = await askWithFallback();
	} catch (error) {
		await answer?.fail((error as Error).message);
		throw error;
	}
	const { exchange, turn, notStrict, answerTool, route } = taken;
	const { settings } = route;
	await answer?.finish({ content: turn.message.content, toolCalls: turn.toolCalls });
	const models = { answered: turn.model, requested: settings.model };
	const cost = priceModelCall(turn.tokens, models, exchange.request.url, context.pricing ?? {});
	const strict = strictTools(conversation, settings, notStrict);
	const next = applyModelTurn(conversation, turn, strict, cost);
	const trace = turnTrace(
		exchange,
		{ ...turn, ...cost },
		{ node: context.nodeName, round, startedAt },
		notStrict,
		{ ...context, ...route, fallbackDetail: taken.fallback },
		// Full payloads keep of the request only what the trace does not already hold.
		(request) => compactModelRequest(request, conversation.trace),
	);
	return {
		conversation: { ...next, trace: [...next.trace, ...trace] },
		turn: { ...turn, round, durationMs: Date.now() - startedAt },
		...(answerTool && { answerTool }),
	};
}

/** Why the conversation makes no further model call (Max Rounds, a budget), or undefined. */
function reasonToStop(conversation: Conversation, context: DecisionContext): string | undefined {
	const rounds = conversation.rounds ?? 0;
	if (rounds >= context.maxRounds)
		return `Stopped before round ${rounds + 1}: Max Rounds is ${context.maxRounds}`;
	const overBudget = context.budget && budgetExceeded(conversation.usage, context.budget);
	if (!overBudget) return undefined;
	return `Stopped before round ${rounds + 1}: ${overBudget}. So far: ${describeUsage(conversation.usage ?? NO_USAGE)}`;
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
	turn: ModelTurn & TurnCost,
	timing: { node: string; round: number; startedAt: number },
	notStrict: NotStrict[],
	context: DecisionContext & { fallbackDetail?: FallbackDetail },
	compactRequest: (request: TraceEntry) => TraceEntry,
): TraceEntry[] {
	const { url, method, headers, body } = exchange.request;
	const { dialect, tracePolicy: policy, fallbackDetail } = context;
	const { replayed } = context.endpoint;
	const fallback = fallbackDetail && { fallback: fallbackDetail };
	return [
		traceEntry(
			'model.request',
			timing,
			{
				dialect: dialect.id,
				...(!replayed && { url, method, headers }),
				...(notStrict.length > 0 && { notStrict }),
				...fallback,
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
				...fallback,
				...(!replayed && { attempts: exchange.attempts }),
				...(exchange.chunks !== undefined && { streamedChunks: exchange.chunks }),
				finish: turn.finish,
				finishReason: turn.finishReason,
				...(turn.model && { model: turn.model }),
				...(turn.usage && { usage: turn.usage }),
				tokens: turn.tokens,
				...(turn.usageWarnings && { usageWarnings: turn.usageWarnings }),
				...(turn.unanswered && { unanswered: turn.unanswered }),
				...(turn.reasoning && { reasoning: turn.reasoning }),
				cost: turn.cost,
				...(turn.cost === null ? { costUnknown: turn.costUnknown } : { price: turn.price }),
				toolCalls: turn.toolCalls.map((call) => ({ id: call.id, name: call.name })),
			},
			exchange.response,
			policy,
			replayed,
		),
	];
}
