/**
 * How each dialect expresses the cases every dialect must handle alike (test/dialects/behaviours.test.ts):
 * its answers, streams and error bodies in the vendor's shape (built with ./vendorBodies), and
 * readers for the parts of its request bodies those cases look at. None is a capture.
 */
import type { TokenCounts } from '../../lib/conversation/types';
import type { DialectId } from '../../lib/dialects/types';
import {
	anthropicMessage,
	chatChunk,
	chatCompletion,
	geminiChunk,
	geminiResponse,
	ollamaResponse,
	outputText,
	responsesBody,
	responsesEvent,
	responsesMessage,
	USAGE,
} from './vendorBodies';

type Json = Record<string, any>;

/** One tool call as a vendor may send it; a key left out is left out of the vendor's call too. */
export interface CallSpec {
	id?: string;
	name?: string;
	arguments?: unknown;
}

/** A call or a result in a request's history, read back from the vendor's shape. */
export interface HistoryCall {
	id?: string;
	name: string;
	/** Parsed where the vendor sends arguments as JSON text. */
	arguments: unknown;
}

export interface HistoryResult {
	id?: string;
	output: unknown;
}

export interface DialectCase {
	id: DialectId;
	model: string;
	/** The vendor's name for a dotted MCP name: Gemini's names may hold dots, the others' may not. */
	dottedName: string;
	/** How the vendor's schemas write the object type: Gemini's Schema upper-cases its types. */
	objectType: 'object' | 'OBJECT';
	/** The stop reason of a finished turn, as the vendor sends it and the turn keeps it. */
	stopReason: string;
	/** The usage every answer below reports. */
	usage: Record<string, unknown>;
	/** That usage in the neutral form. */
	tokens: TokenCounts;
	/** The model the answers below name, when they name one. */
	answeredBy?: string;
	/** Gemini keeps every turn as vendorTurn: its parts carry the thought signatures. */
	keepsEveryTurn: boolean;
	/** Arguments as the vendor sends them: JSON text, or an object. */
	wireArguments(value: Record<string, unknown>): unknown;
	textAnswer(text: string): unknown;
	/** An answer with these calls, the text first when given, and the vendor's usual stop reason. */
	callsAnswer(calls: CallSpec[], text?: string): unknown;
	/** A streamed text answer in these pieces; its last `ending` events end the turn. */
	textStream(pieces: string[]): { events: unknown[]; ending: number };
	/** What a turn cut short reports as its reason. */
	cutReason: string | null;
	/** A stream that breaks off with the vendor's error, the parser's message, and whether it ends the turn. */
	streamedError: { events: unknown[]; message: string; ends: boolean };
	/** What an empty stream assembles to: a body the parser refuses, or (Anthropic) an empty message. */
	emptyStream: 'refused' | 'empty turn';
	/** A body without the part that holds the answer, and how the parser names that part. */
	withoutAnswer: { body: unknown; missing: string };
	/** The request body of one user message and no tools, default settings. */
	plainRequest(text: string): unknown;
	toolNames(body: any): string[];
	historyCalls(body: any): HistoryCall[];
	historyResults(body: any): HistoryResult[];
	/** How the vendor writes each tool choice; undefined for Ollama, which has none. */
	toolChoice?: {
		of(body: any): unknown;
		auto: unknown;
		required: unknown;
		none: unknown;
		named(vendorName: string): unknown;
	};
	/** Why a tool is sent without strict mode when strict is asked for; undefined where strict mode exists. */
	noStrictMode?: RegExp;
}

const defined = <T extends Json>(object: T): T =>
	Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;

const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

/** Chat Completions messages, which Ollama's native API shares: calls on assistant messages, results as tool messages. */
const chatHistory = {
	toolNames: (body: Json): string[] => body.tools.map((tool: Json) => tool.function.name),
	historyCalls: (body: Json): HistoryCall[] =>
		body.messages.flatMap((message: Json) =>
			(message.tool_calls ?? []).map((call: Json) => ({
				id: call.id,
				name: call.function.name,
				arguments: parsed(call.function.arguments),
			})),
		),
	historyResults: (body: Json): HistoryResult[] =>
		body.messages
			.filter((message: Json) => message.role === 'tool')
			.map((message: Json) => ({ id: message.tool_call_id, output: message.content })),
};

