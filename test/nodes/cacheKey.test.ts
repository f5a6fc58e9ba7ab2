import type { Conversation } from '../../lib/conversation/types';
import { promptCacheKey } from '../../nodes/ToolCallingModel/cacheKey';

const conversation = (
	first: string,
	session?: string,
): Conversation & { session?: { id: string } } => ({
	messages: [
		{ role: 'system', content: 'Be brief.' },
		{ role: 'user', content: first },
		{ role: 'assistant', content: 'Later turns do not change the key.' },
	],
	tools: [],
	toolCalls: [],
	trace: [],
	...(session && { session: { id: session } }),
});

describe('promptCacheKey', () => {
	it('keys a conversation by its chat session, else by its opening, for OpenAI’s and Azure’s API only', () => {
		const key = promptCacheKey('openaiChat', 'https://api.openai.com/v1', conversation('Hi'));
		expect(key).toMatch(/^n8n-[0-9a-f]{32}$/);
		expect(
			promptCacheKey(
				'openaiResponses',
				'https://res.openai.azure.com/openai/v1',
				conversation('Hi'),
			),
		).toBe(key);
		expect(promptCacheKey('openaiChat', 'https://api.openai.com/v1', conversation('Bye'))).not.toBe(
			key,
		);
		const bySession = promptCacheKey(
			'openaiChat',
			'https://api.openai.com/v1',
			conversation('Hi', 's1'),
		);
		expect(
			promptCacheKey('openaiChat', 'https://api.openai.com/v1', conversation('Other', 's1')),
		).toBe(bySession);
	});

	it('sends none to other servers, other vendors, or a replay', () => {
		for (const [dialect, url] of [
			['openaiChat', 'http://localhost:11434/v1'],
			['openaiChat', 'https://api.groq.com/openai/v1'],
			['anthropic', 'https://api.openai.com/v1'],
			['openaiChat', undefined],
		] as const)
			expect(promptCacheKey(dialect, url, conversation('Hi'))).toBeUndefined();
	});
});
