import type { IDataObject } from 'n8n-workflow';
import type { ToolMessage } from '../../lib/conversation/types';
import { errorOf, outputOf, type EngineRun } from '../support/engine';
import {
	callTraces,
	conversationOf,
	faultCredentials,
	mcpClientNode,
	pendingCall,
	stopServersAfterAll,
	toolMessages,
} from '../support/mcpWorkflow';
import {
	executeWorkflows,
	listWorkflows,
	n8nNodeAt,
	runWithWorkflows,
	setJson,
	storedChain,
	subWorkflowTrigger,
	workflowToolEntry,
} from '../support/workflowTools';

stopServersAfterAll();

const orderFields = [
	{ name: 'orderId', type: 'string' },
	{ name: 'quantity', type: 'number' },
];
const splitList = n8nNodeAt('Split', 'splitOut', 1, { fieldToSplitOut: 'list' });
const stored = {
	orders: storedChain(
		'Order lookup',
		subWorkflowTrigger(orderFields),
		setJson(
			'Price',
			'={{ JSON.stringify({ order: $json.orderId, total: $json.quantity * 2.5, access: { token: "tok-12345" } }) }}',
		),
	),
	failing: storedChain(
		'Failing',
		subWorkflowTrigger('acceptsAll'),
		n8nNodeAt('Refuse', 'stopAndError', 1, { errorMessage: 'The warehouse is closed' }),
	),
	list: storedChain(
		'List',
		subWorkflowTrigger([{ name: 'count', type: 'number' }]),
		setJson(
			'Make',
			'={{ JSON.stringify({ list: Array.from({ length: $json.count }, (_, i) => ({ i })) }) }}',
		),
		splitList,
	),
	file: storedChain(
		'File',
		subWorkflowTrigger([{ name: 'text', type: 'string' }]),
		n8nNodeAt('To File', 'convertToFile', 1.1, { operation: 'toText', sourceProperty: 'text' }),
	),
	// The fault server's slow tool, called by the sub-workflow through Call Tool.
	slow: storedChain(
		'Slow',
		subWorkflowTrigger('acceptsAll'),
		mcpClientNode('Take Time', {
			operation: 'callTool',
			tool: { __rl: true, mode: 'name', value: 'slow' },
			argumentsSource: 'json',
			jsonArguments: '{"ms": 1500}',
		}),
	),
	noTrigger: storedChain('No trigger', setJson('Only', '={{ "{}" }}')),
	// Runs the tool loop again: its item's one call is of this very workflow's tool.
	loop: storedChain(
		'Loop',
		subWorkflowTrigger('acceptsAll'),
		setJson(
			'Ask Again',
			'{"messages": [{"role": "user", "content": "again"}], "toolCalls": [{"id": "inner", "name": "again", "arguments": {}, "rawArguments": "{}"}]}',
		),
		listWorkflows([workflowToolEntry('loop', 'Loop', 'acceptsAll', { toolName: 'again' })]),
		executeWorkflows({ maxWorkflowDepth: 2 }),
	),
	draft: { ...storedChain('Draft', subWorkflowTrigger('acceptsAll')), published: false },
};
const entries = [
	workflowToolEntry('orders', 'Order lookup', orderFields),
	workflowToolEntry('failing', 'Failing', 'acceptsAll'),
	workflowToolEntry('list', 'List', [{ name: 'count', type: 'number' }], { readOnly: true }),
	workflowToolEntry('file', 'File', [{ name: 'text', type: 'string' }]),
	workflowToolEntry('slow', 'Slow', 'acceptsAll'),
	workflowToolEntry('noTrigger', 'No trigger', 'acceptsAll'),
	workflowToolEntry('missing', 'Missing', 'acceptsAll'),
	workflowToolEntry('draft', 'Draft', 'acceptsAll'),
	workflowToolEntry('loop', 'Loop', 'acceptsAll', { toolName: 'again' }),
];

/** List Tools then Execute Tool Calls of these calls, in n8n's engine. */
function execute(
	calls: ReturnType<typeof pendingCall>[],
	parameters: IDataObject = {},
	mode?: 'webhook',
) {
	return runWithWorkflows(
		[listWorkflows(entries), executeWorkflows(parameters)],
		stored,
		{ messages: [{ role: 'user', content: 'go' }], toolCalls: calls },
		{ credentials: faultCredentials(), ...(mode && { onChunk: () => undefined }) },
	);
}

const answered = (run: EngineRun) => outputOf(run, 'Run Workflows')[0].json;
const onlyMessage = (run: EngineRun): ToolMessage => toolMessages(answered(run))[0];