const chatDelta = (delta: Json, finish_reason: string | null = null) =>
	chatChunk([{ index: 0, delta, finish_reason }]);

const openaiChat: DialectCase = {
	id: 'openaiChat',
	model: 'gpt-test',
	dottedName: 'weather_get',
	objectType: 'object',
	stopReason: 'stop',
	usage: USAGE.openaiChat,
	tokens: { input: 10, output: 5, cacheRead: null, cacheWrite: null, reasoning: null },
	answeredBy: 'gpt-test',
	keepsEveryTurn: false,
	wireArguments: (value) => JSON.stringify(value),
	textAnswer: (text) => chatCompletion({ content: text }),
	callsAnswer: (calls, text) =>
		chatCompletion({
			content: text ?? null,
			tool_calls: calls.map(({ id, name, arguments: args }) =>
				defined({ id, type: 'function', function: defined({ name, arguments: args }) }),
			),
		}),
	textStream: (pieces) => ({
		events: [
			chatDelta({ role: 'assistant', content: '' }),
			...pieces.map((content) => chatDelta({ content })),
			chatDelta({}, 'stop'),
			// The usage-only chunk that include_usage adds at the end.
			chatChunk([], { usage: USAGE.openaiChat }),
		],
		ending: 2,
	}),
	cutReason: null,
	streamedError: {
		events: [chatDelta({ content: 'Hel' }), { error: { message: 'upstream overloaded' } }],
		message: 'The model API returned an error: upstream overloaded',
		ends: false,
	},
	emptyStream: 'refused',
	withoutAnswer: { body: { id: 'x', choices: [] }, missing: 'choices[0].message' },
	plainRequest: (text) => ({
		model: 'gpt-test',
		stream: false,
		messages: [{ role: 'user', content: text }],
	}),
	...chatHistory,
	toolChoice: {
		of: (body) => body.tool_choice,
		auto: 'auto',
		required: 'required',
		none: 'none',
		named: (name) => ({ type: 'function', function: { name } }),
	},
};

const openaiResponses: DialectCase = {
	id: 'openaiResponses',
	model: 'gpt-test',
	dottedName: 'weather_get',
	objectType: 'object',
	stopReason: 'completed',
	usage: USAGE.openaiResponses,
	tokens: { input: 10, output: 5, cacheRead: null, cacheWrite: null, reasoning: null },
	answeredBy: 'gpt-test',
	keepsEveryTurn: false,
	wireArguments: (value) => JSON.stringify(value),
	textAnswer: (text) => responsesBody([responsesMessage(outputText(text))]),
	callsAnswer: (calls, text) =>
		responsesBody([
			...(text === undefined ? [] : [responsesMessage(outputText(text))]),
			...calls.map(({ id, name, arguments: args }) =>
				defined({ type: 'function_call', call_id: id, name, arguments: args }),
			),
		]),
	textStream: (pieces) => ({
		events: [
			responsesEvent('response.created', {
				response: responsesBody([], { status: 'in_progress', usage: null }),
			}),
			responsesEvent('response.output_item.added', {
				output_index: 0,
				item: { ...responsesMessage(), status: 'in_progress' },
			}),
			...pieces.map((delta) =>
				responsesEvent('response.output_text.delta', { output_index: 0, content_index: 0, delta }),
			),
			responsesEvent('response.completed', {
				response: responsesBody([responsesMessage(outputText(pieces.join('')))]),
			}),
		],
		ending: 1,
	}),
	cutReason: 'in_progress',
	streamedError: {
		// openai-error.1.chunks.txt in vercel/ai's Responses fixtures nests the error (message shortened here).
		events: [
			responsesEvent('response.created', {
				response: responsesBody([], { status: 'in_progress' }),
			}),
			responsesEvent('error', {
				error: {
					type: 'insufficient_quota',
					code: 'insufficient_quota',
					message: 'Quota exceeded.',
				},
			}),
		],
		message: 'The model API returned an error: Quota exceeded.',
		ends: true,
	},
	emptyStream: 'refused',
	withoutAnswer: { body: { id: 'r', status: 'completed' }, missing: 'output array' },
	plainRequest: (text) => ({
		model: 'gpt-test',
		input: [{ role: 'user', content: text }],
		stream: false,
		store: false,
	}),
	toolNames: (body) => body.tools.map((tool: Json) => tool.name),
	historyCalls: (body) =>
		body.input
			.filter((item: Json) => item.type === 'function_call')
			.map((call: Json) => ({
				id: call.call_id,
				name: call.name,
				arguments: parsed(call.arguments),
			})),
	historyResults: (body) =>
		body.input
			.filter((item: Json) => item.type === 'function_call_output')
			.map((item: Json) => ({ id: item.call_id, output: item.output })),
	toolChoice: {
		of: (body) => body.tool_choice,
		auto: 'auto',
		required: 'required',
		none: 'none',
		named: (name) => ({ type: 'function', name }),
	},
};

