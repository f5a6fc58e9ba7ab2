import type { INode, INodeExecutionData } from 'n8n-workflow';
import { ToolCallTrace } from '../../nodes/ToolCallTrace/ToolCallTrace.node';
import { reply } from '../support/chatCompletionsStandIn';
import { nodeTypesFrom, outputOf, runsOf, runWorkflow } from '../support/engine';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { chain, mcpClientNode, pendingCall } from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { standInForEachTest } from '../support/standInPerTest';
import { addThenAnswer, traceOf } from '../trace/traces';

// Items that fail, with "On Error" set to continue: each leaves where a workflow can tell it failed.

const api = standInForEachTest();
const idsOf = (items: INodeExecutionData[] = []) => items.map((item) => item.json.id);
const expected = traceOf(addThenAnswer);

function traceNode(parameters: Record<string, unknown>, onError: INode['onError']): INode {
	return {
		id: 'Trace',
		name: 'Trace',
		type: 'n8n-nodes-tool-calling.toolCallTrace',
		typeVersion: 1,
		position: [0, 0],
		parameters: {
			operation: 'compare',
			expectedSource: 'json',
			expectedTrace: JSON.stringify(expected),
			...parameters,
		},
		onError,
	};
}

const traced = (id: string, trace: unknown) => ({
	json: { id, messages: [], tools: [], toolCalls: [], trace: trace as never },
});

describe('On Error: Continue (using error output)', () => {
	it('sends an item the model API refused to the error output, its conversation kept, not out by Final Answer', async () => {
		api.script(reply.error(400, 'Invalid model'), reply.text('fine'));
		const run = await runWorkflow(
			chain(
				modelNode(
					'Model',
					{ userMessage: '={{ $json.id }}', options: { concurrency: 1 } },
					{ onError: 'continueErrorOutput' },
				),
			),
			{
				nodeTypes: modelNodeTypes(),
				credentials: standInCredential(api),
				inputItems: [{ json: { id: 'fails' } }, { json: { id: 'works' } }],
				checkOutput: () => {},
			},
		);
		const [toolCalls, finalAnswer, failed] = runsOf(run, 'Model').at(-1)!.outputs;
		expect([idsOf(toolCalls), idsOf(finalAnswer), idsOf(failed)]).toEqual([
			[],
			['works'],
			['fails'],
		]);
		expect(failed![0].json.error).toMatch(/Invalid model/);
		expect(failed![0].pairedItem).toEqual({ item: 0 });
	});

	it('sends an item whose trace cannot be read to the error output of Tool Call Trace', async () => {
		const run = await runWorkflow(chain(traceNode({}, 'continueErrorOutput')), {
			nodeTypes: nodeTypesFrom(new ToolCallTrace()),
			inputItems: [traced('good', expected), traced('broken', 'not a trace')],
			checkOutput: () => {},
		});
		const [equal, failed] = runsOf(run, 'Trace').at(-1)!.outputs;
		expect([idsOf(equal), idsOf(failed)]).toEqual([['good'], ['broken']]);
	});
});

describe('On Error: Continue, with Route Diverged Items Separately', () => {
	it('sends an item whose trace cannot be compared out by Diverged, never by Equal', async () => {
		const run = await runWorkflow(
			chain(traceNode({ routeDiverged: true }, 'continueRegularOutput')),
			{
				nodeTypes: nodeTypesFrom(new ToolCallTrace()),
				inputItems: [traced('good', expected), traced('broken', 'not a trace')],
				checkOutput: () => {},
			},
		);
		expect(idsOf(outputOf(run, 'Trace', 0))).toEqual(['good']);
		const [diverged] = outputOf(run, 'Trace', 1);
		expect(diverged.json).toMatchObject({ id: 'broken', error: expect.stringMatching(/trace/i) });
	});
});

// A failure before any item (a missing credential, a Base URL with a password, which is refused
// before any request): n8n would send the items on unchanged by the first output, and the Tool
// Calling Model's first output loops back to it through Execute Tool Calls without end.
describe('On Error: Continue, when the work before the items fails', () => {
	const withPassword = {
		openAiCompatibleApi: { baseUrl: 'https://user:pw-1234567@api.example.com/v1', apiKey: 'k' },
	};
	it.each([
		['continueRegularOutput', 'a Base URL with a password', withPassword],
		['continueErrorOutput', 'a Base URL with a password', withPassword],
		['continueRegularOutput', 'no credential', {}],
	] as const)(
		'Tool Calling Model, %s, %s: every item fails with the error, none leaves by Tool Calls',
		async (onError, _why, credentials) => {
			const run = await runWorkflow(chain(modelNode('Model', { userMessage: 'hi' }, { onError })), {
				nodeTypes: modelNodeTypes(),
				credentials,
				inputItems: [{ json: { id: 'a' } }, { json: { id: 'b' } }],
				checkOutput: () => {},
			});
			const [toolCalls, ...others] = runsOf(run, 'Model').at(-1)!.outputs;
			expect(idsOf(toolCalls)).toEqual([]);
			const failed = others.flat();
			expect(idsOf(failed)).toEqual(['a', 'b']);
			expect(failed.every((item) => typeof item.json.error === 'string')).toBe(true);
			expect(JSON.stringify(failed)).not.toContain('pw-1234567');
		},
	);

	it('MCP Client, continueErrorOutput, no credential: each item goes to the error output', async () => {
		const run = await runWorkflow(
			chain(
				mcpClientNode(
					'Execute',
					{ operation: 'executeToolCalls' },
					{ onError: 'continueErrorOutput' },
				),
			),
			{
				nodeTypes: nodeTypesFrom(new McpClient()),
				credentials: {},
				inputItems: [{ json: { toolCalls: [pendingCall('echo', { text: 'x' })] } }],
				checkOutput: () => {},
			},
		);
		const [done, failed] = runsOf(run, 'Execute').at(-1)!.outputs;
		expect([done.length, failed.length]).toEqual([0, 1]);
		expect(failed[0].json.error).toMatch(/credential/i);
	});
});
