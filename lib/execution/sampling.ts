import type {
	CreateMessageRequestParams,
	CreateMessageResultWithTools,
	SamplingMessage,
	SamplingMessageContentBlock,
} from '@modelcontextprotocol/sdk/types.js';
import type { Message, Tool } from '../conversation/types';
import type { Dialect, EndpointConfig, ModelSettings, ModelTurn } from '../dialects/types';
import type { SamplingAnswer } from '../mcp/serverRequests';
import { callModel, type ModelCallOptions } from '../model/transport';

/** The model that answers a server's sampling requests, and what the node allows them. */
export interface SamplingModel {
	dialect: Dialect;
	endpoint: EndpointConfig;
	/** The model asked, unless the server's hints name one of `modelChoices`. */
	model: string;
	call: ModelCallOptions;
	/** The most tokens one answer may take, whatever the server asks for. */
	maxTokens: number;
	/** Models the server's model preferences may pick (each hint matches a name it is part of). */
	modelChoices: string[];
	/** Whether the server's system prompt goes to the model. */
	useSystemPrompt: boolean;
	/** Tools a request may offer the model, by name; a request offering any other is refused. */
	allowedTools: string[];
}

/**
 * A server's sampling request (MCP `sampling/createMessage`) as one model turn through the
 * dialect: its messages, system prompt, tools and limits as the node allows them. Throws, naming
 * why, for what cannot or may not be passed on (content other than text and tools, a tool not
 * allowed); the server then gets the error.
 */
export async function answerSampling(
	params: CreateMessageRequestParams,
	sampling: SamplingModel,
): Promise<SamplingAnswer> {
	const tools = (params.tools ?? []).map((tool): Tool => ({
		name: tool.name,
		...(tool.description !== undefined && { description: tool.description }),
		inputSchema: tool.inputSchema as Tool['inputSchema'],
	}));
	const refused = tools.filter((tool) => !sampling.allowedTools.includes(tool.name));
	if (refused.length > 0) {
		throw new Error(
			`The request offers the model tools this node does not allow: ${refused.map((tool) => tool.name).join(', ')} (Tools the Server May Offer)`,
		);
	}
	const system =
		sampling.useSystemPrompt && params.systemPrompt
			? [{ role: 'system' as const, content: params.systemPrompt }]
			: [];
	const messages: Message[] = [...system, ...params.messages.flatMap(neutralMessages)];
	const model = chosenModel(params, sampling);
	const settings: ModelSettings = {
		model,
		toolChoice: tools.length > 0 ? (params.toolChoice?.mode ?? 'auto') : 'auto',
		maxTokens: Math.min(params.maxTokens, sampling.maxTokens),
		...(params.temperature !== undefined && { temperature: params.temperature }),
		stream: false,
	};
	const { dialect } = sampling;
	const { body, names } = dialect.buildRequest({ messages, tools }, settings);
	const exchange = await callModel(
		dialect,
		sampling.endpoint,
		{ body, model, stream: false },
		sampling.call,
	);
	const turn = dialect.parseResponse(exchange.response, names);
	return { result: resultOf(turn, model), ...(turn.usage && { usage: turn.usage }) };
}

/** The first hint naming part of a model the node allows picks it; else the node's model. */
function chosenModel(params: CreateMessageRequestParams, sampling: SamplingModel): string {
	for (const hint of params.modelPreferences?.hints ?? []) {
		const name = hint.name?.toLowerCase();
		const found = name && sampling.modelChoices.find((model) => model.toLowerCase().includes(name));
		if (found) return found;
	}
	return sampling.model;
}

const blocksOf = (message: SamplingMessage): SamplingMessageContentBlock[] =>
	Array.isArray(message.content) ? message.content : [message.content];

/**
 * A sampling message in the conversation's neutral form: text as it is, an assistant's tool_use
 * as its tool calls, a user's tool_result as tool messages. Images and audio cannot be passed.
 */
function neutralMessages(message: SamplingMessage): Message[] {
	const blocks = blocksOf(message);
	const unfit = blocks.find((block) => !['text', 'tool_use', 'tool_result'].includes(block.type));
	if (unfit) {
		throw new Error(
			`The request holds ${unfit.type} content, which this client passes to no model (only text and tools)`,
		);
	}
	const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
	if (message.role === 'assistant') {
		const calls = blocks.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
		return [
			{
				role: 'assistant',
				content: text || null,
				...(calls.length > 0 && {
					tool_calls: calls.map((call) => ({
						id: call.id,
						type: 'function' as const,
						function: { name: call.name, arguments: JSON.stringify(call.input) },
					})),
				}),
			},
		];
	}
	const results: Message[] = blocks.flatMap((block) =>
		block.type === 'tool_result'
			? [
					{
						role: 'tool' as const,
						tool_call_id: block.toolUseId,
						content: block.content
							.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
							.join('\n'),
						...(block.isError && { isError: true }),
					},
				]
			: [],
	);
	return text ? [...results, { role: 'user', content: text }] : results;
}

const STOP_REASONS: Partial<Record<ModelTurn['finish'], string>> = {
	stop: 'endTurn',
	length: 'maxTokens',
	tool_calls: 'toolUse',
};

/** The model's turn as the server reads it: text, and its tool calls as tool_use blocks. */
function resultOf(turn: ModelTurn, model: string): CreateMessageResultWithTools {
	const text = turn.message.content ?? '';
	const stopReason = STOP_REASONS[turn.finish] ?? turn.finishReason ?? turn.finish;
	if (turn.toolCalls.length === 0) {
		return { role: 'assistant', model, stopReason, content: { type: 'text', text } };
	}
	return {
		role: 'assistant',
		model,
		stopReason: 'toolUse',
		content: [
			...(text ? [{ type: 'text' as const, text }] : []),
			...turn.toolCalls.map((call) => ({
				type: 'tool_use' as const,
				id: call.id,
				name: call.name,
				input: call.arguments ?? {},
			})),
		],
	};
}
