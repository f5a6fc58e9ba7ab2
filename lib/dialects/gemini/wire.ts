import type { GeminiSchema } from '../../schema/gemini';

/**
 * The parts of Gemini's generateContent wire format this dialect reads and writes, from the REST
 * reference (v1beta `GenerateContentRequest`, `GenerateContentResponse`) and @google/genai's types.
 * Response types describe what Gemini sends; the parser still reads them as untrusted JSON.
 */

export interface GeminiFunctionCall {
	name?: string;
	args?: Record<string, unknown>;
	/** Set by some models and endpoints only; a functionResponse must then carry the same id. */
	id?: string;
	/** Vertex AI, streamed in pieces: arguments still to be placed (see partialArgs.ts). */
	partialArgs?: unknown[];
	/** Vertex AI, streamed in pieces: more of this call follows. */
	willContinue?: boolean;
}

/** One streamed piece of a call's arguments: a value at a JSON path. */
export interface GeminiPartialArg {
	jsonPath?: string;
	stringValue?: string;
	numberValue?: number;
	boolValue?: boolean;
	nullValue?: unknown;
	/** A string value that goes on in the next piece. */
	willContinue?: boolean;
}

export interface GeminiFunctionResponse {
	name: string;
	id?: string;
	/** `{output}` for a result, `{error}` for a failure: the keys Gemini documents. */
	response: { output: unknown } | { error: string };
}

export interface GeminiPart {
	text?: string;
	/** A thought summary, not part of the answer. */
	thought?: boolean;
	/** Opaque; Gemini 3 refuses a continued turn whose function calls lost theirs. */
	thoughtSignature?: string;
	functionCall?: GeminiFunctionCall;
	functionResponse?: GeminiFunctionResponse;
}

export interface GeminiContent {
	role?: 'user' | 'model';
	parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
	name: string;
	description?: string;
	parameters: GeminiSchema;
}

export interface GeminiTool {
	functionDeclarations: GeminiFunctionDeclaration[];
}

export interface GeminiFunctionCallingConfig {
	mode: 'AUTO' | 'ANY' | 'NONE';
	allowedFunctionNames?: string[];
}

export interface GeminiRequest {
	contents: GeminiContent[];
	systemInstruction?: GeminiContent;
	tools?: GeminiTool[];
	toolConfig?: { functionCallingConfig: GeminiFunctionCallingConfig };
	generationConfig?: {
		temperature?: number;
		maxOutputTokens?: number;
		responseMimeType?: string;
		responseSchema?: GeminiSchema;
		thinkingConfig?: { thinkingLevel?: string; thinkingBudget?: number; includeThoughts?: boolean };
	};
}

export interface GeminiCandidate {
	content?: GeminiContent;
	finishReason?: string;
	/** Why the turn ended, in words; set beside some finish reasons (MALFORMED_FUNCTION_CALL). */
	finishMessage?: string;
	index?: number;
}

/** The body of generateContent, and of each Server-Sent Event of streamGenerateContent. */
export interface GeminiResponse {
	candidates?: GeminiCandidate[];
	promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
	usageMetadata?: Record<string, unknown>;
	modelVersion?: string;
	responseId?: string;
}