describe('Execute Tool Calls runs workflow tools as sub-workflows', () => {
	it("runs the call's workflow with the arguments as its item, and answers with its output", async () => {
		const call = pendingCall('Order_lookup', { orderId: 'A-7', quantity: 4 });
		const run = await execute([call]);
		const message = onlyMessage(run);
		expect(message).toMatchObject({ role: 'tool', tool_call_id: call.id, name: 'Order_lookup' });
		expect(message.isError).toBeUndefined();
		// Values under secret keys in a workflow's output are hidden from the model.
		expect(JSON.parse(message.content as string)).toEqual({
			order: 'A-7',
			total: 10,
			access: { token: '[redacted]' },
		});
		expect(run.subExecutions).toHaveLength(1);
		const [sub] = run.subExecutions;
		expect(sub).toMatchObject({
			workflowId: 'orders',
			status: 'success',
			parentExecution: { executionId: '1', workflowId: 'engine-test' },
		});
		expect(sub.input.map((item) => item.json)).toEqual([{ orderId: 'A-7', quantity: 4 }]);
		const [result] = callTraces(answered(run));
		expect(result).toMatchObject({
			server: 'workflows',
			status: 'ok',
			run: {
				executionId: sub.id,
				workflowId: 'orders',
				status: 'success',
				url: expect.stringMatching(new RegExp(`/workflow/orders/executions/${sub.id}$`)),
			},
		});
		expect(JSON.stringify(result)).not.toContain('tok-12345');
		expect(conversationOf(answered(run)).toolCalls).toEqual([]);
	});

	it('never runs a call whose arguments break the schema: the model is told the rule broken', async () => {
		const run = await execute([pendingCall('Order_lookup', { orderId: 7 })]);
		expect(onlyMessage(run)).toMatchObject({ isError: true });
		expect(onlyMessage(run).content).toMatch(/do not match its input schema[\s\S]*quantity/);
		expect(run.subExecutions).toEqual([]);
	});

	it('answers a failed sub-workflow with its error, node and execution, flagged isError', async () => {
		const run = await execute([pendingCall('Failing', {})]);
		expect(onlyMessage(run)).toMatchObject({ isError: true });
		expect(onlyMessage(run).content).toMatch(
			/workflow 'Failing' \(ID failing\) failed at node 'Refuse' \(execution \d+\): The warehouse is closed/,
		);
		expect(callTraces(answered(run))[0]).toMatchObject({
			status: 'toolError',
			run: { workflowId: 'failing', status: 'error' },
		});
		expect(run.subExecutions[0].status).toBe('error');
	});

	it('fails the node instead when On Tool Error says so, every call answered first', async () => {
		const run = await execute(
			[pendingCall('Failing', {}), pendingCall('Order_lookup', { orderId: 'B', quantity: 1 })],
			{
				options: { onToolError: 'failNode' },
			},
		);
		expect(errorOf(run, 'Run Workflows')?.message).toBe('Tool call failed (toolError)');
		expect(run.subExecutions.map((sub) => sub.workflowId)).toEqual(['failing', 'orders']);
	});

	it.each([
		[
			'a workflow that does not exist',
			'Missing',
			/Could not run the workflow 'Missing' \(ID missing\): Workflow does not exist/,
		],
		[
			'a workflow without the trigger',
			'No_trigger',
			/Missing node to start execution[\s\S]*Execute Workflow Trigger/,
		],
	])('answers %s as a server error, running nothing', async (_case, tool, text) => {
		const run = await execute([pendingCall(tool, {})]);
		expect(onlyMessage(run)).toMatchObject({ isError: true });
		expect(onlyMessage(run).content).toMatch(text);
		expect(callTraces(answered(run))[0]).toMatchObject({ status: 'serverError' });
		expect(run.subExecutions).toEqual([]);
	});

	it('runs the draft of an unpublished workflow in a manual run, and refuses it in production', async () => {
		expect(onlyMessage(await execute([pendingCall('Draft', { a: 1 })])).isError).toBeUndefined();
		const production = await execute([pendingCall('Draft', { a: 1 })], {}, 'webhook');
		expect(onlyMessage(production).content).toMatch(/not active and cannot be executed/);
	});

	it('says so when the workflow returns no items', async () => {
		const run = await execute([pendingCall('List', { count: 0 })]);
		expect(onlyMessage(run).content).toBe(
			"The workflow 'List' finished without returning any items.",
		);
	});

	it('passes 10,000 items on as a list, and drops more than Max Result Size, saying how much', async () => {
		const all = await execute([pendingCall('List', { count: 10_000 })]);
		const list = JSON.parse(onlyMessage(all).content as string) as Array<{ i: number }>;
		expect(list).toHaveLength(10_000);
		expect(list.at(-1)).toEqual({ i: 9_999 });
		const capped = await execute([pendingCall('List', { count: 10_000 })], {
			options: { maxResultMb: 0.05 },
		});
		expect(onlyMessage(capped).content).toMatch(
			/returned 10000 item\(s\), \d+ KB, more than the 52 KB a call may return \(Max Result Size\)/,
		);
		expect(callTraces(answered(capped))[0]).toMatchObject({
			status: 'resultTooLarge',
			run: { status: 'success' },
		});
	});

	it("carries the workflow's binary data as the item's binary, named in the message", async () => {
		const run = await execute([pendingCall('File', { text: 'hello file' })]);
		const message = onlyMessage(run);
		expect(message.attachments).toEqual([
			expect.objectContaining({ kind: 'blob', mimeType: 'text/plain' }),
		]);
		const property = message.attachments![0].binaryProperty;
		expect(message.content).toContain(`attached as binary '${property}'`);
		const binary = outputOf(run, 'Run Workflows')[0].binary![property];
		expect(Buffer.from(binary.data, 'base64').toString()).toBe('hello file');
	});

	it("stops waiting at the call's Timeout, saying the workflow may still run", async () => {
		const run = await execute([pendingCall('Slow', {})], { options: { timeoutMs: 200 } });
		expect(onlyMessage(run).content).toMatch(
			/did not finish within 200 ms[\s\S]*may still be running/,
		);
		expect(callTraces(answered(run))[0]).toMatchObject({ status: 'timeout' });
	});

	it('runs read-only workflow tools of one item at once, answered in call order', async () => {
		const calls = [pendingCall('List', { count: 1 }), pendingCall('List', { count: 2 })];
		const run = await execute(calls);
		expect(toolMessages(answered(run)).map((message) => message.tool_call_id)).toEqual(
			calls.map((call) => call.id),
		);
		expect(run.subExecutions).toHaveLength(2);
	});

	it('holds a workflow tool for approval as an MCP tool, and runs it once approved', async () => {
		const call = pendingCall('Order_lookup', { orderId: 'C', quantity: 2 });
		const held = await execute([call], { requireApproval: 'notReadOnly' });
		const waiting = outputOf(held, 'Run Workflows', 1)[0].json;
		expect(waiting.approval).toMatchObject({
			requested: [{ callId: call.id, tool: 'Order_lookup' }],
		});
		expect(held.subExecutions).toEqual([]);
		const approval = {
			...(waiting.approval as IDataObject),
			decisions: [{ callId: call.id, approved: true, by: 'ada' }],
		};
		const approved = await runWithWorkflows(
			[executeWorkflows({ requireApproval: 'notReadOnly' })],
			stored,
			{ ...waiting, approval },
		);
		expect(JSON.parse(onlyMessage(approved).content as string)).toMatchObject({
			order: 'C',
			total: 5,
		});
		expect(approved.subExecutions).toHaveLength(1);
		// A tool marked read-only is not held by that rule.
		const readOnly = await execute([pendingCall('List', { count: 1 })], {
			requireApproval: 'notReadOnly',
		});
		expect(outputOf(readOnly, 'Run Workflows', 1)).toEqual([]);
		expect(readOnly.subExecutions).toHaveLength(1);
	});

	it('stops a workflow that runs the loop again at Max Workflow Depth, naming the depth and the chain', async () => {
		const run = await execute([pendingCall('again', {})]);
		// The outer call ran the loop, whose call ran it once more; the third level was refused.
		expect(run.subExecutions.map((sub) => [sub.workflowId, sub.status])).toEqual([
			['loop', 'success'],
			['loop', 'success'],
		]);
		expect(run.subExecutions[1].parentExecution?.executionId).toBe(run.subExecutions[0].id);
		expect(onlyMessage(run).content).toContain(
			"this call is already inside 2 workflow tool call(s) ('Loop' → 'Loop' → 'Loop'), and Max Workflow Depth is 2",
		);
	});
});

