import { anthropicDialect } from './anthropic';
import { geminiDialect } from './gemini';
import { ollamaDialect } from './ollama';
import { openaiDialect } from './openai';
import { responsesDialect } from './responses';
import type { Dialect, DialectId } from './types';

/** Every dialect by its id, with default options. */
export const DIALECTS: Record<DialectId, Dialect> = {
	openaiChat: openaiDialect as Dialect,
	openaiResponses: responsesDialect as Dialect,
	anthropic: anthropicDialect as Dialect,
	gemini: geminiDialect as Dialect,
	ollama: ollamaDialect as Dialect,
};
