/**
 * Budgets in n8n's engine: the example loop (the Model node and a real MCP server, Execute Tool Calls
 * between them) with a budget set on the Model node. A conversation at its budget leaves by Final
 * Answer with the reason and its totals, and the model API is called no further.
 */
import type { INodeParameters } from 'n8n-workflow';
import { readTrace } from '../../lib/trace/read';
import { usageOfTrace } from '../../lib/trace/usage';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { reply } from '../support/chatCompletionsStandIn';
import { nodeTypesFrom, runsOf, runWorkflow } from '../support/engine';
import { loadExample } from '../support/examples';
import {
	expectConversationItem,
	stdioCredential,
	stopServersAfterAll,
} from '../support/mcpWorkflow';
import { modelNodeTypes } from '../support/modelWorkflow';
import { everythingStdio } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest();
stopServersAfterAll();

const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });
const credentials = () => ({
	mcpEverything: stdioCredential(everythingStdio()),
	openAi: { baseUrl: api.baseURL, apiKey: 'sk-budget-test-key', organization: '', headers: {} },
});

/** Each round reports 1,000 input and 100 output tokens, unless told otherwise. */
const USAGE = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };

function scriptThreeRounds(usage: typeof USAGE | null = USAGE) {
	api.script(
		reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":17,"b":25}' }], { usage }),
		reply.toolCalls([{ id: 'call_echo', name: 'echo', arguments: '{"message":"42"}' }], {
			usage,
		}),
		reply.text('17 + 25 = 42, and the echo said: 42.', { usage }),
	);
}

/** The example loop with these Budget and Prices settings on the Model node; its final item. */
async function runLoop(budget: INodeParameters) {
	const workflow = loadExample('mcp-tool-loop.json', { Model: { budget } });
	const run = await runWorkflow(workflow, { nodeTypes: nodeTypes(), credentials: credentials() });
	expect(run.status).toBe('success');
	const [final] = runsOf(run, 'Model').at(-1)!.outputs[1];
	expectConversationItem(final.json);
	return { run, final: final.json as any };
}

