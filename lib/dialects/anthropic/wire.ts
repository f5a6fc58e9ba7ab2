import type { JsonSchema } from '../../conversation/types';

/**
 * The parts of Anthropic's Messages API (POST /v1/messages, anthropic-version 2023-06-01) this
 * dialect writes and reads, from the API reference. Block and event kinds we do not use are kept
 * as open records, never dropped: thinking and server tool blocks must be echoed as they came.
 */

/** Any content block; the kinds below are the ones this dialect builds or reads. */
export type AnthropicBlock = { type: string; [key: string]: unknown };

export type AnthropicToolUseBlock = {
	type: 'tool_use';
	id: string;
	name: string;
	input: Record<string, unknown>;
};

/** `content` may be left out (the API reads that as an empty result); `is_error` is sent only when true. */
export type AnthropicToolResultBlock = {
	type: 'tool_result';
	tool_use_id: string;
	content?: string;
	is_error?: true;
};

export interface AnthropicMessageParam {
	role: 'user' | 'assistant';
	content: string | AnthropicBlock[];
}

export interface AnthropicTool {
	name: string;
	description?: string;
	input_schema: JsonSchema;
	cache_control?: { type: 'ephemeral' };
}

export type AnthropicToolChoice =
	| { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
	| { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
	| { type: 'none' };

export interface AnthropicRequest {
	model: string;
	max_tokens: number;
	messages: AnthropicMessageParam[];
	/** Text, or text blocks when one carries a cache breakpoint. */
	system?: string | AnthropicBlock[];
	tools?: AnthropicTool[];
	tool_choice?: AnthropicToolChoice;
	temperature?: number;
	stream: boolean;
	output_config?: { format: { type: 'json_schema'; schema: JsonSchema } };
	thinking?: { type: 'enabled'; budget_tokens: number };
}

/** The response body of a non-streamed call, and what the stream assembler builds. */
export interface AnthropicMessage {
	id: string;
	type: 'message';
	role: 'assistant';
	model: string;
	content: AnthropicBlock[];
	/** end_turn, max_tokens, stop_sequence, tool_use, pause_turn, refusal, model_context_window_exceeded; null mid-stream. */
	stop_reason: string | null;
	stop_sequence: string | null;
	usage?: Record<string, unknown>;
	[key: string]: unknown;
}

export type AnthropicDelta =
	| { type: 'text_delta'; text: string }
	| { type: 'input_json_delta'; partial_json: string }
	| { type: 'thinking_delta'; thinking: string }
	| { type: 'signature_delta'; signature: string }
	| { type: 'citations_delta'; citation: unknown };

/** The `data` of one Server-Sent Event; every one names its kind in `type`. */
export type AnthropicStreamEvent =
	| { type: 'message_start'; message: AnthropicMessage }
	| { type: 'content_block_start'; index: number; content_block: AnthropicBlock }
	| { type: 'content_block_delta'; index: number; delta: AnthropicDelta }
	| { type: 'content_block_stop'; index: number }
	| { type: 'message_delta'; delta: Record<string, unknown>; usage?: Record<string, unknown> }
	| { type: 'message_stop' }
	| { type: 'ping' }
	| { type: 'error'; error: { type: string; message: string } };
