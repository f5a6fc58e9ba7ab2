import type { Conversation } from '../../conversation/types';
import { sampling, withBodyFields } from '../settings';
import { historyToolNames } from '../toolNames';
import type { ModelSettings, ToolChoice, ToolNameMap, VendorRequest } from '../types';
import { openaiFormat, withJsonInstruction } from './format';
import { toOpenAIMessages } from './messages';
import { openaiToolNames } from './names';
import { toOpenAITools } from './tools';
import type { OpenAIRequest, OpenAIToolChoice } from './wire';

/** The fields of a Chat Completions body the node writes itself: Additional Body Fields may not set them. */
const OPENAI_OWNED = [
	'model',
	'messages',
	'tools',
	'tool_choice',
	'functions',
	'function_call',
	'stream',
	'stream_options',
];

export interface OpenAIRequestOptions {
	/**
	 * Where the token limit goes. OpenAI's reasoning models refuse `max_tokens` with a 400, while
	 * servers that only read `max_tokens` ignore `max_completion_tokens` without failing; so the
	 * default never breaks a request, and `max_tokens` is there for servers that need it.
	 */
	maxTokensField?: 'max_completion_tokens' | 'max_tokens';
}

/**
 * Chat Completions takes at most 128 functions; past that OpenAI refuses the whole request.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools
 */
export const MAX_CHAT_TOOLS = 128;

export function buildOpenAIRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
	options: OpenAIRequestOptions = {},
): VendorRequest<OpenAIRequest> {
	const { messages, tools } = conversation;
	if (tools.length > MAX_CHAT_TOOLS)
		throw new Error(
			`Chat Completions takes at most ${MAX_CHAT_TOOLS} tools (OpenAI's limit of ${MAX_CHAT_TOOLS} functions per request), and this conversation has ${tools.length}. Send fewer: let each MCP Client's List Tools include only the tools needed, or use another provider.`,
		);
	const names = openaiToolNames(historyToolNames(conversation));
	const vendorTools = toOpenAITools(tools, names, settings.strict);
	const body: OpenAIRequest = {
		model: settings.model,
		messages: toOpenAIMessages(withJsonInstruction(messages, settings.responseFormat), names),
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
	Object.assign(body, openaiFormat(settings));
	return {
		body: withBodyFields(body, settings.bodyFields, OPENAI_OWNED),
		names,
		notStrict: vendorTools.notStrict,
	};
}

function toOpenAIToolChoice(choice: ToolChoice, names: ToolNameMap): OpenAIToolChoice {
	if (typeof choice === 'string') return choice;
	return { type: 'function', function: { name: names.toVendor(choice.name) } };
}
