import type { AssistantMessage, Conversation, PendingToolCall, Tool } from '../conversation/types';

/**
 * Every vendor dialect has the same parts, in files of the same names:
 *   names.ts    - the vendor's tool-name rules (a reversible ToolNameMap built with ../toolNames)
 *   tools.ts    - our Tool[] to the vendor's tool definitions (strict-schema conversion where it has one)
 *   request.ts  - a Conversation plus ModelSettings to the vendor's request body
 *   response.ts - the vendor's response body to a ModelTurn
 *   stream.ts   - streamed chunks assembled into the same response body, so both paths parse alike
 *   index.ts    - the Dialect object that bundles them
 * No part imports n8n: dialects are plain functions over plain JSON.
 */

export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

export interface ModelSettings {
	model: string;
	toolChoice: ToolChoice;
	parallelToolCalls?: boolean;
	temperature?: number;
	maxTokens?: number;
	/** Ask for strict schemas; tools that cannot be made strict are sent as they are and named. */
	strict?: boolean;
	stream: boolean;
}

/** Conversation tool names to vendor names and back. */
export interface ToolNameMap {
	toVendor(name: string): string;
	fromVendor(vendorName: string): string;
}

export interface VendorTools<TTool> {
	tools: TTool[];
	names: ToolNameMap;
	/** Tools sent without strict mode, each with the reason it could not be made strict. */
	notStrict: Array<{ name: string; reason: string }>;
}

export interface ModelTurn {
	/** The assistant message in our neutral form, tool names already mapped back. */
	message: AssistantMessage;
	toolCalls: PendingToolCall[];
	finishReason: string | null;
	usage?: Record<string, unknown>;
}

export interface Dialect<TRequest, TResponse, TChunk> {
	buildRequest(
		conversation: Pick<Conversation, 'messages' | 'tools'>,
		settings: ModelSettings,
	): { body: TRequest; names: ToolNameMap; notStrict: VendorTools<unknown>['notStrict'] };
	parseResponse(body: TResponse, names: ToolNameMap): ModelTurn;
	/** Accumulates streamed chunks into the body a non-streamed call would have returned. */
	createStreamAssembler(): { push(chunk: TChunk): void; result(): TResponse };
}

export type { Tool };
