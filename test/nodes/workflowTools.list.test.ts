import type { IDataObject } from 'n8n-workflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { getWorkflowToolInputs } from '../../nodes/McpClient/workflowTools/triggerInputs';
import { engineNodeTypes, errorOf, nodeTypesFrom, outputOf } from '../support/engine';
import {
	conversationOf,
	faultCredentials,
	mcpClientNode,
	stopServersAfterAll,
} from '../support/mcpWorkflow';
import {
	listWorkflows,
	n8nNodeAt,
	runWithWorkflows,
	setJson,
	storedChain,
	subWorkflowTrigger,
	triggerReaderContext,
	workflowToolEntry,
	type WorkflowToolSpec,
} from '../support/workflowTools';

stopServersAfterAll();

const orderFields = [
	{ name: 'orderId', type: 'string' },
	{ name: 'quantity', type: 'number' },
];
const stored = {
	orders: storedChain(
		'Order lookup',
		subWorkflowTrigger(orderFields),
		setJson('Order', '={{ $json }}'),
	),
	anything: storedChain('Echo anything', subWorkflowTrigger('acceptsAll')),
	example: storedChain(
		'From example',
		n8nNodeAt('When Executed by Another Workflow', 'executeWorkflowTrigger', 1.1, {
			inputSource: 'jsonExample',
			jsonExample: '{"city": "Oslo", "days": 3, "metric": true, "tags": [], "extra": null}',
		}),
	),
};

describe("the editor reads the workflow tools' inputs from their sub-workflows' triggers", () => {
	const read = (entries: IDataObject[]) =>
		getWorkflowToolInputs.call(
			triggerReaderContext(
				{ workflowTools: { tool: entries } },
				stored,
				engineNodeTypes(nodeTypesFrom(new McpClient())),
			),
		);
	const picked = (id: string, more: IDataObject = {}) => ({
		workflowId: { __rl: true, value: id, mode: 'list' },
		...more,
	});
	const shown = (fields: Awaited<ReturnType<typeof read>>['fields']) =>
		fields.map(({ id, displayName, type, readOnly }) => [id, displayName, type, readOnly]);

	it("reads the fields and types each entry's trigger defines, named after its workflow", async () => {
		const { fields } = await read([picked('anything'), picked('orders'), picked('orders')]);
		expect(shown(fields)).toEqual([
			[
				'anything/*',
				'Echo anything: any JSON object (its trigger accepts all data)',
				'object',
				true,
			],
			['orders/orderId', 'Order lookup: orderId', 'string', true],
			['orders/quantity', 'Order lookup: quantity', 'number', true],
		]);
	});

	it('infers the types of a JSON example (null: any type)', async () => {
		const { fields } = await read([picked('example')]);
		expect(fields.map(({ id, type }) => [id, type])).toEqual([
			['example/city', 'string'],
			['example/days', 'number'],
			['example/metric', 'boolean'],
			['example/tags', 'array'],
			['example/extra', undefined],
		]);
	});

	it('leaves out entries given as JSON Schema, by expression or of no workflow found, and says what to do', async () => {
		const { fields, emptyFieldsNotice } = await read([
			picked('orders', { inputSchemaFrom: 'jsonSchema' }),
			{ workflowId: { __rl: true, value: '={{ $json.pick }}', mode: 'id' } },
			picked('gone'),
			{ workflowId: '' },
		]);
		expect(fields).toEqual([]);
		expect(emptyFieldsNotice).toMatch(/Choose the workflows of Workflow Tools from the list/);
	});
});

