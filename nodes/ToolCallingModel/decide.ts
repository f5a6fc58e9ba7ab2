import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';
import {
	openingMessages,
	parseToolDefinitions,
	withTools,
} from '../../lib/conversation/definitions';
import { readConversation } from '../../lib/conversation/read';
import { applyModelTurn } from '../../lib/conversation/turn';
import type { Conversation } from '../../lib/conversation/types';
import {
	UnsupportedSettingError,
	type Dialect,
	type EndpointConfig,
	type ModelTurn,
} from '../../lib/dialects/types';
import { ModelApiError } from '../../lib/model/errors';
import { callModel, endpointSecrets, type Exchange } from '../../lib/model/transport';
import { traceEntry } from '../../lib/trace/entries';
import { ReplayDriftError, type Recording } from '../../lib/trace/recording';
import type { Routed } from '../shared/items';
import { n8nHttpSend } from '../shared/modelHttp';
import { recordingReader } from '../shared/recordingOptions';
import { redactionOf, type NodeRedaction } from '../shared/traceOptions';
import { endpointFromCredentials, providerOf } from './providers';
import { settingsOf, type NodeSettings } from './settings';

export const TOOL_CALLS_OUTPUT = 0;
export const FINAL_ANSWER_OUTPUT = 1;

/**
 * The decide step: per item, one model turn, leaving by Tool Calls or by Final Answer. The
 * credential is read once (the provider cannot come from an expression), and not at all when
 * every turn is replayed from a recording.
 */
export async function decide(context: IExecuteFunctions) {
	const nodeName = context.getNode().name;
	const provider = providerOf(context.getNodeParameter('provider', 0, 'openaiChat') as string);
	const replaying = context.getNodeParameter('replay', 0, 'off') !== 'off';
	const endpoint: EndpointConfig | undefined = replaying
		? undefined
		: endpointFromCredentials(provider, await context.getCredentials(provider.credentialType));
	const send = n8nHttpSend(context.helpers);
	const redactionFor = (itemIndex: number) =>
		redactionOf(context, itemIndex, endpoint ? endpointSecrets(endpoint) : []);

	const recordingOf = recordingReader(context, 'replay');
	const processItem = async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const settings = settingsOf(context, itemIndex);
		const conversation = conversationFor(context, item, itemIndex);
		const leave = (output: number, json: Conversation): Routed => ({
			output,
			item: { json: { ...json }, ...(item.binary && { binary: item.binary }) },
		});

		const rounds = conversation.rounds ?? 0;
		if (rounds >= settings.maxRounds) {
			return leave(FINAL_ANSWER_OUTPUT, {
				...conversation,
				stopReason: `Stopped before round ${rounds + 1}: Max Rounds is ${settings.maxRounds}`,
			});
		}
		checkReadyForTurn(context, conversation, settings, itemIndex);

		const redaction = redactionFor(itemIndex);
		const dialect = provider.dialect(settings.request);
		const { body, names, notStrict } = buildRequest(
			context,
			() => dialect.buildRequest(conversation, settings.model),
			itemIndex,
		);
		const round = rounds + 1;
		const started = Date.now();
		const recording = await recordingOf(itemIndex, redaction.trace.redactor);
		const exchange = recording
			? replayedExchange(context, recording, round, body, itemIndex)
			: await callModel(
					dialect,
					endpoint!,
					{ body, model: settings.model.model, stream: settings.model.stream },
					{
						send,
						timeoutMs: settings.timeoutMs,
						maxRetries: settings.maxRetries,
						signal: context.getExecutionCancelSignal(),
					},
				).catch((error: unknown) => {
					throw asNodeError(context, error, itemIndex);
				});
		let turn: ModelTurn;
		try {
			turn = dialect.parseResponse(exchange.response, names);
		} catch (error) {
			throw new NodeOperationError(context.getNode(), (error as Error).message, { itemIndex });
		}

		const sentStrict = new Set(
			settings.model.strict
				? conversation.tools
						.map((tool) => tool.name)
						.filter((name) => !notStrict.some((n) => n.name === name))
				: [],
		);
		const next = applyModelTurn(conversation, turn, sentStrict);
		const trace = turnTrace(
			dialect,
			exchange,
			turn,
			{ node: nodeName, round, started, notStrict },
			redaction,
			recording !== undefined,
		);
		context.logger.debug(
			redaction.text(
				`${nodeName}: round ${round} (${dialect.id}) finished with ${turn.finish}, ${turn.toolCalls.length} tool calls, in ${Date.now() - started} ms`,
			),
		);
		// An error a failed earlier turn left on the item (under continue-on-fail) is not this turn's.
		const { error: _previousError, ...answered } = {
			...next,
			trace: [...next.trace, ...trace],
		} as Conversation & { error?: unknown };
		return leave(turn.toolCalls.length > 0 ? TOOL_CALLS_OUTPUT : FINAL_ANSWER_OUTPUT, answered);
	};
	return { processItem, redactionFor };
}

