import type {
	ChatCompletionCreateParamsBase,
	ChatCompletionMessageParam,
	ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { Conversation, Message } from '../../conversation/types';
import type { ModelSettings, ToolChoice, ToolNameMap, VendorTools } from '../types';
import { openaiToolNames } from './names';
import { toOpenAITools } from './tools';

export interface OpenAIRequestOptions {
	/**
	 * Where the token limit goes. OpenAI's reasoning models refuse `max_tokens` with a 400, while
	 * servers that only read `max_tokens` ignore `max_completion_tokens` without failing; so the
	 * default never breaks a request, and `max_tokens` is there for servers that need it.
	 */
	maxTokensField?: 'max_completion_tokens' | 'max_tokens';
}

export interface OpenAIRequest {
	body: ChatCompletionCreateParamsBase;
	names: ToolNameMap;
	notStrict: VendorTools<unknown>['notStrict'];
}

export function buildOpenAIRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
	options: OpenAIRequestOptions = {},
): OpenAIRequest {
	const { messages, tools } = conversation;
	// Names in history are mapped too, so a call to a tool since removed is still a legal name.
	const historyNames = messages.flatMap((message) =>
		message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.name) : [],
	);
	const names = openaiToolNames([...tools.map((tool) => tool.name), ...historyNames]);
	const vendorTools = toOpenAITools(tools, names, settings.strict);
	const body: ChatCompletionCreateParamsBase = {
		model: settings.model,
		messages: messages.map((message) => toOpenAIMessage(message, names)),
		stream: settings.stream,
	};
	if (tools.length > 0) {
		body.tools = vendorTools.tools;
		body.tool_choice = toOpenAIToolChoice(settings.toolChoice, names);
		if (settings.parallelToolCalls !== undefined) body.parallel_tool_calls = settings.parallelToolCalls;
	}
	if (settings.temperature !== undefined) body.temperature = settings.temperature;
	if (settings.maxTokens !== undefined) body[options.maxTokensField ?? 'max_completion_tokens'] = settings.maxTokens;
	if (settings.stream) body.stream_options = { include_usage: true };
	return { body, names, notStrict: vendorTools.notStrict };
}

/** Our message without our own keys; tool names in calls mapped to vendor names. */
function toOpenAIMessage(message: Message, names: ToolNameMap): ChatCompletionMessageParam {
	if (message.role === 'tool') {
		// isError needs no marker: the text already says the call failed.
		return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
	}
	if (message.role === 'assistant') {
		const calls = message.tool_calls ?? [];
		return {
			role: 'assistant',
			content: message.content,
			// An empty tool_calls array is refused ("too short"), so it is left out.
			...(calls.length > 0 && {
				tool_calls: calls.map((call) => ({
					id: call.id,
					type: 'function' as const,
					function: {
						name: names.toVendor(call.function.name),
						// Servers that parse history arguments fail on "", which means no arguments.
						arguments: call.function.arguments.trim() === '' ? '{}' : call.function.arguments,
					},
				})),
			}),
		};
	}
	return { role: message.role, content: message.content };
}

function toOpenAIToolChoice(choice: ToolChoice, names: ToolNameMap): ChatCompletionToolChoiceOption {
	if (typeof choice === 'string') return choice;
	return { type: 'function', function: { name: names.toVendor(choice.name) } };
}
