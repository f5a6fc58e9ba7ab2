import { collectToolCalls } from '../calls';
import { excerpt, isRecord } from '../../json/value';
import { rejectErrorBody } from '../errors';
import { modelName, usageOfTurn } from '../usage';
import type { ModelTurn, ToolNameMap } from '../types';
import { anthropicFinish } from './finish';
import { anthropicErrorMessage } from './http';
import { anthropicUsage } from './usage';
import type { AnthropicMessage } from './wire';

/** The blocks our neutral message carries; any other kind makes the turn worth keeping as Anthropic sent it. */
const NEUTRAL_BLOCKS = new Set(['text', 'tool_use']);

/**
 * A Message body to a ModelTurn. Text blocks are joined as they are (Anthropic splits one answer
 * into several blocks around citations); tool_use blocks become the calls, their `input` object
 * kept as JSON text. The body is read as untrusted JSON.
 */
export function parseAnthropicResponse(body: AnthropicMessage, names: ToolNameMap): ModelTurn {
	rejectErrorBody(body, anthropicErrorMessage);
	if (!Array.isArray(body.content))
		throw new Error(`The model API response has no content array: ${excerpt(body)}`);
	const blocks = body.content.filter(isRecord);

	const { assistantCalls, toolCalls } = collectToolCalls(
		blocks
			.filter((block) => block.type === 'tool_use')
			.map((block) => ({ id: block.id, name: block.name, arguments: block.input, sent: block })),
		names,
	);
	const text = textOf(blocks);
	// Thinking (with its signature) and server tool blocks must go back verbatim; plain turns stay small.
	const keep = blocks.some((block) => !NEUTRAL_BLOCKS.has(String(block.type)));
	const finishReason = typeof body.stop_reason === 'string' ? body.stop_reason : null;
	const reasoning = blocks
		.flatMap((block) =>
			block.type === 'thinking' && typeof block.thinking === 'string' ? [block.thinking] : [],
		)
		.join('\n\n');
	return {
		message: {
			role: 'assistant',
			// null when the turn has no text: only calls, or a refusal without words.
			content: text === '' ? null : text,
			...(assistantCalls.length > 0 && { tool_calls: assistantCalls }),
			...(keep && { vendorTurn: { dialect: 'anthropic', content: blocks } }),
		},
		toolCalls,
		finish: anthropicFinish(finishReason, toolCalls.length > 0),
		finishReason,
		...modelName(body.model),
		...(isRecord(body.usage) && { usage: body.usage }),
		...usageOfTurn(anthropicUsage(body.usage)),
		...(reasoning !== '' && { reasoning }),
	};
}

/** The text of a turn's blocks, joined as they are (Anthropic splits one answer around citations). */
export function textOf(blocks: ReadonlyArray<Record<string, unknown>>): string {
	return blocks
		.filter((block) => block.type === 'text' && typeof block.text === 'string')
		.map((block) => block.text)
		.join('');
}
