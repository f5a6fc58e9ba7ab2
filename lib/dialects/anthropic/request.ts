import type { Conversation } from '../../conversation/types';
import { historyToolNames } from '../toolNames';
import type { ModelSettings, ToolNameMap, VendorRequest } from '../types';
import { toAnthropicMessages } from './messages';
import { anthropicToolNames } from './names';
import { toAnthropicTools } from './tools';
import type { AnthropicRequest, AnthropicToolChoice } from './wire';

/**
 * Anthropic refuses a request without max_tokens. 4096 is within every Claude model's output limit
 * (the oldest allow no more) and leaves room for a tool call with long arguments.
 */
export const DEFAULT_MAX_TOKENS = 4096;

export function buildAnthropicRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
): VendorRequest<AnthropicRequest> {
	const { tools } = conversation;
	const names = anthropicToolNames(historyToolNames(conversation));
	const vendorTools = toAnthropicTools(tools, names, settings.strict);
	const { system, messages } = toAnthropicMessages(conversation.messages, names);
	const body: AnthropicRequest = {
		model: settings.model,
		max_tokens: settings.maxTokens ?? DEFAULT_MAX_TOKENS,
		messages,
		stream: settings.stream,
	};
	if (system !== undefined) body.system = system;
	if (tools.length > 0) {
		body.tools = vendorTools.tools;
		body.tool_choice = toAnthropicToolChoice(settings, names);
	}
	if (settings.temperature !== undefined) body.temperature = settings.temperature;
	return { body, names, notStrict: vendorTools.notStrict };
}

/** Parallel calls are on by default; turning them off is a flag on the choice ("none" has none). */
function toAnthropicToolChoice(settings: ModelSettings, names: ToolNameMap): AnthropicToolChoice {
	const { toolChoice } = settings;
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
