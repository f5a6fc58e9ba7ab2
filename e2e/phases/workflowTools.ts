/**
 * examples/workflow-tools-agent.json in `n8n start`: the loop with server-everything and a workflow
 * tool, examples/workflow-tools-shipping-quote.json, created in n8n over its REST API. The editor's
 * reader of a workflow tool's inputs is asked for the sub-workflow's trigger fields; the agent
 * (its Manual Trigger made a Webhook, so that it runs published) is called while the sub-workflow
 * is not published, whose call the model hears refused, then once it is: the sub-execution is in
 * n8n's execution list, linked to its parent, and the trace names it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunContext } from '../context.ts';
import { PROJECT_ROOT } from '../n8n.ts';
import {
	callWebhook,
	createCredential,
	executionData,
	executionsOf,
	publishWorkflow,
	rest,
	type Loose,
} from '../n8nRest.ts';
import type { RunningN8n } from '../phase.ts';
import { openAiCredential, stdioCredential, type McpServers } from './credentials.ts';

const example = (file: string) =>
	JSON.parse(readFileSync(join(PROJECT_ROOT, 'examples', file), 'utf8')) as Loose;

/** Creates a workflow without publishing it; its id and version. */
async function createWorkflow(n8n: RunningN8n, workflow: Loose) {
	const { id: _id, ...json } = workflow;
	const created = await rest(n8n, 'POST', '/rest/workflows', { ...json, active: false });
	const { id, versionId } = created.json?.data ?? {};
	if (created.status !== 200 || typeof id !== 'string')
		throw new Error(`creating ${json.name}: HTTP ${created.status} ${created.text.slice(0, 300)}`);
	return { id: id as string, versionId: versionId as string };
}

