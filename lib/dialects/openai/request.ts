import type { Conversation } from '../../conversation/types';
import { sampling } from '../settings';
import { historyToolNames } from '../toolNames';
import type { ModelSettings, ToolChoice, ToolNameMap, VendorRequest } from '../types';
import { toOpenAIMessages } from './messages';
import { openaiToolNames } from './names';
import { toOpenAITools } from './tools';
import type { OpenAIRequest, OpenAIToolChoice } from './wire';

export interface OpenAIRequestOptions {
	/**
	 * Where the token limit goes. OpenAI's reasoning models refuse `max_tokens` with a 400, while
	 * servers that only read `max_tokens` ignore `max_completion_tokens` without failing; so the
	 * default never breaks a request, and `max_tokens` is there for servers that need it.
	 */
	maxTokensField?: 'max_completion_tokens' | 'max_tokens';
}

export function buildOpenAIRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
	options: OpenAIRequestOptions = {},
): VendorRequest<OpenAIRequest> {
	const { messages, tools } = conversation;
	const names = openaiToolNames(historyToolNames(conversation));
	const vendorTools = toOpenAITools(tools, names, settings.strict);
	const body: OpenAIRequest = {
		model: settings.model,
		messages: toOpenAIMessages(messages, names),
		stream: settings.stream,
	};
	if (tools.length > 0) {
		body.tools = vendorTools.tools;
		body.tool_choice = toOpenAIToolChoice(settings.toolChoice, names);
		if (settings.parallelToolCalls !== undefined)
			body.parallel_tool_calls = settings.parallelToolCalls;
	}
	Object.assign(body, sampling(settings, options.maxTokensField ?? 'max_completion_tokens'));
	if (settings.stream) body.stream_options = { include_usage: true };
	return { body, names, notStrict: vendorTools.notStrict };
}

function toOpenAIToolChoice(choice: ToolChoice, names: ToolNameMap): OpenAIToolChoice {
	if (typeof choice === 'string') return choice;
	return { type: 'function', function: { name: names.toVendor(choice.name) } };
}
