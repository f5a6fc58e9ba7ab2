import { NodeApiError, NodeOperationError, type IExecuteFunctions, type INodeExecutionData, type JsonObject } from 'n8n-workflow';
import { openingMessages, parseToolDefinitions, withTools } from '../../lib/conversation/definitions';
import { readConversation } from '../../lib/conversation/read';
import { applyModelTurn } from '../../lib/conversation/turn';
import type { Conversation, TraceEntry } from '../../lib/conversation/types';
import { createOpenAIDialect } from '../../lib/dialects/openai';
import { createChatCompletion, ModelApiError, type EndpointConfig } from '../../lib/model/openaiCompatible';
import type { Routed } from '../shared/items';
import { settingsOf } from './settings';

export const TOOL_CALLS_OUTPUT = 0;
export const FINAL_ANSWER_OUTPUT = 1;

/** The decide step for one item: one model turn, leaving by Tool Calls or by Final Answer. */
export function decide(context: IExecuteFunctions, endpoint: EndpointConfig) {
	const nodeName = context.getNode().name;
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
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
		if (conversation.toolCalls.length > 0) {
			const names = conversation.toolCalls.map((call) => call.name).join(', ');
			throw new NodeOperationError(context.getNode(), `${conversation.toolCalls.length} tool calls are still pending (${names})`, {
				itemIndex,
				description: 'Run them with MCP Client (Execute Tool Calls) before the next model turn: the API refuses a turn with unanswered calls.',
			});
		}
		const { toolChoice } = settings.model;
		if (typeof toolChoice === 'object' && !conversation.tools.some((tool) => tool.name === toolChoice.name)) {
			throw new NodeOperationError(context.getNode(), `Tool Choice names '${toolChoice.name}', which is not among the tools`, {
				itemIndex,
				description: `Tools: ${conversation.tools.map((tool) => tool.name).join(', ') || 'none'}`,
			});
		}

		const dialect = createOpenAIDialect(settings.request);
		const { body, names, notStrict } = dialect.buildRequest(conversation, settings.model);
		const started = Date.now();
		const exchange = await createChatCompletion(endpoint, body, {
			timeoutMs: settings.timeoutMs,
			maxRetries: settings.maxRetries,
			signal: context.getExecutionCancelSignal(),
		}).catch((error: unknown) => {
			throw asNodeError(context, error, itemIndex);
		});
		const turn = dialect.parseResponse(exchange.response, names);

		const sentStrict = new Set(
			settings.model.strict ? conversation.tools.map((tool) => tool.name).filter((name) => !notStrict.some((n) => n.name === name)) : [],
		);
		const next = applyModelTurn(conversation, turn, sentStrict);
		const at = new Date(started).toISOString();
		const trace: TraceEntry[] = [
			{ step: 'model.request', node: nodeName, at, ...exchange.request, ...(notStrict.length > 0 && { notStrict }) },
			{
				step: 'model.response',
				node: nodeName,
				at: new Date().toISOString(),
				durationMs: Date.now() - started,
				attempts: exchange.attempts,
				...(exchange.chunks !== undefined && { streamedChunks: exchange.chunks }),
				finishReason: turn.finishReason,
				...(turn.usage && { usage: turn.usage }),
				body: exchange.response,
			},
		];
		const json = { ...next, trace: [...next.trace, ...trace] };
		return leave(turn.toolCalls.length > 0 ? TOOL_CALLS_OUTPUT : FINAL_ANSWER_OUTPUT, json);
	};
}

function conversationFor(context: IExecuteFunctions, item: INodeExecutionData, itemIndex: number): Conversation {
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

function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (!(error instanceof ModelApiError)) return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
	return new NodeApiError(context.getNode(), (error.body ?? { message: error.message }) as JsonObject, {
		itemIndex,
		message: error.message,
		httpCode: error.status === undefined ? undefined : String(error.status),
		description: `The model API answered ${error.status ?? 'nothing'} (${error.failure})`,
	});
}
