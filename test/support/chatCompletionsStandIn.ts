/**
 * The local stand-in for OpenAI's Chat Completions API, for tests that speak only that API; no
 * model API is reachable from the machines the tests run on. Its replies follow the openai SDK's
 * types and OpenAI's documented wire format: see standIn/openaiChat.ts, and standIn/server.ts for
 * the core every vendor's stand-in shares.
 */
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { startStandIn, type StandIn, type StandInOptions } from './standIn/index';

export * from './standIn/index';

export type ChatCompletionsStandIn = StandIn<ChatCompletionCreateParams>;

export function startChatCompletionsStandIn(
	options: StandInOptions = {},
): Promise<ChatCompletionsStandIn> {
	return startStandIn('openaiChat', options);
}
