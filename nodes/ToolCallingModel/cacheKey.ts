import { createHash } from 'node:crypto';
import type { Conversation } from '../../lib/conversation/types';
import type { DialectId } from '../../lib/dialects/types';

/** Hosts that take OpenAI's prompt_cache_key: OpenAI's own API and Azure OpenAI's. */
const TAKES_CACHE_KEY = /(^|\.)api\.openai\.com$|\.openai\.azure\.com$/;

/**
 * OpenAI's prompt_cache_key for a conversation: its chat session's id (Chat Memory), else its
 * opening (the first system and user messages), hashed, so every round and message of one
 * conversation lands on the same cache. Sent to OpenAI's and Azure's API only: other compatible
 * servers may refuse a field they do not know.
 */
export function promptCacheKey(
	dialect: DialectId,
	baseUrl: string | undefined,
	conversation: Conversation & { session?: { id?: unknown } },
): string | undefined {
	if (dialect !== 'openaiChat' && dialect !== 'openaiResponses') return undefined;
	const host = baseUrl ? URL.parse(baseUrl)?.hostname : undefined;
	if (!host || !TAKES_CACHE_KEY.test(host)) return undefined;
	const session = conversation.session?.id;
	const opening = conversation.messages
		.filter((message) => message.role === 'system' || message.role === 'user')
		.slice(0, 2)
		.map((message) => message.content);
	const source = typeof session === 'string' ? `session:${session}` : JSON.stringify(opening);
	return `n8n-${createHash('sha256').update(source).digest('hex').slice(0, 32)}`;
}
