import type { JsonSchema } from '../../conversation/types';

/**
 * The parts of OpenAI's Responses API (POST /responses) this dialect writes and reads, from the API
 * reference and the openai SDK's types (ResponseCreateParams, Response, ResponseStreamEvent). Output
 * items and stream events are kept as open records and read as untrusted JSON: reasoning items must
 * be echoed as they came, and compatible servers leave out ids, indexes and statuses.
 */

/** Any output item (message, function_call, reasoning, …); an echoed turn sends them back as input. */
export type ResponsesItem = { type?: string; [key: string]: unknown };

export type ResponsesInputItem =
	| { role: 'user' | 'assistant'; content: string }
	| { type: 'function_call'; call_id: string; name: string; arguments: string }
	| { type: 'function_call_output'; call_id: string; output: string }
	| ResponsesItem;

export interface ResponsesFunctionTool {
	type: 'function';
	name: string;
	description?: string;
	parameters: JsonSchema | null;
	/** Always sent: a function is strict unless told `strict: false`. */
	strict: boolean;
}

export type ResponsesToolChoice = 'auto' | 'required' | 'none' | { type: 'function'; name: string };

export interface ResponsesRequest {
	model: string;
	/** The system text. */
	instructions?: string;
	input: ResponsesInputItem[];
	stream: boolean;
	/** Always false: the whole conversation is sent each turn. */
	store: false;
	tools?: ResponsesFunctionTool[];
	tool_choice?: ResponsesToolChoice;
	parallel_tool_calls?: boolean;
	temperature?: number;
	max_output_tokens?: number;
	include?: string[];
	text?: { format: Record<string, unknown> };
	reasoning?: { effort: string; summary: string };
	prompt_cache_key?: string;
}

/** The body of a non-streamed call, and what the stream assembler builds. */
export interface ResponsesResponse {
	id?: string;
	object?: string;
	/** completed, incomplete, in_progress (a stream cut short), failed, queued or cancelled. */
	status?: string;
	output?: unknown[];
	/** Why an incomplete response stopped: max_output_tokens or content_filter. */
	incomplete_details?: { reason?: string } | null;
	usage?: Record<string, unknown> | null;
	/** Set on a failed response, or on an error body. */
	error?: unknown;
	[key: string]: unknown;
}

/** The `data` of one Server-Sent Event; every one names its kind in `type`. */
export type ResponsesStreamEvent = { type?: string; [key: string]: unknown };
