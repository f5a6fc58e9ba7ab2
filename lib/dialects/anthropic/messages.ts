import { parseToolArguments } from '../../conversation/arguments';
import type { AssistantMessage, Message, ToolMessage } from '../../conversation/types';
import { isRecord } from '../../json/value';
import { historyCallIds } from '../calls';
import type { ToolNameMap } from '../types';
import { anthropicToolUseIds } from './names';
import { textOf } from './response';
import type {
	AnthropicBlock,
	AnthropicMessageParam,
	AnthropicToolResultBlock,
	AnthropicToolUseBlock,
} from './wire';

type Turn = { role: AnthropicMessageParam['role']; content: AnthropicBlock[] };

/**
 * Our messages as Messages API turns. System messages go to the top-level `system`. Roles must
 * alternate and the results of a tool_use turn must open the very next user turn, so each run of
 * tool and user messages becomes ONE user turn with the tool_result blocks first and any text after
 * them ("Messages following tool_use blocks must begin with a matching number of tool_result
 * blocks"). Empty text is left out: the API refuses empty text blocks.
 */
export function toAnthropicMessages(
	messages: readonly Message[],
	names: ToolNameMap,
): { system?: string; messages: AnthropicMessageParam[] } {
	const ids = anthropicToolUseIds(historyCallIds(messages));
	const system: string[] = [];
	const turns: Turn[] = [];
	const append = (role: Turn['role'], blocks: AnthropicBlock[]) => {
		if (blocks.length === 0) return;
		const last = turns.at(-1);
		if (last?.role === role) last.content.push(...blocks);
		else turns.push({ role, content: blocks });
	};
	for (const message of messages) {
		if (message.role === 'system') system.push(message.content);
		else if (message.role === 'user') append('user', textBlocks(message.content));
		else if (message.role === 'tool') append('user', [toolResult(message, ids)]);
		else append('assistant', assistantBlocks(message, names, ids));
	}
	const text = system.filter((part) => part.trim() !== '').join('\n\n');
	return { ...(text !== '' && { system: text }), messages: turns.map(toMessageParam) };
}

function textBlocks(text: string | null): AnthropicBlock[] {
	return text === null || text.trim() === '' ? [] : [{ type: 'text', text }];
}

function toolResult(message: ToolMessage, ids: ToolNameMap): AnthropicToolResultBlock {
	return {
		type: 'tool_result',
		tool_use_id: ids.toVendor(message.tool_call_id),
		...(message.content !== '' && { content: message.content }),
		// The text already says what failed; the flag tells the model it was an error.
		...(message.isError === true && { is_error: true as const }),
	};
}

/** Anthropic's own turn when it was kept and still matches the calls; else built from ours. */
function assistantBlocks(
	message: AssistantMessage,
	names: ToolNameMap,
	ids: ToolNameMap,
): AnthropicBlock[] {
	const echoed = echoableTurn(message);
	if (echoed) return echoed.flatMap(echoBlock);
	const calls = (message.tool_calls ?? []).flatMap((call) =>
		toolUse({
			type: 'tool_use',
			id: ids.toVendor(call.id),
			name: names.toVendor(call.function.name),
			input: call.function.arguments,
		}),
	);
	return [...textBlocks(message.content), ...calls];
}

/**
 * The blocks of the turn Anthropic sent (thinking blocks and their signatures, server tool blocks),
 * when they can be sent back as they are: only while their text is still the message's (an edited
 * message is rebuilt) and their tool_use ids are still the message's calls, which the results answer.
 */
function echoableTurn(message: AssistantMessage): Array<Record<string, unknown>> | undefined {
	const turn = message.vendorTurn;
	if (turn?.dialect !== 'anthropic' || !Array.isArray(turn.content)) return undefined;
	const blocks = turn.content.filter(isRecord);
	const echoed = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id);
	const calls = (message.tool_calls ?? []).map((call) => call.id);
	const agrees =
		textOf(blocks) === (message.content ?? '') &&
		echoed.length === calls.length &&
		echoed.every((id, index) => id === calls[index]);
	return agrees ? blocks : undefined;
}

/** A block as it came, but a blank text block (streamed before a tool_use), which the API refuses. */
function echoBlock(block: Record<string, unknown>): AnthropicBlock[] {
	if (block.type === 'tool_use') return toolUse(block as AnthropicToolUseBlock);
	const blank = block.type === 'text' && !block.citations && String(block.text ?? '').trim() === '';
	return blank ? [] : [block as AnthropicBlock];
}

/**
 * A tool_use block whose input is an object. Arguments that are not a JSON object (cut off by the
 * token limit, say) cannot be an `input`, and dropping them would hide from the model what it
 * wrote: the block gets input {} and a text block before it keeps the text. The result that follows
 * already tells the model why the call was not made.
 */
function toolUse(
	block: Omit<AnthropicToolUseBlock, 'input'> & { input: unknown },
): AnthropicBlock[] {
	if (isRecord(block.input)) return [block as AnthropicToolUseBlock];
	const raw = typeof block.input === 'string' ? block.input : (JSON.stringify(block.input) ?? '');
	const parsed = parseToolArguments(raw);
	if (parsed.ok) return [{ ...block, input: parsed.value }];
	const note = `[The arguments of this ${block.name} call were not a JSON object, so its input is shown as {}. They were: ${raw}]`;
	return [
		{ type: 'text', text: note },
		{ ...block, input: {} },
	];
}

/** Tool results first in a user turn; a turn of one plain text block (no citations) is sent as a string. */
function toMessageParam({ role, content }: Turn): AnthropicMessageParam {
	const ordered = role === 'user' ? [...content].sort((a, b) => rank(a) - rank(b)) : content;
	const [only] = ordered;
	const plainText =
		ordered.length === 1 &&
		only.type === 'text' &&
		Object.keys(only).every((key) => key === 'type' || key === 'text');
	return { role, content: plainText ? String(only.text) : ordered };
}

function rank(block: AnthropicBlock): number {
	return block.type === 'tool_result' ? 0 : 1;
}
