import { isRecord } from '../../json/value';
import type { StreamAssembler } from '../types';
import { textOf } from './response';
import type {
	AnthropicBlock,
	AnthropicDelta,
	AnthropicMessage,
	AnthropicStreamEvent,
} from './wire';

/**
 * Assembles Messages stream events into the Message body a non-streamed call returns, so both paths
 * go through parseAnthropicResponse. Blocks are filled by index; a tool_use input arrives as JSON
 * text in pieces and is parsed once whole. Usage from message_start is updated by message_delta's
 * cumulative counts.
 * Events and deltas we do not know (ping, later kinds) are ignored.
 */
export function createAnthropicStreamAssembler(): StreamAssembler<
	AnthropicStreamEvent,
	AnthropicMessage
> {
	let head: Record<string, unknown> | undefined;
	const blocks: unknown[] = [];
	const inputJson = new Map<number, string>();
	let stop: Record<string, unknown> = {};
	let usage: Record<string, unknown> | undefined;
	let error: unknown;
	let stopped = false;

	/** Takes the message's head; returns the text of blocks it already holds. */
	function start(message: Record<string, unknown>): string {
		const { content, usage: startUsage, ...rest } = message;
		head = rest;
		if (isRecord(startUsage)) usage = { ...startUsage, ...usage };
		// A message can start with blocks already in it; the events that follow index after them.
		if (!Array.isArray(content)) return '';
		blocks.push(...content.map((block) => (isRecord(block) ? { ...block } : block)));
		return textOf(content.filter(isRecord));
	}

	/** Folds a delta into its block; returns the answer text it adds. */
	function addDelta(index: number, delta: AnthropicDelta): string {
		const block = blocks[index];
		if (!isRecord(block) || !isRecord(delta)) return '';
		switch (delta.type) {
			case 'text_delta':
				// Only a text block's text is the answer's (see textOf).
				return append(block, 'text', delta.text) && block.type === 'text'
					? (delta.text as string)
					: '';
			case 'input_json_delta':
				if (typeof delta.partial_json === 'string')
					inputJson.set(index, `${inputJson.get(index) ?? ''}${delta.partial_json}`);
				break;
			case 'thinking_delta':
				append(block, 'thinking', delta.thinking);
				break;
			case 'signature_delta':
				append(block, 'signature', delta.signature);
				break;
			case 'citations_delta':
				block.citations = [
					...(Array.isArray(block.citations) ? block.citations : []),
					delta.citation,
				];
				break;
		}
		return '';
	}

	return {
		push(event) {
			if (!isRecord(event)) return '';
			switch (event.type) {
				case 'message_start':
					// A repeated message_start adds nothing: the first one stands.
					if (!head && isRecord(event.message)) return start(event.message);
					break;
				case 'content_block_start':
					if (typeof event.index === 'number' && isRecord(event.content_block)) {
						blocks[event.index] = { ...event.content_block };
						return textOf([event.content_block]);
					}
					break;
				case 'content_block_delta':
					if (typeof event.index === 'number') return addDelta(event.index, event.delta);
					break;
				case 'message_delta':
					if (isRecord(event.delta)) stop = { ...stop, ...event.delta };
					if (isRecord(event.usage)) usage = { ...usage, ...reported(event.usage) };
					break;
				case 'message_stop':
					stopped = true;
					break;
				case 'error':
					error = event.error;
					break;
			}
			return '';
		},
		// Only message_stop ends the turn; a stream that breaks off before it was cut short.
		finished: () => stopped,
		result() {
			const content = blocks
				.map((block, index) => {
					const json = inputJson.get(index);
					return json === undefined || !isRecord(block)
						? block
						: { ...block, input: parseInput(json) };
				})
				.filter(isRecord) as AnthropicBlock[];
			return {
				id: '',
				type: 'message',
				role: 'assistant',
				model: '',
				stop_reason: null,
				stop_sequence: null,
				...head,
				...stop,
				content,
				...(usage && { usage }),
				...(error !== undefined && { type: 'error', error }),
			} as AnthropicMessage;
		},
	};
}

/** A delta without its text (or with something else there) adds nothing, not "undefined". */
function append(block: Record<string, unknown>, key: string, piece: unknown): boolean {
	if (typeof piece !== 'string') return false;
	block[key] = `${block[key] ?? ''}${piece}`;
	return true;
}

/** message_delta sends null for a count it does not report; the count from message_start stands. */
function reported(usage: Record<string, unknown>): Record<string, unknown> {
	return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null));
}

/**
 * The whole input text: '' means no arguments, as a non-streamed tool_use would show {}. Text that
 * is not a JSON object (cut off by max_tokens, say) is kept as it is, so the argument guard reports
 * exactly what the model wrote.
 */
function parseInput(json: string): unknown {
	if (json.trim() === '') return {};
	try {
		const value: unknown = JSON.parse(json);
		return isRecord(value) ? value : json;
	} catch {
		return json;
	}
}
