import { isRecord } from '../json/value';
import type { Conversation } from './types';

export class ConversationError extends Error {}

const LISTS = ['messages', 'tools', 'toolCalls', 'trace'] as const;
const ROLES = ['system', 'user', 'assistant', 'tool'];

/**
 * The conversation an item carries, with absent lists defaulted to empty. Other keys the user
 * added between nodes are kept. What breaks the item contract in a way a node would act on wrongly
 * (a role no vendor shares, a message that is no object, a tool without a name) is refused, naming
 * it, before anything is sent; `rounds` given as text (from a sheet, a Set field) is read as the
 * number it is.
 */
export function readConversation(json: Record<string, unknown>): Conversation {
	const conversation: Record<string, unknown> = { ...json };
	for (const list of LISTS) {
		const value = json[list] ?? [];
		if (!Array.isArray(value)) {
			throw new ConversationError(
				`The item's '${list}' must be a list, but it is ${describeType(value)}`,
			);
		}
		conversation[list] = [...value];
	}
	conversation.messages = (conversation.messages as unknown[]).map(withTextIds);
	(conversation.messages as unknown[]).forEach(checkMessage);
	(conversation.tools as unknown[]).forEach(checkTool);
	conversation.toolCalls = (conversation.toolCalls as unknown[]).map(pendingCall);
	(conversation.trace as unknown[]).forEach((entry, index) => {
		if (!isRecord(entry))
			throw new ConversationError(
				`Entry ${index + 1} of the item's 'trace' must be an object, but it is ${describeType(entry)}`,
			);
	});
	if (json.rounds !== undefined) conversation.rounds = roundsOf(json.rounds);
	if (json.usage !== undefined) checkUsage(json.usage);
	return conversation as unknown as Conversation;
}

/**
 * A pending call as the item has it; an id given as a number (a sheet, a Set field) is read as its
 * text, since its answer and every approval name it so. A call without an id could be answered by
 * no tool message, so it is refused.
 */
function pendingCall(call: unknown, index: number): unknown {
	const at = `Pending call ${index + 1} of the item's 'toolCalls'`;
	if (!isRecord(call) || typeof call.name !== 'string')
		throw new ConversationError(
			`${at} must be an object with the tool's name, but it is ${describeType(call)}`,
		);
	const read = withTextId(call, 'id');
	if (typeof read.id !== 'string' || read.id === '')
		throw new ConversationError(
			`${at} (${call.name}) needs an 'id', the text its answer names${call.id === undefined ? '' : `, but it is ${describeType(call.id)}`}`,
		);
	return read;
}

/**
 * A message whose call ids came as numbers (a sheet, a Set field), with those ids as their text:
 * its pending calls are read so, and their answers name them so.
 */
function withTextIds(message: unknown): unknown {
	if (!isRecord(message)) return message;
	if (message.role === 'tool') return withTextId(message, 'tool_call_id');
	const calls = message.tool_calls;
	const numbered = (call: unknown) => isRecord(call) && typeof call.id === 'number';
	// Unchanged messages stay the same objects, which n8n's storage then writes once.
	if (message.role !== 'assistant' || !Array.isArray(calls) || !calls.some(numbered))
		return message;
	return {
		...message,
		tool_calls: calls.map((call) => (isRecord(call) ? withTextId(call, 'id') : call)),
	};
}

/** The record with its id under `key` as text when it came as a number; else the record itself. */
function withTextId(record: Record<string, unknown>, key: string): Record<string, unknown> {
	return typeof record[key] === 'number' ? { ...record, [key]: String(record[key]) } : record;
}

function checkMessage(message: unknown, index: number): void {
	const at = `Message ${index + 1} of the item's 'messages'`;
	if (!isRecord(message))
		throw new ConversationError(`${at} must be an object, but it is ${describeType(message)}`);
	const { role, content } = message;
	if (typeof role !== 'string' || !ROLES.includes(role)) {
		const hint = role === 'developer' ? ' (a developer message is a system message here)' : '';
		throw new ConversationError(
			`${at} has the role ${JSON.stringify(role)}; a message's role is system, user, assistant or tool${hint}`,
		);
	}
	const text = typeof content === 'string' || (role === 'assistant' && content == null);
	if (!text)
		throw new ConversationError(
			`${at} (${role}) has content that is ${describeType(content)}; its content must be text`,
		);
	if (role === 'assistant' && message.tool_calls !== undefined) {
		const calls = message.tool_calls;
		if (!Array.isArray(calls) || !calls.every((call) => isRecord(call) && isRecord(call.function)))
			throw new ConversationError(
				`${at} (assistant) has 'tool_calls' that are not a list of calls, each with its 'function'`,
			);
	}
	if (role === 'tool' && (typeof message.tool_call_id !== 'string' || message.tool_call_id === ''))
		throw new ConversationError(`${at} (tool) names no 'tool_call_id' it answers`);
}

function checkTool(tool: unknown, index: number): void {
	const at = `Tool ${index + 1} of the item's 'tools'`;
	if (!isRecord(tool))
		throw new ConversationError(`${at} must be an object, but it is ${describeType(tool)}`);
	if (typeof tool.name !== 'string' || tool.name === '')
		throw new ConversationError(`${at} has no name`);
	if (tool.inputSchema !== undefined && !isRecord(tool.inputSchema))
		throw new ConversationError(
			`${at} ('${tool.name}') has an inputSchema that is ${describeType(tool.inputSchema)}; it must be a JSON Schema object`,
		);
}

/** The rounds taken so far: a whole number from 0, also when it comes as text ("3"). */
function roundsOf(value: unknown): number {
	const rounds = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
	if (typeof rounds !== 'number' || !Number.isInteger(rounds) || rounds < 0)
		throw new ConversationError(
			`The item's 'rounds' must be a whole number from 0, but it is ${JSON.stringify(value)}`,
		);
	return rounds;
}

const COUNTS = ['modelCalls', 'toolCalls', 'unreportedCalls'] as const;
const TOKEN_KINDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

/**
 * The totals a conversation carries (a chat memory keeps them between messages): a budget is
 * checked against them, so totals a node would misread are refused, naming the part.
 */
function checkUsage(usage: unknown): void {
	const at = "The item's 'usage'";
	const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
	if (!isRecord(usage) || !isRecord(usage.tokens))
		throw new ConversationError(
			`${at} must be the conversation's totals, an object with 'tokens', but it is ${describeType(usage)}${isRecord(usage) ? ' without them' : ''}`,
		);
	for (const key of COUNTS)
		if (!isCount(usage[key]))
			throw new ConversationError(
				`${at}.${key} must be a whole number from 0, but it is ${JSON.stringify(usage[key]) ?? 'missing'}`,
			);
	for (const kind of TOKEN_KINDS)
		if (usage.tokens[kind] !== null && !isCount(usage.tokens[kind]))
			throw new ConversationError(
				`${at}.tokens.${kind} must be a whole number from 0 or null, but it is ${JSON.stringify(usage.tokens[kind]) ?? 'missing'}`,
			);
	if (usage.cost !== null && !(typeof usage.cost === 'number' && usage.cost >= 0))
		throw new ConversationError(
			`${at}.cost must be a number from 0 or null, but it is ${JSON.stringify(usage.cost) ?? 'missing'}`,
		);
}

export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
