import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import type { OpenAIRequestOptions } from '../../lib/dialects/openai';
import { DEFAULT_MAX_REPAIRS } from '../../lib/decision/takeTurn';
import type {
	ModelSettings,
	Reasoning,
	ReasoningEffort,
	ResponseFormat,
	ToolChoice,
} from '../../lib/dialects/types';
import { DEFAULT_CONCURRENCY } from '../shared/items';
import { itemParameter } from '../shared/parameters';
import { usageSettingsOf, type UsageSettings } from './budget';
import type { DialectOptions } from './providers';

export interface NodeSettings {
	model: ModelSettings;
	request: DialectOptions;
	timeoutMs: number;
	maxRetries: number;
	maxRounds: number;
	maxRepairs: number;
	usage: UsageSettings;
	/** Whether to send the text to the caller when n8n streams the answer, and with what. */
	chat: { stream: boolean; announceToolCalls: boolean };
}

interface Options {
	announceToolCalls?: boolean;
	bodyFields?: unknown;
	maxRepairs?: number;
	promptCaching?: boolean;
	reasoningEffort?: ReasoningEffort;
	thinkingBudget?: number;
	maxRetries?: number;
	maxRounds?: number;
	maxTokens?: number;
	maxTokensField?: OpenAIRequestOptions['maxTokensField'];
	keepReasoning?: boolean;
	parallelToolCalls?: boolean;
	strict?: boolean;
	stream?: boolean;
	streamToChat?: boolean;
	temperature?: number;
	timeoutMs?: number;
}

/** Settings that may differ per item (expressions), read for one item. */
export function settingsOf(context: IExecuteFunctions, itemIndex: number): NodeSettings {
	const options = itemParameter(context, 'options', itemIndex, {}) as Options;
	const model = String(
		itemParameter(context, 'model', itemIndex, '', { extractValue: true }),
	).trim();
	if (model === '')
		throw new NodeOperationError(context.getNode(), 'Choose a model', { itemIndex });
	const reasoning = reasoningOf(options);
	return {
		model: {
			model,
			toolChoice: toolChoiceOf(context, itemIndex),
			parallelToolCalls: options.parallelToolCalls,
			temperature: options.temperature,
			maxTokens: options.maxTokens,
			strict: options.strict ?? false,
			stream: options.stream ?? false,
			...responseFormatOf(context, itemIndex),
			...(reasoning && { reasoning }),
			promptCaching: options.promptCaching ?? true,
			...optionalObject(
				'bodyFields',
				jsonObjectOption(context, itemIndex, options.bodyFields, 'Additional Body Fields'),
			),
		},
		request: {
			maxTokensField: options.maxTokensField ?? 'max_completion_tokens',
			encryptedReasoning: options.keepReasoning ?? false,
		},
		timeoutMs: options.timeoutMs ?? 120_000,
		maxRetries: options.maxRetries ?? 2,
		maxRounds: options.maxRounds ?? 10,
		maxRepairs: options.maxRepairs ?? DEFAULT_MAX_REPAIRS,
		usage: usageSettingsOf(context, itemIndex),
		chat: {
			stream: options.streamToChat ?? true,
			announceToolCalls: options.announceToolCalls ?? false,
		},
	};
}

function toolChoiceOf(context: IExecuteFunctions, itemIndex: number): ToolChoice {
	const choice = itemParameter(context, 'toolChoice', itemIndex, 'auto') as
		'auto' | 'required' | 'none' | 'named';
	if (choice !== 'named') return choice;
	return { name: (itemParameter(context, 'toolName', itemIndex, '') as string).trim() };
}

/** Items in Parallel: read once, from the first item, as it sets how the items are run. */
export function concurrencyOf(context: IExecuteFunctions): number {
	return (
		(context.getNodeParameter('options.concurrency', 0, DEFAULT_CONCURRENCY) as number) ||
		DEFAULT_CONCURRENCY
	);
}

/**
 * A JSON option that must hold an object (as text, or an object an expression gave); empty is none.
 * Anything else stops the item, naming the option.
 */
function jsonObjectOption(
	context: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	label: string,
): Record<string, unknown> | undefined {
	let parsed = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return undefined;
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			throw new NodeOperationError(
				context.getNode(),
				`${label} is not valid JSON: ${(error as Error).message}`,
				{ itemIndex },
			);
		}
	}
	if (parsed === undefined || parsed === null) return undefined;
	if (typeof parsed !== 'object' || Array.isArray(parsed))
		throw new NodeOperationError(
			context.getNode(),
			`${label} must be a JSON object, but it is ${Array.isArray(parsed) ? 'a list' : typeof parsed}`,
			{ itemIndex },
		);
	return parsed as Record<string, unknown>;
}

function optionalObject<K extends string>(
	key: K,
	value: Record<string, unknown> | undefined,
): { [key in K]?: Record<string, unknown> } {
	return value && Object.keys(value).length > 0
		? ({ [key]: value } as { [key in K]: Record<string, unknown> })
		: {};
}

/** The Response Format: JSON, or JSON that matches the schema given (an object, checked here). */
function responseFormatOf(
	context: IExecuteFunctions,
	itemIndex: number,
): { responseFormat?: ResponseFormat } {
	const kind = itemParameter(context, 'responseFormat', itemIndex, 'text');
	if (kind === 'json') return { responseFormat: { type: 'json' } };
	if (kind !== 'jsonSchema') return {};
	const raw = itemParameter(context, 'responseSchema', itemIndex, '');
	const schema = jsonObjectOption(context, itemIndex, raw, 'Response Schema');
	if (!schema)
		throw new NodeOperationError(
			context.getNode(),
			'Response Schema is empty: give the JSON Schema the answer must match',
			{ itemIndex },
		);
	return { responseFormat: { type: 'jsonSchema', name: 'answer', schema } };
}

/** Reasoning, when Reasoning Effort or Thinking Budget is set. */
function reasoningOf(options: Options): Reasoning | undefined {
	const { reasoningEffort: effort, thinkingBudget: budgetTokens } = options;
	if (effort === undefined && budgetTokens === undefined) return undefined;
	return { ...(effort && { effort }), ...(budgetTokens !== undefined && { budgetTokens }) };
}
