/**
 * Each vendor's documented rules for the request fields of the model turn's shape (a structured
 * answer, reasoning, prompt caching), written from the vendors' documents, like ./vendorRules.ts
 * for tools: the stand-ins refuse a request that breaks one, as the vendor would.
 */
import type { DialectId } from '../../lib/dialects/types';
import { isRecord } from '../../lib/json/value';
import { geminiSchemaProblems, type VendorRule } from './vendorRules';

type Json = Record<string, unknown>;

const OPENAI_FORMAT = 'https://platform.openai.com/docs/guides/structured-outputs';
const OPENAI_REASONING = 'https://platform.openai.com/docs/guides/reasoning';
const ANTHROPIC_THINKING = 'https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking';
const ANTHROPIC_CACHING = 'https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching';
const ANTHROPIC_OUTPUTS = 'https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs';
const GEMINI_OUTPUT = 'https://ai.google.dev/gemini-api/docs/structured-output';
const GEMINI_THINKING = 'https://ai.google.dev/gemini-api/docs/thinking';
const OLLAMA_API = 'https://github.com/ollama/ollama/blob/main/docs/api.md';

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const FORMAT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const rule = (says: string, see: string, check: (body: Json) => string[]): VendorRule => ({
	says,
	see,
	check,
});
const mentionsJson = (texts: unknown[]) =>
	texts.some((text) => /json/i.test(typeof text === 'string' ? text : JSON.stringify(text ?? '')));

function jsonSchemaFormat(format: unknown): string[] {
	if (!isRecord(format) || format.type !== 'json_schema') return [];
	const problems: string[] = [];
	if (typeof format.name !== 'string' || !FORMAT_NAME.test(format.name))
		problems.push(`json_schema name ${JSON.stringify(format.name)}`);
	if (!isRecord(format.schema)) problems.push('json_schema without a schema');
	return problems;
}

/** Blocks of a Messages body that carry cache_control, where they are. */
function cacheBreakpoints(body: Json): Array<{ at: string; block: Json }> {
	const found: Array<{ at: string; block: Json }> = [];
	const visit = (value: unknown, at: string) => {
		if (isRecord(value) && value.cache_control !== undefined) found.push({ at, block: value });
	};
	(Array.isArray(body.tools) ? body.tools : []).forEach((tool, i) => visit(tool, `tools[${i}]`));
	(Array.isArray(body.system) ? body.system : []).forEach((block, i) =>
		visit(block, `system[${i}]`),
	);
	(Array.isArray(body.messages) ? body.messages : []).forEach((message, m) => {
		const content = isRecord(message) && Array.isArray(message.content) ? message.content : [];
		content.forEach((block, i) => visit(block, `messages[${m}].content[${i}]`));
	});
	return found;
}