function checkReadyForTurn(
	context: IExecuteFunctions,
	conversation: Conversation,
	settings: NodeSettings,
	itemIndex: number,
): void {
	if (conversation.toolCalls.length > 0) {
		const names = conversation.toolCalls.map((call) => call.name).join(', ');
		throw new NodeOperationError(
			context.getNode(),
			`${conversation.toolCalls.length} tool calls are still pending (${names})`,
			{
				itemIndex,
				description:
					'Run them with MCP Client (Execute Tool Calls) before the next model turn: the API refuses a turn with unanswered calls.',
			},
		);
	}
	const { toolChoice } = settings.model;
	if (
		typeof toolChoice === 'object' &&
		!conversation.tools.some((tool) => tool.name === toolChoice.name)
	) {
		throw new NodeOperationError(
			context.getNode(),
			`Tool Choice names '${toolChoice.name}', which is not among the tools`,
			{
				itemIndex,
				description: `Tools: ${conversation.tools.map((tool) => tool.name).join(', ') || 'none'}`,
			},
		);
	}
}

/** The recorded answer of this round, in place of an API call; the request must be the recorded one. */
function replayedExchange(
	context: IExecuteFunctions,
	recording: Recording,
	round: number,
	body: unknown,
	itemIndex: number,
): Exchange<unknown> {
	try {
		return {
			request: { url: '', method: 'POST', headers: {}, body },
			attempts: [],
			response: recording.modelResponse(round, body),
		};
	} catch (error) {
		throw new NodeOperationError(context.getNode(), error as Error, {
			itemIndex,
			...(error instanceof ReplayDriftError && {
				description:
					'The conversation no longer matches the recorded run: a prompt, a tool, a setting or an earlier result changed.',
			}),
		});
	}
}

/** model.request and model.response, as docs/trace.md describes them. */
function turnTrace(
	dialect: Dialect,
	exchange: Exchange<unknown>,
	turn: ModelTurn,
	step: {
		node: string;
		round: number;
		started: number;
		notStrict: Array<{ name: string; reason: string }>;
	},
	redaction: NodeRedaction,
	replayed: boolean,
) {
	const { url, method, headers, body } = exchange.request;
	const timing = { node: step.node, round: step.round, startedAt: step.started };
	return [
		traceEntry(
			'model.request',
			timing,
			{
				dialect: dialect.id,
				...(!replayed && { url, method, headers }),
				...(step.notStrict.length > 0 && { notStrict: step.notStrict }),
			},
			body,
			redaction.trace,
			replayed,
		),
		traceEntry(
			'model.response',
			{ ...timing, durationMs: Date.now() - step.started },
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
			redaction.trace,
			replayed,
		),
	];
}

function conversationFor(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
): Conversation {
	try {
		const conversation = readConversation(item.json);
		const nodeTools = parseToolDefinitions(context.getNodeParameter('nodeTools', itemIndex, '[]'));
		if (conversation.messages.length > 0) return withTools(conversation, nodeTools);
		const system = context.getNodeParameter('systemMessage', itemIndex, '') as string;
		const user = context.getNodeParameter('userMessage', itemIndex, '') as string;
		return withTools({ ...conversation, messages: openingMessages(system, user) }, nodeTools);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), (error as Error).message, { itemIndex });
	}
}

function buildRequest<T>(context: IExecuteFunctions, build: () => T, itemIndex: number): T {
	try {
		return build();
	} catch (error) {
		throw new NodeOperationError(context.getNode(), error as Error, {
			itemIndex,
			...(error instanceof UnsupportedSettingError && {
				description: 'The provider has no such setting: change it, or pick another provider.',
			}),
		});
	}
}

function asNodeError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (!(error instanceof ModelApiError))
		return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
	return new NodeApiError(
		context.getNode(),
		(error.body ?? { message: error.message }) as JsonObject,
		{
			itemIndex,
			message: error.message,
			httpCode: error.status === undefined ? undefined : String(error.status),
			description: `The model API answered ${error.status ?? 'nothing'} (${error.failure})`,
		},
	);
}