describe('budgets of the Tool Calling Model node, in the example loop', () => {
	it('runs to its answer within its budget, with the totals on the item', async () => {
		scriptThreeRounds();
		const { final } = await runLoop({
			maxTokens: 10_000,
			maxCost: 1,
			maxToolCalls: 5,
			inputPrice: 2,
			outputPrice: 10,
		});
		expect(final.answer).toBe('17 + 25 = 42, and the echo said: 42.');
		expect(final.stopReason).toBeUndefined();
		// Three rounds at 1,000 × $2 and 100 × $10 per million tokens: $0.003 each.
		expect(final.usage).toEqual({
			modelCalls: 3,
			toolCalls: 2,
			tokens: { input: 3000, output: 300, cacheRead: null, cacheWrite: null, reasoning: null },
			unreportedCalls: 0,
			cost: 0.009,
		});
		// The trace tells the same totals, round by round, as the Tool Call Trace node and `show` read them.
		expect(usageOfTrace(readTrace(final)).totals).toEqual(final.usage);
	});

	it('stops at Max Tool Calls before the next model call', async () => {
		scriptThreeRounds();
		const { run, final } = await runLoop({ maxToolCalls: 1 });
		expect(api.requests).toHaveLength(1);
		expect(api.remaining()).toBe(2);
		expect(runsOf(run, 'Execute Tool Calls')).toHaveLength(1);
		expect(final.answer).toBeUndefined();
		expect(final.stopReason).toBe(
			'Stopped before round 2: Max Tool Calls per Conversation is 1, and it has made 1. So far: 1 model call, 1 tool call, 1,000 input and 100 output tokens, cost unknown',
		);
		expect(final.toolCalls).toEqual([]);
	});

	it('stops at Max Tokens once input and output together reach it', async () => {
		scriptThreeRounds();
		const { final } = await runLoop({ maxTokens: 2200 });
		expect(api.requests).toHaveLength(2);
		expect(final.stopReason).toBe(
			'Stopped before round 3: Max Tokens per Conversation is 2,200, and it has used 2,200. So far: 2 model calls, 2 tool calls, 2,000 input and 200 output tokens, cost unknown',
		);
		expect(final.usage.tokens).toMatchObject({ input: 2000, output: 200 });
	});

	it('stops at Max Cost, priced by the prices set on the node', async () => {
		scriptThreeRounds();
		// $0.003 a round: the second round reaches $0.006, past $0.005.
		const { final } = await runLoop({ maxCost: 0.005, inputPrice: 2, outputPrice: 10 });
		expect(api.requests).toHaveLength(2);
		expect(final.stopReason).toBe(
			'Stopped before round 3: Max Cost per Conversation is $0.005, and it has cost $0.006. So far: 2 model calls, 2 tool calls, 2,000 input and 200 output tokens, $0.006',
		);
		expect(final.usage.cost).toBe(0.006);
	});

	it('stops at Max Cost priced by the price table when Price As names the provider', async () => {
		scriptThreeRounds();
		// gpt-4.1-mini in genai-prices 0.1.8: $0.40 input and $1.60 output per million tokens.
		const { final } = await runLoop({ maxCost: 0.0011, priceAs: 'openai' });
		expect(api.requests).toHaveLength(2);
		expect(final.usage.cost).toBe(0.00112);
		expect(final.stopReason).toMatch(
			/^Stopped before round 3: Max Cost per Conversation is \$0.0011, and it has cost \$0.00112\./,
		);
		const priced = final.trace.filter((entry: any) => entry.step === 'model.response');
		expect(priced.map((entry: any) => [entry.cost, entry.price])).toEqual([
			[0.00056, { source: 'genai-prices 0.1.8', provider: 'openai', model: 'gpt-4.1-mini' }],
			[0.00056, { source: 'genai-prices 0.1.8', provider: 'openai', model: 'gpt-4.1-mini' }],
		]);
	});

	it('stops after one call when the cost cannot be known, saying why, rather than spend unmeasured', async () => {
		scriptThreeRounds();
		// The stand-in is a local server: the price table knows no provider there.
		const { final } = await runLoop({ maxCost: 5 });
		expect(api.requests).toHaveLength(1);
		expect(final.usage.cost).toBeNull();
		expect(final.stopReason).toBe(
			'Stopped before round 2: Max Cost per Conversation is $5.00, but its cost is not known (model call 1: genai-prices 0.1.8 knows no provider at 127.0.0.1 (a self-hosted server, a gateway): set Price As, or prices on the node), so the budget cannot be kept. So far: 1 model call, 1 tool call, 1,000 input and 100 output tokens, cost unknown',
		);
	});

	it('stops after one call when the API reports no token counts and Max Tokens is set', async () => {
		scriptThreeRounds(null);
		const { final } = await runLoop({ maxTokens: 100_000 });
		expect(api.requests).toHaveLength(1);
		expect(final.usage).toMatchObject({
			modelCalls: 1,
			unreportedCalls: 1,
			tokens: { input: null, output: null },
			cost: null,
		});
		expect(final.stopReason).toMatch(
			/^Stopped before round 2: Max Tokens per Conversation is 100,000, but the model API reported no token counts for 1 of 1 model calls, so the budget cannot be kept\./,
		);
	});

	it('reads a budget from an expression', async () => {
		scriptThreeRounds();
		const { final } = await runLoop({ maxToolCalls: '={{ 0 + 1 }}' });
		expect(final.stopReason).toMatch(/Max Tool Calls per Conversation is 1/);
	});

	it('refuses prices set for input or output only, naming what is missing', async () => {
		const workflow = loadExample('mcp-tool-loop.json', { Model: { budget: { inputPrice: 2 } } });
		const run = await runWorkflow(workflow, { nodeTypes: nodeTypes(), credentials: credentials() });
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe(
			'Budget and Prices sets an input price only: set both Input and Output Price per Million Tokens, or neither',
		);
		expect(api.requests).toHaveLength(0);
	});
});

describe('usage an API reports badly', () => {
	it('leaves out counts of the wrong type or below zero, with a warning in the trace; the item goes on', async () => {
		const bad = { prompt_tokens: '1000', completion_tokens: -5, total_tokens: 995 };
		api.script(
			reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":17,"b":25}' }], {
				usage: bad as never,
			}),
			reply.text('17 + 25 = 42.'),
		);
		const { final } = await runLoop({ inputPrice: 1, outputPrice: 1 });
		expect(final.answer).toBe('17 + 25 = 42.');
		const [first, second] = final.trace.filter((entry: any) => entry.step === 'model.response');
		expect(first).toMatchObject({
			usage: bad,
			tokens: { input: null, output: null },
			usageWarnings: [
				'usage.prompt_tokens is "1000", not a count of tokens: left out',
				'usage.completion_tokens is -5, not a count of tokens: left out',
			],
			cost: null,
			costUnknown: 'the model API reported no token counts',
		});
		expect(second.usageWarnings).toBeUndefined();
		expect(final.usage).toMatchObject({
			modelCalls: 2,
			unreportedCalls: 1,
			tokens: { input: 21, output: 9 },
			cost: null,
			costUnknown: 'model call 1: the model API reported no token counts',
		});
	});
});
