import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';
import type { Budget } from '../../lib/usage/budget';
import type { NodePrices, PricingOptions } from '../../lib/usage/prices';
import { itemParameter } from '../shared/parameters';

/** The limits on a conversation and how its model calls are priced, for one item. */
export interface UsageSettings {
	budget: Budget;
	pricing: PricingOptions;
}

interface BudgetParameters {
	maxCost?: number;
	maxTokens?: number;
	maxToolCalls?: number;
	priceAs?: string;
	inputPrice?: number;
	outputPrice?: number;
	cacheReadPrice?: number;
	cacheWritePrice?: number;
}

const perMillion = (what: string, name: string, description: string): INodeProperties => ({
	displayName: `${what} Price per Million Tokens (USD)`,
	name,
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 4 },
	default: 0,
	description,
});

export const budgetProperty: INodeProperties = {
	displayName: 'Budget and Prices',
	name: 'budget',
	type: 'collection',
	placeholder: 'Add Limit or Price',
	default: {},
	description:
		'What one conversation may use, over all its rounds (and messages, when a chat memory keeps its totals), checked before each model call: at a limit the item leaves by Final Answer with the reason in stopReason, and no further call is made',
	options: [
		perMillion(
			'Cache Write',
			'cacheWritePrice',
			'Input written to the provider’s prompt cache. The input price when not set.',
		),
		perMillion(
			'Cached Input',
			'cacheReadPrice',
			'Input read from the provider’s prompt cache. The input price when not set.',
		),
		perMillion(
			'Input',
			'inputPrice',
			'Your own price, for a self-hosted, negotiated or unlisted model: it replaces the price table’s. Set the output price too.',
		),
		{
			displayName: 'Max Cost per Conversation (USD)',
			name: 'maxCost',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 4 },
			default: 1,
			description:
				'The most the conversation may cost, as priced by the price table or the prices set here; 0 for no limit. A conversation whose cost cannot be known (an unlisted model) stops at once.',
		},
		{
			displayName: 'Max Tokens per Conversation',
			name: 'maxTokens',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 100000,
			description:
				'The most input and output tokens the conversation may use together; 0 for no limit. A model API that reports no token counts stops it at once.',
		},
		{
			displayName: 'Max Tool Calls per Conversation',
			name: 'maxToolCalls',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 20,
			description:
				'The most tool calls MCP Client may send to servers for the conversation; 0 for no limit. The calls of the turn that reaches it still run; no model call follows.',
		},
		perMillion(
			'Output',
			'outputPrice',
			'Your own price for output (reasoning included). Set the input price too.',
		),
		{
			displayName: 'Price As',
			name: 'priceAs',
			type: 'string',
			default: '',
			placeholder: 'e.g. openai',
			description:
				'The provider whose prices apply, by its ID in the price table (genai-prices: openai, anthropic, google, azure, openrouter, groq, mistral, deepseek…), for a gateway or proxy in front of it. By default the Base URL decides; a self-hosted server has no price.',
		},
	],
};

/** The item's budget and pricing; prices set on the node need both input and output. */
export function usageSettingsOf(context: IExecuteFunctions, itemIndex: number): UsageSettings {
	const set = itemParameter(context, 'budget', itemIndex, {}) as BudgetParameters;
	const { inputPrice: input, outputPrice: output } = set;
	if ((input === undefined) !== (output === undefined))
		throw new NodeOperationError(
			context.getNode(),
			`Budget and Prices sets ${input === undefined ? 'an output' : 'an input'} price only: set both Input and Output Price per Million Tokens, or neither`,
			{ itemIndex },
		);
	const nodePrices: NodePrices | undefined =
		input === undefined || output === undefined
			? undefined
			: {
					input,
					output,
					...(set.cacheReadPrice !== undefined && { cacheRead: set.cacheReadPrice }),
					...(set.cacheWritePrice !== undefined && { cacheWrite: set.cacheWritePrice }),
				};
	const priceAs = set.priceAs?.trim();
	return {
		budget: { maxCost: set.maxCost, maxTokens: set.maxTokens, maxToolCalls: set.maxToolCalls },
		pricing: { ...(nodePrices && { nodePrices }), ...(priceAs && { priceAs }) },
	};
}
