import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { calcPrice, findProvider, type Provider } from '@pydantic/genai-prices';
import type { TokenCounts } from '../conversation/types';

/** Prices in US dollars per million tokens, set on the node: they replace the price table's. */
export interface NodePrices {
	input: number;
	output: number;
	/** Cached input read; the input price when not set. */
	cacheRead?: number;
	/** Cached input written; the input price when not set. */
	cacheWrite?: number;
}

export interface PricingOptions {
	/** The node's own prices, for self-hosted, negotiated or unlisted models. */
	nodePrices?: NodePrices;
	/** The price table's provider to price as (a gateway in front of a vendor); else the API's URL decides. */
	priceAs?: string;
}

/** Where a price came from: the table (its version, provider and model entry) or the node. */
export type PriceSource =
	{ source: string; provider: string; model: string } | ({ source: 'node' } & NodePrices);

/** A model call's cost in US dollars, with its source; or null and why it could not be known. */
export type TurnCost = { cost: number; price: PriceSource } | { cost: null; costUnknown: string };

/**
 * The price table: genai-prices' bundled data, which this package's version pins. It is never
 * updated over the network (n8n may have none): a newer table comes with a newer package.
 */
export const PRICE_TABLE = `genai-prices ${tableVersion()}`;

/**
 * What a model call cost. The node's prices win; else the table's provider (Price As, or the
 * one whose API the call went to) prices the model that answered (a dated snapshot, the model
 * behind an Azure deployment), or else the model asked for. Cached and reasoning tokens are
 * priced as the table prices them (reasoning as output). Never a guess: a count, a provider or a
 * model the table does not know gives null with the reason.
 */
export function priceModelCall(
	tokens: TokenCounts,
	models: { answered?: string; requested: string },
	apiUrl: string,
	options: PricingOptions,
): TurnCost {
	if (tokens.input === null || tokens.output === null) {
		const missing =
			tokens.input === null && tokens.output === null
				? 'no token counts'
				: `no ${tokens.input === null ? 'input' : 'output'} token count`;
		return unknown(`the model API reported ${missing}`);
	}
	if (options.nodePrices) return nodeCost(tokens, options.nodePrices);
	const provider = providerOf(apiUrl, options.priceAs);
	if (typeof provider === 'string') return unknown(provider);
	const names = [...new Set([models.answered, models.requested])].filter(
		(name): name is string => typeof name === 'string' && name !== '',
	);
	for (const name of names) {
		let priced;
		try {
			priced = calcPrice(tableUsage(tokens), name, { provider });
		} catch (error) {
			return unknown(`${PRICE_TABLE} could not price it: ${(error as Error).message}`);
		}
		if (priced)
			return {
				cost: dollars(priced.total_price),
				price: { source: PRICE_TABLE, provider: priced.provider.id, model: priced.model.id },
			};
	}
	return unknown(
		`${PRICE_TABLE} has no price for ${names.map((name) => `'${name}'`).join(' or ')} at ${provider.id}: set prices on the node`,
	);
}

/** The table's provider, or why there is none. */
function providerOf(apiUrl: string, priceAs: string | undefined): Provider | string {
	if (priceAs) {
		return (
			findProvider({ providerId: priceAs }) ??
			`${PRICE_TABLE} has no provider '${priceAs}' (Price As): use one of its ids, such as openai, anthropic, google, azure, openrouter or groq`
		);
	}
	if (apiUrl === '')
		return 'the API it was sent to is not known (a replayed turn): set Price As, or prices on the node';
	return (
		findProvider({ providerApiUrl: apiUrl }) ??
		`${PRICE_TABLE} knows no provider at ${hostOf(apiUrl)} (a self-hosted server, a gateway): set Price As, or prices on the node`
	);
}

function nodeCost(tokens: TokenCounts, prices: NodePrices): TurnCost {
	const cacheRead = tokens.cacheRead ?? 0;
	const cacheWrite = tokens.cacheWrite ?? 0;
	const uncached = Math.max(0, (tokens.input ?? 0) - cacheRead - cacheWrite);
	const perMillion =
		uncached * prices.input +
		cacheRead * (prices.cacheRead ?? prices.input) +
		cacheWrite * (prices.cacheWrite ?? prices.input) +
		(tokens.output ?? 0) * prices.output;
	return { cost: dollars(perMillion / 1e6), price: { source: 'node', ...prices } };
}

/** The counts as genai-prices reads them: its input_tokens hold the cache's, as ours do. */
function tableUsage(tokens: TokenCounts): Record<string, number | undefined> {
	return {
		input_tokens: tokens.input ?? undefined,
		output_tokens: tokens.output ?? undefined,
		cache_read_tokens: tokens.cacheRead ?? undefined,
		cache_write_tokens: tokens.cacheWrite ?? undefined,
	};
}

/** A sum of dollars without the binary fractions' noise (0.0032500000000000003). */
export function dollars(amount: number): number {
	return Math.round(amount * 1e12) / 1e12;
}

function unknown(reason: string): TurnCost {
	return { cost: null, costUnknown: reason };
}

function hostOf(url: string): string {
	try {
		return new URL(url).hostname;
	} catch {
		return 'this URL';
	}
}

/** The version of the bundled table, from its package: the trace names it beside each price. */
function tableVersion(): string {
	const entry = require.resolve('@pydantic/genai-prices');
	const manifest = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'));
	return String(manifest.version);
}
