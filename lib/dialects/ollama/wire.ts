/**
 * The parts of Ollama's native /api/chat wire format the dialect uses, after Ollama's Go types
 * (api/types.go: ChatRequest, Message, ToolCall, Tool, ChatResponse, Metrics). Vendor JSON is
 * untrusted, so the response side marks everything optional.
 */

export interface OllamaTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** Arguments are an object on the wire both ways, never a JSON string. */
export interface OllamaToolCall {
	/** Sent by Ollama 0.12.10 and later; older servers send none. */
	id?: string;
	function: { index?: number; name: string; arguments: Record<string, unknown> };
}

export interface OllamaMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content: string;
	/** The model's reasoning; Ollama asks for it back beside the calls it led to. */
	thinking?: string;
	tool_calls?: OllamaToolCall[];
	/** On tool messages: which tool answered; older servers match results by this alone. */
	tool_name?: string;
	/** On tool messages, since 0.12.10: the id of the call answered. */
	tool_call_id?: string;
}

export interface OllamaChatRequest {
	model: string;
	messages: OllamaMessage[];
	tools?: OllamaTool[];
	/** Ollama streams unless told otherwise, so it is always sent. */
	stream: boolean;
	options?: { temperature?: number; num_predict?: number };
	/** "json", or a JSON Schema the answer must match. */
	format?: 'json' | Record<string, unknown>;
	/** Reasoning on, or its level (gpt-oss). */
	think?: boolean | string;
}

/** A non-streamed body, and each NDJSON line of a stream (partial message, counts on the last). */
export interface OllamaChatResponse {
	model?: string;
	created_at?: string;
	message?: Partial<OllamaMessage>;
	done?: boolean;
	/** stop, length, load or unload. */
	done_reason?: string;
	total_duration?: number;
	load_duration?: number;
	prompt_eval_count?: number;
	prompt_eval_duration?: number;
	eval_count?: number;
	eval_duration?: number;
	/** An error body, or an error line in the middle of a stream. */
	error?: unknown;
}