describe('Dry Run of workflow tools', () => {
	it('answers List Tools and each call from the recording, running no sub-workflow', async () => {
		const calls = [pendingCall('Order_lookup', { orderId: 'D', quantity: 3 })];
		const live = await execute(calls);
		const recording = JSON.stringify({ trace: conversationOf(answered(live)).trace });
		const dry = { dryRun: 'json', dryRunTrace: recording };
		const replayed = await runWithWorkflows(
			[listWorkflows(entries, dry), executeWorkflows(dry)],
			{},
			{ messages: [{ role: 'user', content: 'go' }], toolCalls: calls },
		);
		expect(replayed.subExecutions).toEqual([]);
		expect(toolMessages(answered(replayed))).toEqual(toolMessages(answered(live)));
		const steps = conversationOf(answered(replayed)).trace.map((entry) => [
			entry.step,
			entry.replayed,
		]);
		expect(steps).toEqual([
			['tools.list', true],
			['arguments.validation', undefined],
			['tools.call.request', true],
			['tools.call.result', true],
		]);
	});

	it('stops at a call the recording did not make', async () => {
		const live = await execute([pendingCall('Order_lookup', { orderId: 'D', quantity: 3 })]);
		const recording = JSON.stringify({ trace: conversationOf(answered(live)).trace });
		const dry = { dryRun: 'json', dryRunTrace: recording };
		const drifted = await runWithWorkflows(
			[listWorkflows(entries, dry), executeWorkflows(dry)],
			{},
			{
				messages: [{ role: 'user', content: 'go' }],
				toolCalls: [pendingCall('Order_lookup', { orderId: 'E', quantity: 3 })],
			},
		);
		expect(errorOf(drifted, 'Run Workflows')?.message).toMatch(/drifted from the recording/);
		expect(drifted.subExecutions).toEqual([]);
	});
});
