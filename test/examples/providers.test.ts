/**
 * The example loop with every provider: the same workflow, the same MCP server, the model API in
 * each vendor's wire format (a local stand-in per vendor). Then one conversation that changes
 * provider at every round, since the items carry the conversation in one neutral form.
 */
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { PROVIDERS } from '../../nodes/ToolCallingModel/providers';
import { nodeTypesFrom, runsOf, runWorkflow } from '../support/engine';
import { loadExample } from '../support/examples';
import {
	chain,
	expectConversationItem,
	mcpClientNode,
	stdioCredential,
	stopServersAfterAll,
} from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes } from '../support/modelWorkflow';
import { everythingStdio } from '../support/servers';
import { DIALECT_IDS, reply, startStandIn, type DialectId, type StandIn } from '../support/standIn';
import { TOOL_LOOP_ORDER } from '../support/toolLoopOrder';

stopServersAfterAll();

const MODELS: Record<DialectId, string> = {
	openaiChat: 'gpt-4.1-mini',
	openaiResponses: 'gpt-4.1-mini',
	anthropic: 'claude-sonnet-4-5',
	gemini: 'gemini-2.5-flash',
	ollama: 'qwen3:8b',
};
const API_KEY = 'sk-providers-test-key';
const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });

/** What a model node needs to reach a stand-in as this provider: its parameters, credential slot and values. */
function asProvider(api: StandIn, dialect: DialectId, credentialId: string) {
	const credentialType = PROVIDERS[dialect].credentialType;
	return {
		parameters: { provider: dialect, model: { __rl: true, mode: 'id', value: MODELS[dialect] } },
		credentials: { [credentialType]: { id: credentialId, name: credentialId } },
		values: { baseUrl: api.baseURL, apiKey: API_KEY, headers: {} },
	};
}

const sumCall = { name: 'get-sum', arguments: '{"a":17,"b":25}' };
const echoCall = { name: 'echo', arguments: '{"message":"42"}' };
const ANSWER = '17 + 25 = 42, and the echo said: 42.';

/** The conversation as the items carry it, without what each vendor makes up (ids) or adds (its own turn form). */
function neutral(messages: any[]) {
	return messages.map(({ tool_call_id, tool_calls, vendorTurn, ...message }) => ({
		...message,
		...(tool_calls && { tool_calls: tool_calls.map((call: any) => call.function) }),
	}));
}

const expectedMessages = [
	{
		role: 'system',
		content: 'You are precise. Use the tools for arithmetic and echo results back when asked.',
	},
	{ role: 'user', content: 'What is 17 + 25? Then echo the result back to me.' },
	{ role: 'assistant', content: null, tool_calls: [sumCall] },
	{ role: 'tool', name: 'get-sum', content: 'The sum of 17 and 25 is 42.' },
	{ role: 'assistant', content: 'Now I echo it.', tool_calls: [echoCall] },
	{ role: 'tool', name: 'echo', content: 'Echo: 42' },
	{ role: 'assistant', content: ANSWER },
];

