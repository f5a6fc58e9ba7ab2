import { DIALECTS } from '../../lib/dialects/registry';
import type { DialectId } from '../../lib/dialects/types';
import { endpointUrl, querySecrets } from '../../lib/dialects/url';

describe('endpointUrl', () => {
	it('puts the path after a Base URL without a query, with or without its trailing slashes', () => {
		expect(endpointUrl('https://api.openai.com/v1', '/chat/completions')).toBe(
			'https://api.openai.com/v1/chat/completions',
		);
		expect(endpointUrl('http://localhost:11434//', '/api/chat')).toBe(
			'http://localhost:11434/api/chat',
		);
	});

	it('puts the path at the end of the path and keeps the query after it (Azure OpenAI)', () => {
		expect(
			endpointUrl(
				'https://res.openai.azure.com/openai/deployments/gpt4o?api-version=2024-10-21',
				'/chat/completions',
			),
		).toBe(
			'https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21',
		);
		expect(
			endpointUrl('https://res.openai.azure.com/openai/v1?api-version=preview', '/responses'),
		).toBe('https://res.openai.azure.com/openai/v1/responses?api-version=preview');
	});

	it('drops the trailing slash before the query', () => {
		expect(endpointUrl('https://x.example/v1/?a=b', '/models')).toBe(
			'https://x.example/v1/models?a=b',
		);
	});

	it("adds the dialect's parameters after the Base URL's; one both name takes the dialect's value", () => {
		expect(
			endpointUrl(
				'https://gw.example/v1beta?key=k-123&alt=json',
				'/models/m:streamGenerateContent',
				{
					alt: 'sse',
				},
			),
		).toBe('https://gw.example/v1beta/models/m:streamGenerateContent?key=k-123&alt=sse');
		expect(endpointUrl('https://gw.example', '/v1/models', { limit: '1000' })).toBe(
			'https://gw.example/v1/models?limit=1000',
		);
	});

	it('drops a fragment (never sent) and an empty query', () => {
		expect(endpointUrl('https://x.example/v1#docs', '/models')).toBe('https://x.example/v1/models');
		expect(endpointUrl('https://x.example/v1/?a=b#docs?c=d', '/models')).toBe(
			'https://x.example/v1/models?a=b',
		);
		expect(endpointUrl('https://x.example/v1?', '/models')).toBe('https://x.example/v1/models');
		expect(endpointUrl('https://x.example/v1?&', '/models', { pageSize: '1000' })).toBe(
			'https://x.example/v1/models?pageSize=1000',
		);
	});

	it('keeps the query as written, encoded once and not again', () => {
		expect(endpointUrl('https://x.example/v1?key=a%2Bb/c&flag', '/models')).toBe(
			'https://x.example/v1/models?key=a%2Bb/c&flag',
		);
	});
});

describe('every dialect', () => {
	const endpoint = { baseUrl: 'https://gw.example/route/?api-version=2024-10-21', headers: {} };
	const expected: Record<DialectId, { call: string; models: string }> = {
		openaiChat: {
			call: 'https://gw.example/route/chat/completions?api-version=2024-10-21',
			models: 'https://gw.example/route/models?api-version=2024-10-21',
		},
		openaiResponses: {
			call: 'https://gw.example/route/responses?api-version=2024-10-21',
			models: 'https://gw.example/route/models?api-version=2024-10-21',
		},
		anthropic: {
			call: 'https://gw.example/route/v1/messages?api-version=2024-10-21',
			models: 'https://gw.example/route/v1/models?api-version=2024-10-21&limit=1000',
		},
		gemini: {
			call: 'https://gw.example/route/models/m-1:streamGenerateContent?api-version=2024-10-21&alt=sse',
			models: 'https://gw.example/route/models?api-version=2024-10-21&pageSize=1000',
		},
		ollama: {
			call: 'https://gw.example/route/api/chat?api-version=2024-10-21',
			models: 'https://gw.example/route/api/tags?api-version=2024-10-21',
		},
	};

	it.each(Object.keys(expected) as DialectId[])(
		"%s: keeps the Base URL's query in the call's and the model list's URL",
		(id) => {
			const { http } = DIALECTS[id];
			expect(http.url(endpoint, 'm-1', true)).toBe(expected[id].call);
			expect(http.modelsUrl(endpoint)).toBe(expected[id].models);
		},
	);
});

describe('querySecrets', () => {
	it("takes the values of the Base URL's key parameters and bare tokens, as written and decoded", () => {
		expect(
			querySecrets(
				'https://gw.example/v1?api-version=2024-10-21&key=k%2By-123&code=abc+def&sk-bare-token#frag=x',
			),
		).toEqual(['k%2By-123', 'k+y-123', 'abc+def', 'abc def', 'sk-bare-token']);
		expect(
			querySecrets(
				'https://gw.example/v1?sig=s1g-value&access_token=t0ken-value&Subscription-Key=sub-key-1',
			),
		).toEqual(['s1g-value', 't0ken-value', 'sub-key-1']);
		expect(querySecrets('https://api.openai.com/v1')).toEqual([]);
	});

	it('leaves the values that route or version the call, which texts hold as words', () => {
		expect(
			querySecrets(
				'https://gw.example/v1?API-Version=preview&region=westeurope&deployment=gpt-4o-mini',
			),
		).toEqual([]);
		expect(
			querySecrets(
				'https://gw.example/v1?author=openai-team&keyword=weather&zipcode=100000&design=anthropic&max_tokens=4096&language_code=english',
			),
		).toEqual([]);
	});

	it('takes the values of parameters with a key word in their name, and a bare base64 token', () => {
		expect(
			querySecrets(
				'https://gw.example/v1?jwt=eyJ.a.b&pwd=hunter22&subscriptionKey=sub-1&X-API-Key=xk-1&c2stYWJjZGVmZ2hpamtsbW5vcA==',
			),
		).toEqual(['eyJ.a.b', 'hunter22', 'sub-1', 'xk-1', 'c2stYWJjZGVmZ2hpamtsbW5vcA==']);
		expect(
			querySecrets(
				'https://gw.example/v1?accesstoken=at-1&apitoken=pt-1&subscriptionkey=sk-1&apisecret=as-1&Code=fn-1',
			),
		).toEqual(['at-1', 'pt-1', 'sk-1', 'as-1', 'fn-1']);
	});
});
