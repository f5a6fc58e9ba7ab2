/**
 * examples/workflow-tools-agent.json in n8n-core's engine: the loop with the real MCP
 * server-everything and a workflow tool, examples/workflow-tools-shipping-quote.json, run as a
 * sub-workflow for real (n8n's Execute Workflow Trigger and Set nodes in a nested execution); then
 * the same run replayed from its trace, with Dry Run on every MCP Client node: no model API, no MCP
 * server and no sub-workflow run.
 */
import type { ToolMessage } from '../../lib/conversation/types';
import { readTrace } from '../../lib/trace/read';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { reply } from '../support/chatCompletionsStandIn';
import { nodeTypesFrom, outputOf, runsOf, runWorkflow, type EngineRun } from '../support/engine';
import { loadExample } from '../support/examples';
import { conversationOf, stdioCredential, stopServersAfterAll } from '../support/mcpWorkflow';
import { modelNodeTypes } from '../support/modelWorkflow';
import { everythingStdio } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';
import type { StoredWorkflow } from '../support/subWorkflows';

const api = standInForEachTest();
stopServersAfterAll();

const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });
const workflows = () => ({
	shippingQuoteTool: loadExample('workflow-tools-shipping-quote.json') as StoredWorkflow,
});
const ANSWER = 'Together they weigh 4.5 kg; shipping them to France costs 10.30 EUR (2 days).';

function scriptTurns() {
	api.script(
		reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":3,"b":1.5}' }]),
		reply.toolCalls([
			{
				id: 'call_quote',
				name: 'shipping_quote',
				arguments: '{"weightKg":4.5,"destination":"FR"}',
			},
		]),
		reply.text(ANSWER),
	);
}

async function liveRun(): Promise<EngineRun> {
	scriptTurns();
	return runWorkflow(loadExample('workflow-tools-agent.json'), {
		nodeTypes: nodeTypes(),
		workflows: workflows(),
		credentials: {
			mcpEverything: stdioCredential(everythingStdio()),
			openAi: {
				baseUrl: api.baseURL,
				apiKey: 'sk-workflow-tools-key',
				organization: '',
				headers: {},
			},
		},
	});
}

const finalItem = (run: EngineRun) => outputOf(run, 'Model', 1)[0];
const toolAnswers = (run: EngineRun) =>
	conversationOf(finalItem(run).json).messages.filter(
		(message): message is ToolMessage => message.role === 'tool',
	);

describe('examples/workflow-tools-agent.json', () => {
	it('offers an MCP tool and a workflow tool together, and answers each call from its own source', async () => {
		const run = await liveRun();
		expect(run.status).toBe('success');
		expect(outputOf(run, 'Answer')[0].json).toEqual({ answer: ANSWER, rounds: 3, stopReason: '' });
		const offered = api.requests[0].body!.tools!.map(
			(tool) => (tool as { function: { name: string } }).function.name,
		);
		expect(offered).toEqual(['get-sum', 'shipping_quote']);
		expect(toolAnswers(run).map(({ name, content }) => [name, content])).toEqual([
			['get-sum', 'The sum of 3 and 1.5 is 4.5.'],
			[
				'shipping_quote',
				JSON.stringify({
					destination: 'FR',
					weightKg: 4.5,
					zone: 'EU',
					priceEur: 10.3,
					deliveryDays: 2,
				}),
			],
		]);
		// The workflow ran once, as a sub-execution of this run, with the model's arguments as its item.
		expect(run.subExecutions).toHaveLength(1);
		const [sub] = run.subExecutions;
		expect(sub).toMatchObject({ workflowId: 'shippingQuoteTool', status: 'success' });
		expect(sub.input.map((item) => item.json)).toEqual([{ weightKg: 4.5, destination: 'FR' }]);
		const result = readTrace(finalItem(run).json).find(
			(entry) => entry.step === 'tools.call.result' && entry.tool === 'shipping_quote',
		);
		expect(result).toMatchObject({
			server: 'workflows',
			node: 'Execute Workflow Tool Calls',
			run: { executionId: sub.id, workflowId: 'shippingQuoteTool', status: 'success' },
		});
		// Each Execute node ran every round; each answered only the calls of its own tools.
		expect(runsOf(run, 'Execute Workflow Tool Calls')).toHaveLength(2);
	});

	it('replays with Dry Run on every MCP Client node: the same answer, no server, no sub-workflow', async () => {
		const live = await liveRun();
		const recording = JSON.stringify({ trace: readTrace(finalItem(live).json) });
		const dry = { dryRun: 'json', dryRunTrace: recording };
		const workflow = loadExample('workflow-tools-agent.json', {
			Model: { replay: 'json', replayTrace: recording },
			'List MCP Tools': dry,
			'List Workflow Tools': dry,
			'Execute MCP Tool Calls': dry,
			'Execute Workflow Tool Calls': dry,
		});
		const requests = api.requests.length;
		const replayed = await runWorkflow(workflow, {
			nodeTypes: nodeTypes(),
			workflows: workflows(),
			credentials: {},
		});
		expect(replayed.status).toBe('success');
		expect(api.requests).toHaveLength(requests);
		expect(replayed.subExecutions).toEqual([]);
		expect(outputOf(replayed, 'Answer')[0].json).toEqual(outputOf(live, 'Answer')[0].json);
		expect(toolAnswers(replayed)).toEqual(toolAnswers(live));
	});
});
