import { answerToolFields, withAnswerTool } from '../answerTool';
import { withBodyFields } from '../settings';
import type { Conversation, Tool } from '../../conversation/types';
import { anthropicFormat, markCacheBreakpoints, type AnthropicShape } from './format';
import { historyToolNames } from '../toolNames';
import type { ModelSettings, ToolNameMap, VendorRequest } from '../types';
import { toAnthropicMessages } from './messages';
import { anthropicToolNames } from './names';
import { toAnthropicTools } from './tools';
import type { AnthropicRequest, AnthropicTool, AnthropicToolChoice } from './wire';

/** The fields of a Messages body the node writes itself: Additional Body Fields may not set them. */
const ANTHROPIC_OWNED = ['model', 'messages', 'system', 'tools', 'tool_choice', 'stream'];

/**
 * Anthropic refuses a request without max_tokens. 4096 is within every Claude model's output limit
 * (the oldest allow no more) and leaves room for a tool call with long arguments.
 */
export const DEFAULT_MAX_TOKENS = 4096;

export function buildAnthropicRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
): VendorRequest<AnthropicRequest> {
	const shape = anthropicFormat(
		settings,
		conversation.tools,
		settings.maxTokens ?? DEFAULT_MAX_TOKENS,
	);
	const tools = withAnswerTool(conversation.tools, shape.answer);
	const names = anthropicToolNames(historyToolNames({ ...conversation, tools }));
	const vendorTools = toAnthropicTools(tools, names, settings.strict);
	const { system, messages } = toAnthropicMessages(conversation.messages, names);
	const body: AnthropicRequest = {
		model: settings.model,
		max_tokens: shape.maxTokens,
		messages,
		stream: settings.stream,
		...shape.fields,
	};
	if (system !== undefined) body.system = system;
	if (tools.length > 0) {
		body.tools = vendorTools.tools;
		body.tool_choice = toAnthropicToolChoice(
			settings,
			names,
			answerOnly(shape, conversation.tools),
		);
	} else {
		const called = calledTools(conversation, names);
		if (called.length > 0) {
			body.tools = called;
			body.tool_choice = { type: 'none' };
		}
	}
	if (settings.temperature !== undefined) body.temperature = settings.temperature;
	if (settings.promptCaching) markCacheBreakpoints(body);
	return {
		body: withBodyFields(body, settings.bodyFields, ANTHROPIC_OWNED),
		names,
		...answerToolFields(vendorTools.notStrict, shape.answer),
	};
}

/** The answer tool, when it is the only tool and thinking allows forcing it: the model must answer by it. */
function answerOnly(shape: AnthropicShape, tools: readonly Tool[]): string | undefined {
	return shape.answer && tools.length === 0 && !shape.fields.thinking
		? shape.answer.answerTool.name
		: undefined;
}

/**
 * Anthropic refuses a history that holds tool_use blocks in a request without tools (the tools
 * cleared for a last summary, say): the tools it called are declared again, as nothing to call now.
 */
function calledTools(
	conversation: Pick<Conversation, 'messages'>,
	names: ToolNameMap,
): AnthropicTool[] {
	const called = conversation.messages.flatMap((message) =>
		message.role === 'assistant'
			? (message.tool_calls ?? []).map((call) => call.function.name)
			: [],
	);
	return [...new Set(called)].map((name) => ({
		name: names.toVendor(name),
		description: 'Called earlier in this conversation; not offered now.',
		input_schema: { type: 'object', properties: {} },
	}));
}

/** Parallel calls are on by default; turning them off is a flag on the choice ("none" has none). */
function toAnthropicToolChoice(
	settings: ModelSettings,
	names: ToolNameMap,
	forced?: string,
): AnthropicToolChoice {
	const toolChoice = forced ? { name: forced } : settings.toolChoice;
	if (toolChoice === 'none') return { type: 'none' };
	const choice: AnthropicToolChoice =
		toolChoice === 'auto'
			? { type: 'auto' }
			: toolChoice === 'required'
				? { type: 'any' }
				: { type: 'tool', name: names.toVendor(toolChoice.name) };
	if (settings.parallelToolCalls === false) choice.disable_parallel_tool_use = true;
	return choice;
}
