import { isRecord, recordsIn } from '../../json/value';
import { argumentsText } from '../calls';
import type { StreamAssembler } from '../types';
import { contentText } from './response';
import type {
	OpenAIChunk,
	OpenAICompletion,
	OpenAIResponseMessage,
	OpenAIToolCallDelta,
} from './wire';

interface CallParts {
	/** The vendor's index, by which calls are put in order. */
	index: number;
	id?: string;
	type?: string;
	name: string;
	arguments: string;
}

/**
 * Assembles `chat.completion.chunk` objects into the `chat.completion` body a non-streamed call
 * returns, so both paths go through parseOpenAIResponse. Only choice 0 is kept (we never ask for
 * more); keys we do not know are ignored.
 */
export function createOpenAIStreamAssembler(): StreamAssembler<OpenAIChunk, OpenAICompletion> {
	let head: Pick<OpenAICompletion, 'id' | 'created' | 'model'> | undefined;
	let content: string | null = null;
	let refusal: string | null = null;
	let reasoning = '';
	let finishReason: string | null = null;
	let usage: OpenAICompletion['usage'];
	let error: unknown;
	let sawChoice = false;
	const calls: CallParts[] = [];
	/** The call each index names now. */
	const byIndex = new Map<number, CallParts>();
	let lastIndex = -1;

	function callFor(index: unknown, id: string | undefined, named: boolean): CallParts {
		if (typeof index !== 'number') {
			// Servers that leave out `index` send one call at a time: a new id starts the next call.
			const known = id === undefined ? calls.at(-1) : calls.find((call) => call.id === id);
			return known ?? started(lastIndex + 1);
		}
		const held = byIndex.get(index);
		// Some servers number every call of a turn 0 (Ollama's /v1), each whole with its own id and
		// name; others give each piece of one call an id of its own, and its name only once.
		const another = named && id !== undefined && held?.id !== undefined && held.id !== id;
		return held && !another ? held : started(index);
	}

	function started(index: number): CallParts {
		const call = { index, name: '', arguments: '' };
		calls.push(call);
		byIndex.set(index, call);
		lastIndex = Math.max(lastIndex, index);
		return call;
	}

	function addCall(fragment: OpenAIToolCallDelta): void {
		// Later fragments may say id null or "", which names no call.
		const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined;
		const call = callFor(fragment.index, id, Boolean(fragment.function?.name));
		// id, type and name come whole on the first fragment; servers that repeat them are not doubled.
		call.id ||= id;
		call.type ||= fragment.type ?? undefined;
		call.name ||= fragment.function?.name ?? '';
		call.arguments += argumentsText(fragment.function?.arguments);
	}

	return {
		push(chunk) {
			// Malformed parts (a null chunk, choices or tool_calls that are no list) are skipped.
			if (!isRecord(chunk)) return '';
			let added = '';
			if (chunk.error !== undefined) error = chunk.error;
			head ??=
				chunk.id !== undefined
					? { id: chunk.id, created: chunk.created, model: chunk.model }
					: undefined;
			if (chunk.usage) usage = chunk.usage;
			for (const choice of recordsIn(chunk.choices)) {
				if ((choice.index ?? 0) !== 0) continue;
				sawChoice = true;
				const delta = choice.delta ?? {};
				const text = contentText(delta.content);
				if (text !== null) {
					content = (content ?? '') + text;
					added += text;
				}
				if (typeof delta.refusal === 'string') refusal = (refusal ?? '') + delta.refusal;
				// Reasoning is kept apart, and never returned as the answer's text.
				for (const piece of [delta.reasoning_content, delta.reasoning])
					if (typeof piece === 'string') reasoning += piece;
				for (const fragment of recordsIn(delta.tool_calls)) addCall(fragment);
				if (choice.finish_reason) finishReason = choice.finish_reason;
			}
			return added;
		},
		// The turn is over once choice 0 has a finish_reason; [DONE] and the usage chunk may follow.
		finished: () => finishReason !== null,
		result() {
			// A stable sort: calls that share an index stay in the order they came.
			const toolCalls = [...calls]
				.sort((a, b) => a.index - b.index)
				.map((call) => ({
					id: call.id ?? '',
					type: call.type ?? 'function',
					function: { name: call.name, arguments: call.arguments },
				}));
			const message: OpenAIResponseMessage = {
				role: 'assistant',
				content,
				refusal,
				...(toolCalls.length > 0 && { tool_calls: toolCalls }),
				...(reasoning !== '' && { reasoning_content: reasoning }),
			};
			// A stream cut short has no finish reason; the parser reports null as it is.
			const choice = { index: 0, message, finish_reason: finishReason, logprobs: null };
			return {
				...(head ?? { id: '', created: 0, model: '' }),
				object: 'chat.completion',
				choices: sawChoice ? [choice] : [],
				...(usage && { usage }),
				...(error !== undefined && { error }),
			};
		},
	};
}
