/**
 * The item contract: one n8n item carries one conversation as plain JSON.
 * Messages use the OpenAI Chat Completions shape (what users recognise from logs), plus a few
 * optional keys of our own that every dialect strips before a request. See docs/item-contract.md;
 * lib/conversation/conversation.schema.json is the machine-checked form of these types.
 */

export type JsonSchema = Record<string, unknown>;

export interface AssistantToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

export interface SystemMessage {
	role: 'system';
	content: string;
}

export interface UserMessage {
	role: 'user';
	content: string;
}

export interface AssistantMessage {
	role: 'assistant';
	content: string | null;
	tool_calls?: AssistantToolCall[];
	/**
	 * Our key: the vendor's own form of this turn, for what the neutral form cannot hold (Gemini's
	 * thought signatures, Anthropic's thinking blocks, Responses reasoning items). Sent back as it is
	 * when the conversation continues with the same dialect; other dialects ignore it.
	 */
	vendorTurn?: VendorTurn;
}

export interface VendorTurn {
	/** The dialect that wrote it: openaiChat, openaiResponses, anthropic, gemini or ollama. */
	dialect: string;
	content: unknown[];
}

/** A reference from a tool message to n8n binary data held on the same item. */
export interface BinaryReference {
	/** Key in the item's `binary` object. */
	binaryProperty: string;
	kind: 'image' | 'audio' | 'blob';
	mimeType: string;
	uri?: string;
}

/** A resource a tool result links to (MCP `resource_link`): a Read Resource node reads it by `uri`. */
export interface ResourceLink {
	uri: string;
	name: string;
	title?: string;
	description?: string;
	mimeType?: string;
}

export interface ToolMessage {
	role: 'tool';
	tool_call_id: string;
	content: string;
	/** Our keys: the call failed (validation, server error, timeout); the text says why. */
	isError?: boolean;
	/** The tool's name as the conversation knows it, for readers of the log. */
	name?: string;
	structuredContent?: Record<string, unknown>;
	attachments?: BinaryReference[];
	/** Resources the result links to, in content order. */
	resourceLinks?: ResourceLink[];
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface ToolAnnotations {
	title?: string;
	readOnlyHint?: boolean;
	destructiveHint?: boolean;
	idempotentHint?: boolean;
	openWorldHint?: boolean;
}

/** A tool the model may call. `server` is absent for tools defined in a model node. */
export interface Tool {
	/** Unique within the conversation; differs from `mcpName` only to resolve a collision. */
	name: string;
	title?: string;
	description?: string;
	inputSchema: JsonSchema;
	outputSchema?: JsonSchema;
	annotations?: ToolAnnotations;
	server?: string;
	/** The name the MCP server knows the tool by. */
	mcpName?: string;
	/** The n8n workflow that answers the tool's calls, for a tool of n8n workflows. */
	workflow?: WorkflowReference;
}

/** An n8n workflow by its id, with its name as it was when the tool was listed. */
export interface WorkflowReference {
	id: string;
	name?: string;
}

/** A call the model asked for that no executor has answered yet. */
export interface PendingToolCall {
	id: string;
	name: string;
	/** Parsed arguments, or null when `rawArguments` is not a JSON object. */
	arguments: Record<string, unknown> | null;
	rawArguments: string;
	/** Why `rawArguments` could not be parsed; the executor tells the model. */
	argumentsError?: string;
}

/** One step of the conversation's story; docs/trace.md lists the steps and their keys. */
export interface TraceEntry {
	/** One of the steps docs/trace.md lists: tools.list, model.request, tools.call.result… */
	step: string;
	node: string;
	/** The model turn the step belongs to; 0 before the first. */
	round?: number;
	at: string;
	durationMs?: number;
	/** The payload's size as UTF-8 JSON. */
	bytes?: number;
	/** The JSON of the step, unless left out for the reason in payloadOmitted. */
	payload?: unknown;
	payloadOmitted?: string;
	/** Answered from a recording, not by the API or the server. */
	replayed?: boolean;
	[detail: string]: unknown;
}

export interface Conversation {
	messages: Message[];
	tools: Tool[];
	toolCalls: PendingToolCall[];
	trace: TraceEntry[];
	/** The final assistant text, set when the model answered without calling tools. */
	answer?: string;
	/** The answer parsed as JSON, when a Response Format asked for JSON; checked against its schema. */
	output?: object | string | number | boolean | null;
	/** Model turns taken so far (the loop guard counts these). */
	rounds?: number;
	/** Why the conversation ended, when it did not end with an answer. */
	stopReason?: string;
	/** What a node saw that the workflow's author should know, such as tools a server listed with invalid definitions. */
	warnings?: string[];
	/** Calls held for a person, and, when the item comes back, what they decided. */
	approval?: Approval;
	/** What the conversation has used so far: model and tool calls, tokens and cost, over every round. */
	usage?: ConversationUsage;
}

/**
 * Token counts in one form for every vendor. Each is null where the vendor reported none (an
 * unreported count is not a zero). The cache counts are part of `input`, reasoning part of `output`.
 */
export interface TokenCounts {
	/** Every input token: uncached, read from the cache and written to it. */
	input: number | null;
	/** Every output token, reasoning included. */
	output: number | null;
	/** Input tokens read from the vendor's prompt cache. */
	cacheRead: number | null;
	/** Input tokens written to the vendor's prompt cache. */
	cacheWrite: number | null;
	/** Output tokens the model spent reasoning. */
	reasoning: number | null;
}

/** A conversation's running totals, carried on the item from node to node and across messages. */
export interface ConversationUsage {
	/** Model calls answered (each round is one; its retries are not counted). */
	modelCalls: number;
	/** Tool calls sent to a server (calls refused or declined before one are not counted). */
	toolCalls: number;
	/** Each kind summed over the calls that reported it; null while none did. */
	tokens: TokenCounts;
	/** Model calls whose vendor reported no token counts at all. */
	unreportedCalls: number;
	/** In US dollars; null once a model call could not be priced (costUnknown says why). */
	cost: number | null;
	/** Why `cost` is null: the first model call that could not be priced, and why. */
	costUnknown?: string;
}

/** A call held for a person's approval. */
export interface ApprovalRequest {
	callId: string;
	tool: string;
	/** As the model sent them: parsed, or the raw text when they did not parse. */
	arguments: Record<string, unknown> | string;
	annotations?: ToolAnnotations;
	/** Why the node's rule holds it. */
	reason: string;
}

/** What a person decided about a held call. */
export interface ApprovalDecision {
	callId: string;
	approved: boolean;
	/** Who decided. */
	by?: string;
	/** Why: a declined call's note is told to the model. */
	note?: string;
	/** Arguments edited before approving; checked against the tool's schema again. */
	arguments?: Record<string, unknown>;
}

export interface Approval {
	requested: ApprovalRequest[];
	decisions?: ApprovalDecision[];
}