describe.each(
	DIALECT_IDS.flatMap(
		(dialect) =>
			[
				[dialect, false],
				[dialect, true],
			] as Array<[DialectId, boolean]>,
	),
)('the example loop with %s (stream: %s)', (dialect, stream) => {
	let api: StandIn;
	beforeEach(async () => {
		api = await startStandIn(dialect, { apiKey: API_KEY });
	});
	afterEach(() => api.close());

	it('reaches the final answer in three rounds, every request in the vendor’s format', async () => {
		api.script(
			reply.toolCalls([sumCall]),
			reply.toolCalls([echoCall], { content: 'Now I echo it.' }),
			reply.text(ANSWER),
		);
		const provider = asProvider(api, dialect, 'model');
		const workflow = loadExample('mcp-tool-loop.json', {
			Model: { ...provider.parameters, options: { maxRounds: 6, stream } },
		});
		workflow.nodes.find((node) => node.name === 'Model')!.credentials = provider.credentials;
		const run = await runWorkflow(workflow, {
			nodeTypes: nodeTypes(),
			credentials: { mcpEverything: stdioCredential(everythingStdio()), model: provider.values },
		});

		expect(run.status).toBe('success');
		expect(run.order).toEqual(TOOL_LOOP_ORDER);
		const final = runsOf(run, 'Model')[2].outputs[1][0].json as any;
		expectConversationItem(final);
		expect(neutral(final.messages)).toEqual(expectedMessages);
		expect(final).toMatchObject({ answer: ANSWER, rounds: 3, toolCalls: [] });
		// Each result went back under the id of the call it answers.
		const calls = final.messages.flatMap((message: any) => message.tool_calls ?? []);
		const results = final.messages.filter((message: any) => message.role === 'tool');
		expect(results.map((message: any) => message.tool_call_id)).toEqual(
			calls.map((call: any) => call.id),
		);

		expect(api.requests).toHaveLength(3);
		expect(api.remaining()).toBe(0);
		// The stand-in checks what the vendor checks; the results reached it in its own write-back form.
		expect(JSON.stringify(api.requests[1].body)).toContain('The sum of 17 and 25 is 42.');
		expect(JSON.stringify(api.requests[2].body)).toContain('Echo: 42');
		expect(JSON.stringify(final)).not.toContain(API_KEY);
		expect(
			final.trace
				.filter((entry: any) => entry.step === 'model.request')
				.map((entry: any) => entry.dialect),
		).toEqual([dialect, dialect, dialect]);
	});
});

/** Token counts of each round, in OpenAI's names; each stand-in reports them in its vendor's form. */
const ROUND_USAGE = [
	{ prompt: 1200, cached: 1000, completion: 90, reasoning: 60 },
	{ prompt: 1400, cached: 1100, completion: 70, reasoning: 30 },
	{ prompt: 1600, cached: 1300, completion: 50, reasoning: 0 },
].map(({ prompt, cached, completion, reasoning }) => ({
	prompt_tokens: prompt,
	completion_tokens: completion,
	total_tokens: prompt + completion,
	prompt_tokens_details: { cached_tokens: cached },
	completion_tokens_details: { reasoning_tokens: reasoning },
}));

/** What each vendor reports of the cache and of reasoning: Anthropic counts no reasoning apart, Ollama neither. */
const REPORTS: Record<DialectId, { cacheRead: boolean; reasoning: boolean }> = {
	openaiChat: { cacheRead: true, reasoning: true },
	openaiResponses: { cacheRead: true, reasoning: true },
	anthropic: { cacheRead: true, reasoning: false },
	gemini: { cacheRead: true, reasoning: true },
	ollama: { cacheRead: false, reasoning: false },
};

