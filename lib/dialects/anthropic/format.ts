import type { Tool } from '../../conversation/types';
import { answerToolFor, type AnswerToolRequest } from '../answerTool';
import { reasoningBudget, strictAnswerSchema } from '../settings';
import { UnsupportedSettingError, type ModelSettings } from '../types';
import type { AnthropicBlock, AnthropicRequest } from './wire';

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

/**
 * Models that take a structured answer (`output_config.format`): Claude Opus 4.1, and 4.5 and later.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs
 */
function takesStructuredOutputs(model: string): boolean {
	const found =
		/claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d+))?(?!\d)/.exec(model) ??
		/claude-(\d+)-(\d+)-(?:opus|sonnet|haiku)/.exec(model);
	if (!found) return false;
	const [major, minor] = [Number(found[1]), Number(found[2] ?? 0)];
	// A dated snapshot's date is no minor version (claude-sonnet-4-20250514).
	const version = minor > 99 ? 0 : minor;
	return major > 4 || (major === 4 && (version >= 5 || (version === 1 && model.includes('opus'))));
}

export interface AnthropicShape {
	/** output_config and thinking, when asked for. */
	fields: {
		output_config?: { format: { type: 'json_schema'; schema: Record<string, unknown> } };
		thinking?: { type: 'enabled'; budget_tokens: number };
	};
	/** The tool a structured answer comes by, for models without structured outputs; added to the tools. */
	answer?: AnswerToolRequest;
	/** Tokens the turn may write: thinking comes out of max_tokens, so the budget is added to the answer's. */
	maxTokens: number;
}

/**
 * The turn's shape the way Anthropic takes it: a structured answer as `output_config.format` where
 * the model has structured outputs and the schema fits its rules (the strict rules), else by a tool
 * (answerTool.ts); reasoning as extended thinking with a budget, which refuses a temperature other
 * than 1 and a forced tool choice, so those stop the request, saying so.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
export function anthropicFormat(
	settings: ModelSettings,
	tools: readonly Tool[],
	maxTokens: number,
): AnthropicShape {
	const fields: AnthropicShape['fields'] = {};
	let answer: AnthropicShape['answer'];
	const format = settings.responseFormat;
	if (format) {
		const strict = strictAnswerSchema(format);
		if (strict?.ok && takesStructuredOutputs(settings.model))
			fields.output_config = { format: { type: 'json_schema', schema: strict.schema } };
		else answer = answerToolFor(format, tools);
	}
	if (!settings.reasoning) return { fields, answer, maxTokens };
	if (settings.temperature !== undefined && settings.temperature !== 1)
		throw new UnsupportedSettingError(
			`Anthropic's extended thinking takes no temperature but 1, and Temperature is ${settings.temperature}: unset Temperature, or Reasoning.`,
		);
	if (settings.toolChoice === 'required' || typeof settings.toolChoice === 'object')
		throw new UnsupportedSettingError(
			"Anthropic's extended thinking cannot be combined with a forced tool choice: set Tool Choice to Auto or None, or unset Reasoning.",
		);
	const budget = Math.max(MIN_THINKING_BUDGET, reasoningBudget(settings.reasoning));
	fields.thinking = { type: 'enabled', budget_tokens: budget };
	return { fields, answer, maxTokens: maxTokens + budget };
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Blocks that may carry a cache breakpoint: not thinking blocks, which the API refuses one on. */
const CACHEABLE = new Set(['text', 'tool_result', 'tool_use', 'image', 'document']);

/**
 * Prompt caching: `cache_control` breakpoints on the last tool, the system prompt and the last
 * block of the conversation so far (3 of the 4 a request may hold), so each round reads what the
 * last one wrote. It changes no answer: a prompt shorter than the model's minimum is not cached,
 * and the cache's reads and writes are reported in usage.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 */
export function markCacheBreakpoints(body: AnthropicRequest): void {
	const tools = body.tools ?? [];
	if (tools.length > 0)
		tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: EPHEMERAL };
	if (typeof body.system === 'string')
		body.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
	const last = body.messages.at(-1);
	if (!last) return;
	const blocks: AnthropicBlock[] =
		typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
	const at = blocks.findLastIndex((block) => CACHEABLE.has(block.type));
	if (at < 0) return;
	blocks[at] = { ...blocks[at], cache_control: EPHEMERAL };
	body.messages[body.messages.length - 1] = { ...last, content: blocks };
}
