/**
 * The scripted turns of the local model API stand-ins (see server.ts), in no vendor's shape. No model
 * API is reachable from the machines the tests run on, so tests script what "the model" answers;
 * each wire module renders the same turn as its vendor would, so one conversation can be run
 * against every API. Token counts and finish reasons are named as OpenAI names them; the wire
 * modules map them to their vendor's words.
 */
import { randomBytes } from 'node:crypto';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';

export type FinishReason = ChatCompletion.Choice['finish_reason'];

export interface ScriptedToolCall {
	/** Generated in the vendor's style (`call_…`, `toolu_…`) when left out; Gemini then sends none. */
	id?: string;
	name: string;
	/** Sent as given where the vendor streams a string: tests may script invalid JSON on purpose. */
	arguments: string;
}

export interface TurnToolCall {
	id: string | undefined;
	name: string;
	arguments: string;
	/** Random hex that generated ids are made from, fixed per turn so a turn served twice names its calls alike. */
	idSeed: string;
}

export interface AnswerOptions {
	/** Token counts; null leaves usage out, as some compatible vendors do. */
	usage?: CompletionUsage | null;
	finishReason?: FinishReason;
	/** The model named in the reply; the requested one when left out. */
	model?: string;
}

export interface AnswerTurn {
	kind: 'answer';
	content: string | null;
	toolCalls: TurnToolCall[];
	finishReason: FinishReason;
	usage: CompletionUsage | null;
	model?: string;
}

/** Fields of the vendor's error object; those left out take the status's usual values. */
export type ErrorFields = { message?: string } & Record<string, unknown>;

export interface ErrorTurn {
	kind: 'error';
	status: number;
	fields: ErrorFields;
	headers: Record<string, string>;
	/** Told the way the vendor tells it: a `Retry-After` header, or Gemini's RetryInfo. */
	retryAfterSeconds?: number;
}

/** An answer whose connection drops after `afterChunks` stream frames (mid-body when not streamed). */
export interface CutTurn {
	kind: 'cut';
	answer: AnswerTurn;
	afterChunks: number;
}

/** Sent byte for byte, for shapes the other kinds do not make (non-JSON bodies, errors inside a stream). */
export interface RawTurn {
	kind: 'raw';
	status: number;
	body: string;
	headers: Record<string, string>;
}

export type Turn = AnswerTurn | ErrorTurn | CutTurn | RawTurn;

export const DEFAULT_USAGE: CompletionUsage = {
	prompt_tokens: 21,
	completion_tokens: 9,
	total_tokens: 30,
	prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
	completion_tokens_details: {
		reasoning_tokens: 0,
		audio_tokens: 0,
		accepted_prediction_tokens: 0,
		rejected_prediction_tokens: 0,
	},
};

function answer(
	content: string | null,
	calls: ScriptedToolCall[],
	finishReason: FinishReason,
	options: AnswerOptions,
): AnswerTurn {
	return {
		kind: 'answer',
		content,
		toolCalls: calls.map((c) => ({
			id: c.id,
			name: c.name,
			arguments: c.arguments,
			idSeed: randomBytes(25).toString('hex'),
		})),
		finishReason: options.finishReason ?? finishReason,
		usage: options.usage === undefined ? DEFAULT_USAGE : options.usage,
		model: options.model,
	};
}

/** Builders for scripted turns. */
export const reply = {
	text(content: string, options: AnswerOptions = {}): AnswerTurn {
		return answer(content, [], 'stop', options);
	},
	/** `content` is text some models send before their calls. */
	toolCalls(
		calls: ScriptedToolCall[],
		options: AnswerOptions & { content?: string } = {},
	): AnswerTurn {
		return answer(options.content ?? null, calls, 'tool_calls', options);
	},
	/** The vendor's error body for `status`; a string sets its message. */
	error(
		status: number,
		error: string | ErrorFields = {},
		headers: Record<string, string> = {},
	): ErrorTurn {
		return {
			kind: 'error',
			status,
			fields: typeof error === 'string' ? { message: error } : error,
			headers,
		};
	},
	/** A 429 telling the client to wait, which the SDKs do before retrying. */
	rateLimited(retryAfterSeconds: number): ErrorTurn {
		return { ...reply.error(429), retryAfterSeconds };
	},
	cutStream(
		afterChunks: number,
		of: AnswerTurn = reply.text('This answer is cut off before it ends.'),
	): CutTurn {
		return { kind: 'cut', answer: of, afterChunks };
	},
	raw(
		status: number,
		body: string,
		headers: Record<string, string> = { 'content-type': 'application/json' },
	): RawTurn {
		return { kind: 'raw', status, body, headers };
	},
};