describe('switching provider mid-loop', () => {
	// Fresh per test: a stand-in remembers the thought signatures it gave, as Gemini checks them.
	const stands: Partial<Record<DialectId, StandIn>> = {};
	beforeEach(async () => {
		for (const dialect of DIALECT_IDS)
			stands[dialect] = await startStandIn(dialect, { apiKey: API_KEY });
	});
	afterEach(async () => {
		for (const api of Object.values(stands)) await api!.close();
	});

	it.each([
		[['openaiChat', 'anthropic', 'gemini']],
		[['gemini', 'ollama', 'openaiResponses']],
		[['anthropic', 'openaiResponses', 'openaiChat']],
		[['ollama', 'gemini', 'anthropic']],
	] as Array<[DialectId[]]>)('continues one conversation across %j', async (order) => {
		const turns = [
			reply.toolCalls([sumCall], { usage: ROUND_USAGE[0] }),
			reply.toolCalls([echoCall], { content: 'Now I echo it.', usage: ROUND_USAGE[1] }),
			reply.text(ANSWER, { usage: ROUND_USAGE[2] }),
		];
		const credentials: Record<string, ICredentialDataDecryptedObject> = {
			mcpEverything: stdioCredential(everythingStdio()),
		};
		const nodes: INode[] = [
			mcpClientNode(
				'List Tools',
				{ operation: 'listTools' },
				{ credentials: { mcpStdioServerApi: { id: 'mcpEverything', name: 'everything' } } },
			),
		];
		order.forEach((dialect, index) => {
			const api = stands[dialect]!;
			api.script(turns[index]);
			const provider = asProvider(api, dialect, `model${index}`);
			credentials[`model${index}`] = provider.values;
			nodes.push(
				modelNode(
					`Model ${index + 1}`,
					{
						...provider.parameters,
						systemMessage:
							'You are precise. Use the tools for arithmetic and echo results back when asked.',
						userMessage: 'What is 17 + 25? Then echo the result back to me.',
						// One price for every token: the cost is the tokens, whatever the vendor says of its cache.
						budget: { inputPrice: 1, outputPrice: 1 },
					},
					{ credentials: provider.credentials },
				),
			);
			if (index < 2) {
				nodes.push(
					mcpClientNode(
						`Execute ${index + 1}`,
						{ operation: 'executeToolCalls' },
						{ credentials: { mcpStdioServerApi: { id: 'mcpEverything', name: 'everything' } } },
					),
				);
			}
		});
		const run = await runWorkflow(chain(...nodes), { nodeTypes: nodeTypes(), credentials });

		expect(run.error?.message).toBeUndefined();
		expect(run.status).toBe('success');
		const final = runsOf(run, 'Model 3')[0].outputs[1][0].json as any;
		expect(neutral(final.messages)).toEqual(expectedMessages);
		expect(
			final.trace
				.filter((entry: any) => entry.step === 'model.request')
				.map((entry: any) => entry.dialect),
		).toEqual(order);
		for (const dialect of order) expect(stands[dialect]!.remaining()).toBe(0);

		// One total over three vendors, each read from its own form of the counts.
		const reported = (kind: 'cacheRead' | 'reasoning', count: (round: number) => number) =>
			order.reduce((sum, dialect, round) => sum + (REPORTS[dialect][kind] ? count(round) : 0), 0);
		expect(final.usage).toEqual({
			modelCalls: 3,
			toolCalls: 2,
			tokens: {
				input: 4200,
				output: 210,
				cacheRead: reported('cacheRead', (round) => [1000, 1100, 1300][round]),
				cacheWrite: order.includes('anthropic') ? 0 : null,
				reasoning: reported('reasoning', (round) => [60, 30, 0][round]),
			},
			unreportedCalls: 0,
			cost: 0.00441,
		});
		const perRound = final.trace
			.filter((entry: any) => entry.step === 'model.response')
			.map((entry: any) => [entry.tokens.input, entry.tokens.output, entry.cost]);
		expect(perRound).toEqual([
			[1200, 90, 0.00129],
			[1400, 70, 0.00147],
			[1600, 50, 0.00165],
		]);
	});
});

describe('settings a provider has or lacks', () => {
	const run = async (dialect: DialectId, parameters: Record<string, unknown>, script: boolean) => {
		const api = await startStandIn(dialect, { apiKey: API_KEY });
		try {
			if (script) api.script(reply.text('Fine.'));
			const provider = asProvider(api, dialect, 'model');
			const node = modelNode(
				'Model',
				{
					...provider.parameters,
					userMessage: 'Hi',
					nodeTools: JSON.stringify([{ name: 'echo', inputSchema: { type: 'object' } }]),
					...parameters,
				},
				{ credentials: provider.credentials },
			);
			const result = await runWorkflow(chain(node), {
				nodeTypes: nodeTypes(),
				credentials: { model: provider.values },
			});
			return { result, requests: api.requests };
		} finally {
			await api.close();
		}
	};

	it('asks the Responses API for encrypted reasoning only with Keep Reasoning Between Rounds', async () => {
		const kept = await run('openaiResponses', { options: { keepReasoning: true } }, true);
		expect((kept.requests[0].body as any).include).toEqual(['reasoning.encrypted_content']);
		const plain = await run('openaiResponses', {}, true);
		expect((plain.requests[0].body as any).include).toBeUndefined();
	});

	it('stops with a clear error, before any request, when Ollama is asked for a tool choice it does not have', async () => {
		const { result, requests } = await run('ollama', { toolChoice: 'required' }, false);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^Ollama's \/api\/chat has no tool choice/);
		expect(requests).toHaveLength(0);
	});
});
