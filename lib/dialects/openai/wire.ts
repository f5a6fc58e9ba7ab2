import type { JsonSchema } from '../../conversation/types';

/**
 * The parts of OpenAI's Chat Completions wire format (POST /chat/completions) this dialect writes
 * and reads, from the API reference and the openai SDK's types (ChatCompletionCreateParams,
 * ChatCompletion, ChatCompletionChunk). Compatible servers leave out ids, send arguments as objects
 * or answer with an error body, so the response side marks everything optional.
 */

export interface OpenAIToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

export type OpenAIMessage =
	| { role: 'system' | 'user'; content: string }
	| { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
	| { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAIFunction {
	name: string;
	description?: string;
	parameters?: JsonSchema;
	strict?: boolean;
}

export interface OpenAITool {
	type: 'function';
	function: OpenAIFunction;
}

export type OpenAIToolChoice =
	'auto' | 'required' | 'none' | { type: 'function'; function: { name: string } };

export interface OpenAIRequest {
	model: string;
	messages: OpenAIMessage[];
	stream: boolean;
	tools?: OpenAITool[];
	tool_choice?: OpenAIToolChoice;
	parallel_tool_calls?: boolean;
	temperature?: number;
	max_completion_tokens?: number;
	max_tokens?: number;
	stream_options?: { include_usage: boolean };
	response_format?:
		| { type: 'json_object' }
		| { type: 'json_schema'; json_schema: { name: string; schema: JsonSchema; strict: boolean } };
	reasoning_effort?: string;
	prompt_cache_key?: string;
}

/** A call as a response carries it: `type` is "function", or "custom" for a kind never offered. */
export interface OpenAIResponseToolCall {
	id?: string;
	type?: string;
	function?: { name?: unknown; arguments?: unknown };
}

/** A part of content sent as a list, as Mistral's reasoning models do: thinking parts, then text parts. */
export interface OpenAIContentPart {
	type?: string;
	text?: unknown;
	[key: string]: unknown;
}

export interface OpenAIResponseMessage {
	role?: string;
	content?: string | OpenAIContentPart[] | null;
	/** The model's refusal in strict mode, in place of content. */
	refusal?: string | null;
	tool_calls?: OpenAIResponseToolCall[];
	/** Reasoning, apart from the answer: DeepSeek's and vLLM's reasoning_content, OpenRouter's reasoning. */
	reasoning_content?: unknown;
	reasoning?: unknown;
}

export interface OpenAIChoice {
	index?: number;
	message?: OpenAIResponseMessage;
	/** stop, length, tool_calls, content_filter, function_call (legacy); null for a stream cut short. */
	finish_reason?: string | null;
	logprobs?: unknown;
}

/** The body of a non-streamed call, and what the stream assembler builds. */
export interface OpenAICompletion {
	id?: string;
	object?: string;
	created?: number;
	model?: string;
	choices?: OpenAIChoice[];
	usage?: Record<string, unknown> | null;
	/** An error body (compatible servers send one with status 200), or a streamed error carried over. */
	error?: unknown;
}

/** A streamed fragment of a call: `index` names the call, id, type and name come on its first fragment. */
export interface OpenAIToolCallDelta {
	index?: number;
	id?: string | null;
	type?: string;
	function?: { name?: string; arguments?: unknown };
}

/** The `data` of one Server-Sent Event (`chat.completion.chunk`). */
export interface OpenAIChunk {
	id?: string;
	object?: string;
	created?: number;
	model?: string;
	choices?: Array<{
		index?: number;
		delta?: {
			role?: string;
			content?: string | OpenAIContentPart[] | null;
			refusal?: string | null;
			tool_calls?: OpenAIToolCallDelta[];
			reasoning_content?: unknown;
			reasoning?: unknown;
		};
		finish_reason?: string | null;
	}>;
	/** Sent on the last chunk when include_usage is asked for. */
	usage?: Record<string, unknown> | null;
	error?: unknown;
	/** Keys we do not know (obfuscation, system_fingerprint) are ignored. */
	[key: string]: unknown;
}
