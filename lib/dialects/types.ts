import type {
	AssistantMessage,
	Conversation,
	JsonSchema,
	PendingToolCall,
	TokenCounts,
	Tool,
} from '../conversation/types';

/**
 * Every vendor dialect is one folder with the same parts, in files of the same names:
 *   names.ts    - the vendor's tool-name rule (a reversible ToolNameMap built with ../toolNames)
 *   tools.ts    - tools out: our Tool[] to the vendor's tool definitions, the vendor's schema rules applied
 *   messages.ts - messages out: the neutral conversation to the vendor's messages (results written back its way)
 *   request.ts  - the request body: messages, tools, tool choice and settings
 *   format.ts   - the turn's shape: a structured answer (JSON, a JSON Schema), reasoning and prompt caching, the vendor's way
 *   response.ts - response in: the vendor's response body to a ModelTurn
 *   stream.ts   - stream assembly: streamed events folded into the body a non-streamed call returns
 *   finish.ts   - finish reason: the vendor's stop reason to our neutral Finish
 *   usage.ts    - token counts: the vendor's usage to our neutral TokenCounts (cache and reasoning apart)
 *   http.ts     - where and how to call: URL, auth headers, stream framing, error text, model list
 *   wire.ts     - the vendor's wire types, only the parts the dialect writes and reads
 *   index.ts    - the Dialect object that bundles them
 * No part imports n8n or does I/O: dialects are plain functions over plain JSON (lib/model does the HTTP).
 */

export type DialectId = 'openaiChat' | 'openaiResponses' | 'anthropic' | 'gemini' | 'ollama';

export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

/** The final answer as JSON: any JSON value, or one that matches a JSON Schema (named for the vendors that want a name). */
export type ResponseFormat =
	{ type: 'json' } | { type: 'jsonSchema'; name: string; schema: JsonSchema };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/** How much the model may reason before it answers; each vendor takes the one it has, the other derived. */
export interface Reasoning {
	effort?: ReasoningEffort;
	/** Tokens the model may spend thinking (Anthropic's and Gemini 2.5's budget). */
	budgetTokens?: number;
}

export interface ModelSettings {
	model: string;
	toolChoice: ToolChoice;
	parallelToolCalls?: boolean;
	temperature?: number;
	maxTokens?: number;
	/** Ask for strict schemas where the vendor has them; tools that cannot be made strict are sent as they are and named. */
	strict?: boolean;
	stream: boolean;
	/** Fields merged into the request body, for what the node does not model; a field the node writes is refused. */
	bodyFields?: Record<string, unknown>;
	/** A structured final answer; text when not set. */
	responseFormat?: ResponseFormat;
	reasoning?: Reasoning;
	/** Mark the prompt for the vendor's cache (Anthropic's cache_control breakpoints). */
	promptCaching?: boolean;
	/** OpenAI's prompt_cache_key: requests of one conversation or session land on the same cache. */
	promptCacheKey?: string;
}

/** Where a model API is and how to authenticate; each dialect's http.ts turns it into URL and headers. */
export interface EndpointConfig {
	baseUrl: string;
	apiKey?: string;
	/** OpenAI's organization header. */
	organization?: string;
	/** Anthropic's `anthropic-version` header. */
	version?: string;
	/** Extra headers sent on every request. */
	headers: Record<string, string>;
}

/** Conversation tool names to vendor names and back. */
export interface ToolNameMap {
	toVendor(name: string): string;
	fromVendor(vendorName: string): string;
}

export interface NotStrict {
	name: string;
	reason: string;
}

export interface VendorTools<TTool> {
	tools: TTool[];
	names: ToolNameMap;
	/** Tools sent without strict mode, each with the reason it could not be made strict. */
	notStrict: NotStrict[];
}

export interface VendorRequest<TRequest> {
	body: TRequest;
	names: ToolNameMap;
	notStrict: NotStrict[];
	/**
	 * The tool the structured answer comes by, where the vendor takes no structured answer beside
	 * tools (answerTool.ts): a call of it is the answer, not a call to run.
	 */
	answerTool?: AnswerTool;
}

/** The tool a structured answer is given by; `wrapped`: the answer is its `answer` argument (a schema whose root is no object). */
export interface AnswerTool {
	name: string;
	wrapped: boolean;
}

/** Why a turn ended, the same words for every vendor; the vendor's own reason is kept beside it. */
export type Finish =
	'tool_calls' | 'stop' | 'length' | 'content_filter' | 'malformed_tool_call' | 'error' | 'other';

export interface ModelTurn {
	/** The assistant message in our neutral form, tool names already mapped back. */
	message: AssistantMessage;
	toolCalls: PendingToolCall[];
	finish: Finish;
	/** The vendor's own stop reason, as it sent it. */
	finishReason: string | null;
	/** The model that answered, as the vendor names it: a dated snapshot, the model behind a deployment. */
	model?: string;
	/** The vendor's usage object, as it sent it. */
	usage?: Record<string, unknown>;
	/** The turn's token counts in the neutral form: null where the vendor reported none. */
	tokens: TokenCounts;
	/** Counts in the vendor's usage that could not be read (wrong type, below zero), left out. */
	usageWarnings?: string[];
	/** The model's reasoning as text (summaries, thinking, thoughts), for the trace: never part of the answer. */
	reasoning?: string;
	/**
	 * What the model asked of its client that is no function call this node hands on (a Responses
	 * `custom_tool_call` or `local_shell_call`, say), each named: a turn of only these is no answer.
	 */
	unanswered?: string[];
}

/** Folds streamed events into the body a non-streamed call would have returned. */
export interface StreamAssembler<TChunk, TResponse> {
	/**
	 * Folds one event in; returns the answer text it adds, as the turn's `content` will hold it
	 * ('' when it adds none: calls, reasoning, bookkeeping), so the text can be shown as it is written.
	 */
	push(chunk: TChunk): string;
	/** True once the vendor's end-of-turn event arrived; a stream that ends before it was cut short. */
	finished(): boolean;
	result(): TResponse;
}

export interface DialectHttp {
	/** The URL of one model call; Gemini puts the model and the stream choice in it. */
	url(endpoint: EndpointConfig, model: string, stream: boolean): string;
	/** Auth, version and the endpoint's extra headers. */
	headers(endpoint: EndpointConfig): Record<string, string>;
	/** How streamed events are framed: Server-Sent Events, or one JSON object per line (Ollama). */
	streamFraming: 'sse' | 'ndjson';
	/** The vendor's own words in an error body, undefined when the body is not an error. */
	errorMessage(body: unknown): string | undefined;
	/** The URL that lists models, and the model ids in its answer. */
	modelsUrl(endpoint: EndpointConfig): string;
	parseModels(body: unknown): string[];
}

export interface Dialect<TRequest = unknown, TResponse = unknown, TChunk = unknown> {
	id: DialectId;
	http: DialectHttp;
	/** Throws UnsupportedSettingError for a setting the vendor does not have. */
	buildRequest(
		conversation: Pick<Conversation, 'messages' | 'tools'>,
		settings: ModelSettings,
	): VendorRequest<TRequest>;
	parseResponse(body: TResponse, names: ToolNameMap): ModelTurn;
	createStreamAssembler(): StreamAssembler<TChunk, TResponse>;
}

/** A setting the chosen vendor has no way to express (Ollama has no tool choice, say). */
export class UnsupportedSettingError extends Error {}

export type { Tool };
