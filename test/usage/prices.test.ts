/**
 * Pricing with the price table the package pins (genai-prices 0.1.8, an exact dependency): the
 * figures below are that table's, so a newer table is a deliberate change that shows here first.
 */
import type { TokenCounts } from '../../lib/conversation/types';
import { PRICE_TABLE, priceModelCall } from '../../lib/usage/prices';
import { version } from '../../node_modules/@pydantic/genai-prices/package.json';
import { dependencies } from '../../package.json';

const counts = (input: number | null, output: number | null, extra: Partial<TokenCounts> = {}) => ({
	input,
	output,
	cacheRead: null,
	cacheWrite: null,
	reasoning: null,
	...extra,
});
const OPENAI = 'https://api.openai.com/v1/chat/completions';

describe('the price table', () => {
	it('is the bundled genai-prices data of the exact version package.json pins, named in every price', () => {
		expect(dependencies['@pydantic/genai-prices']).toBe('0.1.8');
		expect(version).toBe('0.1.8');
		expect(PRICE_TABLE).toBe('genai-prices 0.1.8');
	});

	it('prices by no network: the library is given no source of prices but its own data', () => {
		const fetch = jest.spyOn(globalThis, 'fetch');
		priceModelCall(counts(1000, 100), { requested: 'gpt-4o-mini' }, OPENAI, {});
		expect(fetch).not.toHaveBeenCalled();
		fetch.mockRestore();
	});
});

describe('priceModelCall', () => {
	it('prices a model by the provider whose API the call went to, cached input at its own rate', () => {
		// gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per million tokens.
		const priced = priceModelCall(
			counts(2000, 500, { cacheRead: 1000, reasoning: 100 }),
			{ requested: 'gpt-4o-mini' },
			OPENAI,
			{},
		);
		expect(priced).toEqual({
			cost: 0.000525,
			price: { source: 'genai-prices 0.1.8', provider: 'openai', model: 'gpt-4o-mini' },
		});
	});

	it('prices the model that answered first: a dated snapshot of the model asked for', () => {
		const priced = priceModelCall(
			counts(1_000_000, 0),
			{ answered: 'gpt-4o-mini-2024-07-18', requested: 'gpt-4o-mini' },
			OPENAI,
			{},
		);
		expect(priced).toMatchObject({ cost: 0.15, price: { model: 'gpt-4o-mini' } });
	});

	it('prices an Azure deployment by the model behind it, which the answer names', () => {
		const priced = priceModelCall(
			counts(1_000_000, 1_000_000),
			{ answered: 'gpt-4o-2024-08-06', requested: 'my-team-deployment' },
			'https://contoso.openai.azure.com/openai/deployments/my-team-deployment/chat/completions?api-version=2024-10-21',
			{},
		);
		expect(priced).toEqual({
			cost: 12.5,
			price: { source: 'genai-prices 0.1.8', provider: 'azure', model: 'gpt-4o' },
		});
	});

	it("prices OpenRouter's vendor/model ids at OpenRouter", () => {
		const priced = priceModelCall(
			counts(1_000_000, 0),
			{ answered: 'openai/gpt-4o-mini', requested: 'openai/gpt-4o-mini' },
			'https://openrouter.ai/api/v1/chat/completions',
			{},
		);
		expect(priced).toMatchObject({ cost: 0.15, price: { provider: 'openrouter' } });
	});

	it("prices Anthropic's cache writes and reads at their own rates", () => {
		// claude-sonnet-4-5: $3 input, $3.75 cache write, $0.30 cache read, $15 output per million.
		const priced = priceModelCall(
			counts(4221, 130, { cacheRead: 2400, cacheWrite: 1800 }),
			{ answered: 'claude-sonnet-4-5-20250929', requested: 'claude-sonnet-4-5' },
			'https://api.anthropic.com/v1/messages',
			{},
		);
		expect(priced).toMatchObject({ cost: 0.009483, price: { provider: 'anthropic' } });
	});

	it('prices a gateway or proxy as the provider Price As names', () => {
		const priced = priceModelCall(
			counts(1_000_000, 0),
			{ requested: 'gemini-2.5-flash' },
			'http://llm-gateway.internal:4000/v1beta/models/gemini-2.5-flash:generateContent',
			{ priceAs: 'google' },
		);
		expect(priced).toMatchObject({ cost: 0.3, price: { provider: 'google' } });
	});

	it('gives null and the reason, never a guess, for what the table cannot price', () => {
		const cases: Array<[Parameters<typeof priceModelCall>, string]> = [
			[
				[counts(10, 5), { requested: 'llama3.2' }, 'http://localhost:11434/api/chat', {}],
				'genai-prices 0.1.8 knows no provider at localhost (a self-hosted server, a gateway): set Price As, or prices on the node',
			],
			[
				[counts(10, 5), { answered: 'gpt-9-2031', requested: 'gpt-9' }, OPENAI, {}],
				"genai-prices 0.1.8 has no price for 'gpt-9-2031' or 'gpt-9' at openai: set prices on the node",
			],
			[
				[counts(10, 5), { requested: 'gpt-4o' }, OPENAI, { priceAs: 'no-such-vendor' }],
				"genai-prices 0.1.8 has no provider 'no-such-vendor' (Price As): use one of its ids, such as openai, anthropic, google, azure, openrouter or groq",
			],
			[
				[counts(10, 5), { requested: 'gpt-4o' }, '', {}],
				'the API it was sent to is not known (a replayed turn): set Price As, or prices on the node',
			],
			[
				[counts(null, null), { requested: 'gpt-4o' }, OPENAI, {}],
				'the model API reported no token counts',
			],
			[
				[
					counts(10, null),
					{ requested: 'gpt-4o' },
					OPENAI,
					{ nodePrices: { input: 1, output: 1 } },
				],
				'the model API reported no output token count',
			],
			[
				// A server that counts more cached tokens than input tokens: the table refuses, and says why.
				[counts(10, 5, { cacheRead: 50 }), { requested: 'gpt-4o' }, OPENAI, {}],
				'genai-prices 0.1.8 could not price it: Invalid usage data: cache_read_tokens (50) cannot exceed input_tokens (10)',
			],
		];
		for (const [args, reason] of cases)
			expect(priceModelCall(...args)).toEqual({ cost: null, costUnknown: reason });
	});

	it("prices by the node's prices before the table's, cached input at the input price unless set", () => {
		const tokens = counts(1_000_000, 1_000_000, { cacheRead: 400_000, cacheWrite: 100_000 });
		const models = { requested: 'gpt-4o-mini' };
		expect(priceModelCall(tokens, models, OPENAI, { nodePrices: { input: 2, output: 8 } })).toEqual(
			{
				cost: 10,
				price: { source: 'node', input: 2, output: 8 },
			},
		);
		const withCachePrices = { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2.5 };
		// 500,000 × $2 + 400,000 × $0.50 + 100,000 × $2.50 + 1,000,000 × $8, per million.
		expect(priceModelCall(tokens, models, OPENAI, { nodePrices: withCachePrices })).toMatchObject({
			cost: 9.45,
		});
		// Self-hosted: free at the node's word.
		const local = priceModelCall(
			counts(900, 90),
			{ requested: 'llama3.2' },
			'http://localhost:11434/api/chat',
			{
				nodePrices: { input: 0, output: 0 },
			},
		);
		expect(local).toMatchObject({ cost: 0 });
	});
});