const anthropicStart = {
	type: 'message_start',
	message: {
		...anthropicMessage([]),
		stop_reason: null,
		usage: { input_tokens: 10, output_tokens: 1 },
	},
};

const anthropicBlockEvents = (pieces: string[]) => [
	anthropicStart,
	{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
	...pieces.map((text) => ({
		type: 'content_block_delta',
		index: 0,
		delta: { type: 'text_delta', text },
	})),
];

function anthropicBlocks(body: Json, type: string): Json[] {
	return body.messages
		.flatMap((message: Json) => (Array.isArray(message.content) ? message.content : []))
		.filter((block: Json) => block.type === type);
}

const anthropic: DialectCase = {
	id: 'anthropic',
	model: 'claude-test',
	dottedName: 'weather_get',
	objectType: 'object',
	stopReason: 'end_turn',
	usage: USAGE.anthropic,
	tokens: { input: 10, output: 5, cacheRead: null, cacheWrite: null, reasoning: null },
	answeredBy: 'claude-test',
	keepsEveryTurn: false,
	wireArguments: (value) => value,
	textAnswer: (text) => anthropicMessage([{ type: 'text', text }]),
	callsAnswer: (calls, text) =>
		anthropicMessage([
			...(text === undefined ? [] : [{ type: 'text', text }]),
			...calls.map(({ id, name, arguments: args }) =>
				defined({ type: 'tool_use', id, name, input: args }),
			),
		]),
	textStream: (pieces) => ({
		events: [
			...anthropicBlockEvents(pieces),
			{ type: 'content_block_stop', index: 0 },
			{
				type: 'message_delta',
				delta: { stop_reason: 'end_turn', stop_sequence: null },
				usage: { output_tokens: 5 },
			},
			{ type: 'message_stop' },
		],
		ending: 2,
	}),
	cutReason: null,
	streamedError: {
		events: [
			...anthropicBlockEvents(['Hel']),
			{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
		],
		message: 'The model API returned an error: Overloaded (overloaded_error)',
		ends: false,
	},
	emptyStream: 'empty turn',
	withoutAnswer: { body: { id: 'msg_1', type: 'message' }, missing: 'content array' },
	plainRequest: (text) => ({
		model: 'claude-test',
		max_tokens: 4096,
		messages: [{ role: 'user', content: text }],
		stream: false,
	}),
	toolNames: (body) => body.tools.map((tool: Json) => tool.name),
	historyCalls: (body) =>
		anthropicBlocks(body, 'tool_use').map((block) => ({
			id: block.id,
			name: block.name,
			arguments: block.input,
		})),
	historyResults: (body) =>
		anthropicBlocks(body, 'tool_result').map((block) => ({
			id: block.tool_use_id,
			output: block.content,
		})),
	toolChoice: {
		of: (body) => body.tool_choice,
		auto: { type: 'auto' },
		required: { type: 'any' },
		none: { type: 'none' },
		named: (name) => ({ type: 'tool', name }),
	},
	noStrictMode: /^strict mode is not sent to Anthropic/,
};

const geminiParts = (body: Json): Json[] => body.contents.flatMap((content: Json) => content.parts);

const gemini: DialectCase = {
	id: 'gemini',
	model: 'gemini-2.5-flash',
	dottedName: 'weather.get',
	objectType: 'OBJECT',
	stopReason: 'STOP',
	usage: USAGE.gemini,
	tokens: { input: 10, output: 5, cacheRead: 0, cacheWrite: null, reasoning: 0 },
	keepsEveryTurn: true,
	wireArguments: (value) => value,
	textAnswer: (text) => geminiResponse([{ text }]),
	callsAnswer: (calls, text) =>
		geminiResponse([
			...(text === undefined ? [] : [{ text }]),
			...calls.map(({ id, name, arguments: args }) => ({
				functionCall: defined({ name, args, id }),
			})),
		]),
	textStream: (pieces) => ({
		events: [
			...pieces.map((text) => geminiChunk([{ text }])),
			// Streams end with an empty piece beside the finish reason.
			{ ...geminiChunk([{ text: '' }], { finishReason: 'STOP' }), usageMetadata: USAGE.gemini },
		],
		ending: 1,
	}),
	cutReason: null,
	streamedError: {
		events: [
			geminiChunk([{ text: 'Hel' }]),
			{ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
		],
		message: 'The model API returned an error: UNAVAILABLE: The model is overloaded.',
		ends: false,
	},
	emptyStream: 'refused',
	withoutAnswer: { body: { candidates: [], usageMetadata: {} }, missing: 'candidates[0]' },
	plainRequest: (text) => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
	toolNames: (body) =>
		body.tools.flatMap((tool: Json) => tool.functionDeclarations.map((fn: Json) => fn.name)),
	historyCalls: (body) =>
		geminiParts(body)
			.filter((part) => part.functionCall)
			.map(({ functionCall: call }) => ({ id: call.id, name: call.name, arguments: call.args })),
	historyResults: (body) =>
		geminiParts(body)
			.filter((part) => part.functionResponse)
			.map(({ functionResponse: result }) => ({
				id: result.id,
				output: result.response.output ?? result.response.error,
			})),
	toolChoice: {
		of: (body) => body.toolConfig,
		auto: { functionCallingConfig: { mode: 'AUTO' } },
		required: { functionCallingConfig: { mode: 'ANY' } },
		none: { functionCallingConfig: { mode: 'NONE' } },
		named: (name) => ({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } }),
	},
	noStrictMode: /^Gemini has no strict mode/,
};

const ollamaPiece = (content: string) => ({
	model: 'qwen3:8b',
	created_at: '2026-03-02T10:00:00Z',
	message: { role: 'assistant', content },
	done: false,
});

const ollama: DialectCase = {
	id: 'ollama',
	model: 'qwen3:8b',
	dottedName: 'weather_get',
	objectType: 'object',
	stopReason: 'stop',
	usage: USAGE.ollama,
	tokens: { input: 20, output: 5, cacheRead: null, cacheWrite: null, reasoning: null },
	answeredBy: 'qwen3:8b',
	keepsEveryTurn: false,
	wireArguments: (value) => value,
	textAnswer: (text) => ollamaResponse({ content: text }),
	callsAnswer: (calls, text) =>
		ollamaResponse({
			content: text ?? '',
			tool_calls: calls.map(({ id, name, arguments: args }) =>
				defined({ id, function: defined({ name, arguments: args }) }),
			),
		}),
	textStream: (pieces) => ({
		events: [...pieces.map(ollamaPiece), ollamaResponse({ content: '' })],
		ending: 1,
	}),
	cutReason: null,
	streamedError: {
		events: [ollamaPiece('Hel'), { error: 'an error was encountered while running the model' }],
		message: 'The model API returned an error: an error was encountered while running the model',
		ends: false,
	},
	emptyStream: 'refused',
	withoutAnswer: { body: { model: 'm', done: true }, missing: 'message' },
	plainRequest: (text) => ({
		model: 'qwen3:8b',
		messages: [{ role: 'user', content: text }],
		stream: false,
	}),
	...chatHistory,
	noStrictMode: /^Ollama has no strict mode$/,
};

export const DIALECT_CASES: DialectCase[] = [
	openaiChat,
	openaiResponses,
	anthropic,
	gemini,
	ollama,
];
