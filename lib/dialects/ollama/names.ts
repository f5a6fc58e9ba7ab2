import { buildToolNameMap } from '../toolNames';
import type { ToolNameMap } from '../types';
import { openaiNameRule } from '../openai/names';

/**
 * Ollama checks no tool name, but renders the names into each model's prompt and parses them back
 * out of the model's text; its gpt-oss parser rewrites dots itself and keeps `browser.search` for a
 * built-in tool. OpenAI's alphabet is the one these models were trained to call, so names follow it.
 */
export function ollamaToolNames(names: readonly string[]): ToolNameMap {
	return buildToolNameMap(names, openaiNameRule);
}