describe('List Tools of n8n workflows', () => {
	const listed = async (entries: WorkflowToolSpec[], input: IDataObject = {}) => {
		const run = await runWithWorkflows([listWorkflows(entries)], stored, input);
		return { run, items: outputOf(run, 'List Workflows') };
	};

	it('offers each workflow as a tool: named and described after it, its schema from its trigger', async () => {
		const { items, run } = await listed([
			workflowToolEntry('orders', 'Order lookup', orderFields),
			workflowToolEntry('anything', 'Echo anything', 'acceptsAll', {
				toolName: 'echo_back',
				toolDescription: 'Echoes what it gets.',
				readOnly: true,
			}),
		]);
		const { tools, trace } = conversationOf(items[0].json);
		expect(tools).toEqual([
			{
				name: 'Order_lookup',
				description: "Runs the n8n workflow 'Order lookup'.",
				inputSchema: {
					type: 'object',
					properties: { orderId: { type: 'string' }, quantity: { type: 'number' } },
					required: ['orderId', 'quantity'],
					additionalProperties: false,
				},
				server: 'workflows',
				mcpName: 'Order_lookup',
				workflow: { id: 'orders', name: 'Order lookup' },
			},
			{
				name: 'echo_back',
				description: expect.stringMatching(
					/^Echoes what it gets\.\nThe workflow takes any JSON object/,
				),
				inputSchema: { type: 'object', additionalProperties: true },
				annotations: { readOnlyHint: true },
				server: 'workflows',
				mcpName: 'echo_back',
				workflow: { id: 'anything', name: 'Echo anything' },
			},
		]);
		expect(trace).toEqual([
			expect.objectContaining({
				step: 'tools.list',
				server: { name: 'workflows', transport: 'n8n sub-workflow', label: 'workflows' },
				toolCount: 2,
				listHash: expect.stringMatching(/^sha256:/),
			}),
		]);
		// Listing runs nothing.
		expect(run.subExecutions).toEqual([]);
	});

	it('takes a JSON Schema given, and an ID typed or from an expression', async () => {
		const { items } = await listed(
			[
				{
					entry: {
						workflowId: { __rl: true, value: '={{ $json.pick }}', mode: 'id' },
						inputSchemaFrom: 'jsonSchema',
						jsonSchema: '{"properties": {"q": {"type": "string"}}, "required": ["q"]}',
					},
				},
			],
			{ pick: 'orders' },
		);
		expect(conversationOf(items[0].json).tools[0]).toMatchObject({
			name: 'workflow_orders',
			description: "Runs the n8n workflow 'orders'.",
			inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
			workflow: { id: 'orders' },
		});
	});

	it.each([
		['no workflow tool at all', [], /Workflow Tools holds no workflow/],
		[
			'an expression that names no workflow',
			[{ entry: { workflowId: { __rl: true, value: '={{ $json.none ?? "" }}', mode: 'id' } } }],
			/Workflow tool 1 names no workflow/,
		],
		[
			'inputs never read from the trigger',
			[
				{
					entry: {
						workflowId: { __rl: true, value: 'orders', mode: 'id' },
						inputSchemaFrom: 'trigger',
					},
				},
			],
			/inputs of workflow 'orders' were not read from its trigger.*JSON Schema/,
		],
		[
			'a JSON Schema that is not JSON',
			[
				workflowToolEntry('orders', 'Order lookup', orderFields, {
					inputSchemaFrom: 'jsonSchema',
					jsonSchema: '{nope',
				}),
			],
			/Input Schema \(JSON\) is not JSON/,
		],
		[
			'a JSON Schema of no object',
			[
				workflowToolEntry('orders', 'Order lookup', orderFields, {
					inputSchemaFrom: 'jsonSchema',
					jsonSchema: '{"type": "string"}',
				}),
			],
			/must be a JSON Schema of an object/,
		],
		[
			'two tools of one name',
			[
				workflowToolEntry('orders', 'Order lookup', orderFields),
				workflowToolEntry('anything', 'Order lookup', 'acceptsAll'),
			],
			/Two workflow tools are named 'Order_lookup'/,
		],
	])('fails the item, saying why, for %s', async (_case, entries, message) => {
		const run = await runWithWorkflows([listWorkflows(entries as WorkflowToolSpec[])], stored, {});
		expect(errorOf(run, 'List Workflows')?.message).toMatch(message);
	});

	it("merges beside an MCP server's tools as several servers' tools do: a shared name gets the label", async () => {
		const mcp = mcpClientNode('List MCP', { operation: 'listTools', serverLabel: 'faults' });
		const run = await runWithWorkflows(
			[mcp, listWorkflows([workflowToolEntry('anything', 'echo', 'acceptsAll')])],
			stored,
			{},
			{ credentials: faultCredentials() },
		);
		const { tools, trace } = conversationOf(outputOf(run, 'List Workflows')[0].json);
		const names = tools.map((tool) => [tool.name, tool.server, tool.mcpName]);
		expect(names).toContainEqual(['echo', 'faults', 'echo']);
		expect(names).toContainEqual(['workflows__echo', 'workflows', 'echo']);
		expect(trace.map((entry) => entry.step)).toEqual(['tools.list', 'tools.list']);
	});
});
