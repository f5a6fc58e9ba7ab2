import type { Tool } from '../../conversation/types';
import { toGeminiResponseSchema, type GeminiSchema } from '../../schema/gemini';
import { answerToolFor, type AnswerToolRequest } from '../answerTool';
import { reasoningBudget } from '../settings';
import type { ModelSettings } from '../types';

/** Gemini's generation, read off the model's name ("gemini-2.5-flash" is 2); 0 when it names none. */
export function geminiGeneration(model: string): number {
	const generation = /gemini-(\d+)/.exec(model);
	return generation === null ? 0 : Number(generation[1]);
}

export interface GeminiShape {
	generationConfig: {
		responseMimeType?: 'application/json';
		responseSchema?: GeminiSchema;
		thinkingConfig?: {
			thinkingLevel?: 'low' | 'high';
			thinkingBudget?: number;
			includeThoughts: true;
		};
	};
	/** The tool a structured answer comes by, where Gemini takes no JSON answer beside tools. */
	answer?: AnswerToolRequest;
}

/**
 * The turn's shape the way Gemini takes it. A structured answer is `responseMimeType:
 * application/json` with the schema as `responseSchema` (Gemini's Schema rules, lib/schema/gemini.ts);
 * before Gemini 3, function calling refuses a JSON answer, so with tools it comes by a tool
 * (answerTool.ts). Reasoning is `thinkingConfig` with its thoughts included for the trace: Gemini 3
 * takes a thinking level for an effort, older models a budget. Prompt caching needs nothing here:
 * Gemini caches implicitly and reports cached tokens in usage.
 * @see https://ai.google.dev/gemini-api/docs/structured-output
 * @see https://ai.google.dev/gemini-api/docs/thinking
 */
export function geminiFormat(settings: ModelSettings, tools: readonly Tool[]): GeminiShape {
	const generation = geminiGeneration(settings.model);
	const shape: GeminiShape = { generationConfig: {} };
	const format = settings.responseFormat;
	if (format && tools.length > 0 && generation < 3) shape.answer = answerToolFor(format, tools);
	else if (format) {
		shape.generationConfig.responseMimeType = 'application/json';
		if (format.type === 'jsonSchema')
			shape.generationConfig.responseSchema = toGeminiResponseSchema(format.schema);
	}
	const reasoning = settings.reasoning;
	if (reasoning)
		shape.generationConfig.thinkingConfig =
			generation >= 3 && reasoning.effort
				? {
						thinkingLevel:
							reasoning.effort === 'medium' || reasoning.effort === 'high' ? 'high' : 'low',
						includeThoughts: true,
					}
				: { thinkingBudget: reasoningBudget(reasoning), includeThoughts: true };
	return shape;
}