/** Waits until n8n has applied a workflow's publication (its status no longer in progress). */
async function publicationApplied(n8n: RunningN8n, id: string, limitMs: number): Promise<boolean> {
	const started = Date.now();
	while (Date.now() - started < limitMs) {
		const reply = await rest(n8n, 'GET', `/rest/workflows/${id}/publication-status`);
		const status = reply.json?.data?.status ?? reply.json?.status;
		if (reply.status === 200 && status !== 'in_progress') return true;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	return false;
}

/** Runs the phase; the id of the example as imported (Manual Trigger, not published), for the canvas. */
export async function workflowToolsPhase(
	ctx: RunContext,
	n8n: RunningN8n,
	servers: McpServers,
): Promise<string | undefined> {
	const { results } = ctx;
	const standIn = await ctx.standIn('workflowTools');
	if (!standIn) {
		results.fail('workflow tools: the stand-in starts', 'no state file after 20 s');
		return undefined;
	}
	const limit = 90_000 * ctx.scale;
	let subId = '';
	let exampleId: string | undefined;
	try {
		const mcp = stdioCredential(
			ctx,
			'unused',
			'MCP everything (workflow tools)',
			servers.everything,
			['stdio'],
		);
		const model = openAiCredential(ctx, 'unused', 'OpenAI (workflow tools)', standIn.baseUrl);
		const ids: Record<string, string> = {
			mcpStdioServerApi: await createCredential(n8n, mcp.name, mcp.type, mcp.data),
			openAiCompatibleApi: await createCredential(n8n, model.name, model.type, model.data),
		};
		const sub = await createWorkflow(n8n, example('workflow-tools-shipping-quote.json'));
		subId = sub.id;

		// What the editor asks when the node is opened: the trigger's fields of each entry's workflow.
		const entry = {
			workflowId: { __rl: true, value: subId, mode: 'list' },
			inputSchemaFrom: 'trigger',
		};
		const read = await rest(
			n8n,
			'POST',
			'/rest/dynamic-node-parameters/local-resource-mapper-fields',
			{
				path: 'parameters.workflowInputs',
				nodeTypeAndVersion: { name: 'n8n-nodes-tool-calling.mcpClient', version: 1 },
				currentNodeParameters: {
					connectionType: 'workflows',
					operation: 'listTools',
					workflowTools: { tool: [entry] },
				},
				methodName: 'getWorkflowToolInputs',
			},
		);
		const fields = (read.json?.data?.fields ?? []).map(
			(field: Loose) => `${field.id}:${field.type}`,
		);
		results.check(
			"workflow tools: the editor reads the inputs of Workflow Tools' sub-workflows from their triggers",
			read.status === 200 &&
				fields.join() === `${subId}/weightKg:number,${subId}/destination:string`,
			`HTTP ${read.status} ${read.text.slice(0, 300)}`,
		);

		const agent = example('workflow-tools-agent.json');
		for (const node of agent.nodes) {
			for (const type of Object.keys(node.credentials ?? {}))
				node.credentials[type] = { id: ids[type], name: type };
			if (node.name === 'List Workflow Tools') {
				node.parameters.workflowTools.tool[0].workflowId.value = subId;
				for (const field of node.parameters.workflowInputs.schema)
					field.id = field.id.replace('shippingQuoteTool/', `${subId}/`);
			}
		}
		exampleId = (await createWorkflow(n8n, agent)).id;
		for (const node of agent.nodes) {
			if (node.name === 'Run')
				Object.assign(node, {
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: randomUUID(),
					parameters: {
						httpMethod: 'POST',
						path: 'workflow-tools',
						responseMode: 'lastNode',
						options: {},
					},
				});
		}
		const agentId = await publishWorkflow(n8n, agent);
		const answer = JSON.parse(readFileSync(standIn.state, 'utf8')).answer as string;

		// A production run calls the sub-workflow's published version: there is none yet.
		const unpublished = await callWebhook(n8n, 'workflow-tools', {}, limit);
		results.check(
			'workflow tools: the agent answers while its sub-workflow is not published, which runs no sub-execution',
			unpublished.status === 200 &&
				unpublished.json?.answer === answer &&
				(await executionsOf(n8n, subId)).length === 0,
			`HTTP ${unpublished.status} ${unpublished.text.slice(0, 300)}`,
		);
		const published = await rest(n8n, 'POST', `/rest/workflows/${subId}/activate`, {
			versionId: sub.versionId,
		});
		// n8n applies a publication in the background (its outbox): a call before that finds none.
		const applied = await publicationApplied(n8n, subId, 60_000 * ctx.scale);
		results.check(
			'workflow tools: the sub-workflow publishes',
			published.status === 200 && applied,
			`HTTP ${published.status} ${published.text.slice(0, 300)}; publication applied: ${applied}`,
		);
		const reply = await callWebhook(n8n, 'workflow-tools', {}, limit);
		const subExecutions = await executionsOf(n8n, subId);
		const [parent] = await executionsOf(n8n, agentId);
		const subExecution = subExecutions[0];
		results.check(
			"workflow tools: the sub-execution that answered is in n8n's execution list, successful",
			reply.status === 200 &&
				reply.json?.answer === answer &&
				subExecutions.length === 1 &&
				subExecution.status === 'success' &&
				subExecution.mode === 'integrated',
			`HTTP ${reply.status} ${reply.text.slice(0, 200)}; sub-workflow executions ${JSON.stringify(subExecutions).slice(0, 400)}`,
		);
		const parentData = parent ? await executionData(n8n, parent.id) : undefined;
		const runData = parentData?.resultData?.runData ?? {};
		const final = runData.Model?.at(-1)?.data?.main?.[1]?.[0]?.json;
		const traced = (final?.trace ?? []).find(
			(entry: Loose) => entry.step === 'tools.call.result' && entry.tool === 'shipping_quote',
		);
		const metadata = (runData['Execute Workflow Tool Calls'] ?? [])
			.map((run: Loose) => run.metadata?.subExecution)
			.find(Boolean);
		const subData = subExecution ? await executionData(n8n, subExecution.id) : undefined;
		results.check(
			"workflow tools: the trace and the node's run name that sub-execution, which names its parent",
			traced?.run?.executionId === subExecution?.id &&
				traced?.run?.status === 'success' &&
				metadata?.executionId === subExecution?.id &&
				subData?.parentExecution?.executionId === parent?.id,
			`trace ${JSON.stringify(traced?.run)}; node metadata ${JSON.stringify(metadata)}; parent of the sub-execution ${JSON.stringify(subData?.parentExecution)} (parent ${parent?.id})`,
		);
	} catch (error) {
		results.fail('workflow tools: the phase ran to its end', (error as Error).message);
	} finally {
		await ctx.stopStandIn(standIn);
	}
	const state = JSON.parse(readFileSync(standIn.state, 'utf8')) as Loose;
	const lastTool = (request: Loose) =>
		String(
			request?.body?.messages?.filter((message: Loose) => message.role === 'tool').at(-1)?.content,
		);
	const requests = (state.requests ?? []).filter((request: Loose) => request.method === 'POST');
	const quoted = (text: string) => {
		try {
			return JSON.parse(text) as Loose;
		} catch {
			return undefined;
		}
	};
	results.check(
		'workflow tools: the model heard the unpublished sub-workflow refused, then the quote it computed',
		requests.length === 6 &&
			/not active and cannot be executed/.test(lastTool(requests[2])) &&
			quoted(lastTool(requests[5]))?.priceEur === 10.3,
		`${requests.length} model requests; tool results: ${JSON.stringify(lastTool(requests[2])).slice(0, 300)}, ${JSON.stringify(lastTool(requests[5])).slice(0, 300)}`,
	);
	return exampleId;
}
