import type { Conversation } from './types';

export class ConversationError extends Error {}

const LISTS = ['messages', 'tools', 'toolCalls', 'trace'] as const;

/**
 * The conversation an item carries, with absent lists defaulted to empty. Other keys the user
 * added between nodes are kept. Lists of the wrong type are refused, not guessed at.
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
	return conversation as unknown as Conversation;
}

export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