export const REQUEST_RULES: Record<DialectId, VendorRule[]> = {
	openaiChat: [
		rule(
			"'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'; a json_schema format has a name of a-z, A-Z, 0-9, _ and - (at most 64) and a schema.",
			OPENAI_FORMAT,
			(body) => {
				const format = body.response_format;
				if (!isRecord(format)) return [];
				if (format.type === 'json_object') {
					const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
					return mentionsJson(messages.map((message) => message.content))
						? []
						: ['json_object without the word json in the messages'];
				}
				return jsonSchemaFormat(
					isRecord(format.json_schema) ? { type: 'json_schema', ...format.json_schema } : format,
				);
			},
		),
		rule(
			'reasoning_effort: none, minimal, low, medium, high or xhigh.',
			OPENAI_REASONING,
			(body) =>
				body.reasoning_effort === undefined || EFFORTS.includes(String(body.reasoning_effort))
					? []
					: [`reasoning_effort ${JSON.stringify(body.reasoning_effort)}`],
		),
	],
	openaiResponses: [
		rule(
			"text.format json_object needs the word 'json' in the input; a json_schema format has a name and a schema.",
			OPENAI_FORMAT,
			(body) => {
				const format = isRecord(body.text) ? body.text.format : undefined;
				if (!isRecord(format)) return [];
				if (format.type === 'json_object')
					return mentionsJson([body.instructions, body.input])
						? []
						: ['json_object without the word json in the input'];
				return jsonSchemaFormat(format);
			},
		),
		rule(
			'reasoning.effort as for Chat Completions; reasoning.summary: auto, concise or detailed.',
			OPENAI_REASONING,
			(body) => {
				const reasoning = body.reasoning;
				if (!isRecord(reasoning)) return [];
				const problems: string[] = [];
				if (reasoning.effort !== undefined && !EFFORTS.includes(String(reasoning.effort)))
					problems.push(`reasoning.effort ${JSON.stringify(reasoning.effort)}`);
				if (
					reasoning.summary !== undefined &&
					!['auto', 'concise', 'detailed'].includes(String(reasoning.summary))
				)
					problems.push(`reasoning.summary ${JSON.stringify(reasoning.summary)}`);
				return problems;
			},
		),
	],
	anthropic: [
		rule(
			'thinking.budget_tokens: at least 1024 and less than max_tokens; thinking is not compatible with temperature other than 1, nor with forced tool use (tool_choice any or tool).',
			ANTHROPIC_THINKING,
			(body) => {
				const thinking = body.thinking;
				if (!isRecord(thinking) || thinking.type !== 'enabled') return [];
				const budget = Number(thinking.budget_tokens);
				const problems: string[] = [];
				if (!(budget >= 1024)) problems.push(`budget_tokens ${String(thinking.budget_tokens)}`);
				if (!(budget < Number(body.max_tokens)))
					problems.push('budget_tokens not below max_tokens');
				if (body.temperature !== undefined && body.temperature !== 1)
					problems.push('temperature with thinking');
				const choice = isRecord(body.tool_choice) ? body.tool_choice.type : undefined;
				if (choice === 'any' || choice === 'tool')
					problems.push(`tool_choice ${String(choice)} with thinking`);
				return problems;
			},
		),
		rule(
			'A request holds at most 4 cache breakpoints, each {type: "ephemeral"} (ttl 5m or 1h), on blocks other than thinking blocks.',
			ANTHROPIC_CACHING,
			(body) => {
				const marks = cacheBreakpoints(body);
				const problems = marks.length > 4 ? [`${marks.length} cache breakpoints`] : [];
				for (const { at, block } of marks) {
					const mark = block.cache_control;
					if (!isRecord(mark) || mark.type !== 'ephemeral')
						problems.push(`${at}: cache_control ${JSON.stringify(mark)}`);
					if (block.type === 'thinking' || block.type === 'redacted_thinking')
						problems.push(`${at}: on a thinking block`);
				}
				return problems;
			},
		),
		rule(
			'output_config.format: {type: "json_schema", schema}, every object of the schema closed (additionalProperties: false).',
			ANTHROPIC_OUTPUTS,
			(body) => {
				const format = isRecord(body.output_config) ? body.output_config.format : undefined;
				if (format === undefined) return [];
				if (!isRecord(format) || format.type !== 'json_schema' || !isRecord(format.schema))
					return ['output_config.format is not a json_schema format'];
				const open: string[] = [];
				const visit = (node: unknown, at: string) => {
					if (!isRecord(node)) return;
					if (node.type === 'object' && node.additionalProperties !== false) open.push(at);
					if (isRecord(node.properties))
						for (const [key, inner] of Object.entries(node.properties))
							visit(inner, `${at}/properties/${key}`);
					visit(node.items, `${at}/items`);
				};
				visit(format.schema, '#');
				return open.map((at) => `${at}: an open object`);
			},
		),
	],
	gemini: [
		rule(
			'responseSchema requires responseMimeType application/json, and is a Schema object.',
			GEMINI_OUTPUT,
			(body) => {
				const config = isRecord(body.generationConfig) ? body.generationConfig : {};
				if (config.responseSchema === undefined) return [];
				return [
					...(config.responseMimeType === 'application/json'
						? []
						: ['responseSchema without responseMimeType application/json']),
					...geminiSchemaProblems(config.responseSchema),
				];
			},
		),
		rule('thinkingConfig: thinkingLevel or thinkingBudget, not both.', GEMINI_THINKING, (body) => {
			const config = isRecord(body.generationConfig)
				? body.generationConfig.thinkingConfig
				: undefined;
			return isRecord(config) &&
				config.thinkingLevel !== undefined &&
				config.thinkingBudget !== undefined
				? ['thinkingLevel and thinkingBudget together']
				: [];
		}),
	],
	ollama: [
		rule(
			'format: "json" or a JSON schema; think: a boolean, or "low", "medium" or "high".',
			OLLAMA_API,
			(body) => {
				const problems: string[] = [];
				if (body.format !== undefined && body.format !== 'json' && !isRecord(body.format))
					problems.push(`format ${JSON.stringify(body.format)}`);
				if (
					body.think !== undefined &&
					typeof body.think !== 'boolean' &&
					!['low', 'medium', 'high'].includes(String(body.think))
				)
					problems.push(`think ${JSON.stringify(body.think)}`);
				return problems;
			},
		),
	],
};
