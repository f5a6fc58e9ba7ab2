import type {
	ExecuteWorkflowData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
import type { Tool, WorkflowReference } from '../../../lib/conversation/types';
import { CALL_RUN, RecordedFailure, type ServedResult } from '../../../lib/execution/toolServer';
import {
	failCall,
	inWorkflowCall,
	settleWithin,
	tooDeep,
	workflowOutputResult,
	type WorkflowOutputItem,
} from '../../../lib/execution/workflowTools';
import type { Redactor } from '../../../lib/json/redact';
import type { ToolCallOptions } from '../../../lib/mcp';
import { reasonOf } from '../../../lib/util/errorReason';
import { serverLabelOf, type AnsweringServer } from '../server';
import type { ServerListing, ServerSource, SourceItem } from '../sources';
import { WORKFLOWS_LABEL, workflowToolsOf } from './listing';

/**
 * Workflows of this n8n as a tool source: List Tools offers the node's Workflow Tools, and Execute
 * Tool Calls runs each call's workflow through n8n's own sub-workflow execution. No credential is
 * used, so there are no credential secrets to hide; secret keys are hidden as everywhere.
 */
export function workflowServers(context: IExecuteFunctions): ServerSource {
	const toolsFor = workflowToolsOf(context);
	// Of the whole execution, every item's calls: n8n's run of the node counts its sub-executions.
	const ran = { subExecutions: 0 };
	return {
		secrets: () => [],
		replayed: false,
		listing: async ({ itemIndex }) => ({
			server: { name: WORKFLOWS_LABEL, transport: 'n8n sub-workflow' },
			tools: toolsFor(itemIndex) as ServerListing['tools'],
			invalid: [],
			name: WORKFLOWS_LABEL,
			durationMs: 0,
		}),
		use: (item, work) => work(workflowServer(context, item, ran)),
	};
}

/** Answers the item's calls of workflow tools, each by the workflow its tool on the item names. */
function workflowServer(
	context: IExecuteFunctions,
	item: SourceItem,
	ran: { subExecutions: number },
): AnsweringServer {
	const label = serverLabelOf(context, item.itemIndex, WORKFLOWS_LABEL);
	const maxDepth = context.getNodeParameter('maxWorkflowDepth', item.itemIndex, 3) as number;
	const tools = new Map(
		item.conversation.tools
			.filter((tool) => tool.server === label)
			.map((tool) => [tool.mcpName ?? tool.name, tool]),
	);
	return {
		name: WORKFLOWS_LABEL,
		findTool: async () => undefined,
		stderrTail: () => '',
		callTool: async (name, args, options) => {
			const workflow = workflowOfTool(tools.get(name), name);
			const refused = tooDeep(workflow, maxDepth);
			if (refused) failCall('serverError', refused);
			const done = await runWorkflow(
				context,
				workflow,
				args,
				options,
				item.redaction.redactor,
			).catch((error: unknown) =>
				// What the failures above did not foresee is still the workflow's, never an MCP server's.
				error instanceof RecordedFailure
					? Promise.reject(error)
					: failCall('serverError', `Running the ${describe(workflow)} failed: ${reasonOf(error)}`),
			);
			ran.subExecutions++;
			// The node's run links to a sub-execution in the editor, as n8n's Execute Workflow node does.
			context.setMetadata({
				subExecution: { executionId: done.executionId, workflowId: workflow.id },
				subExecutionsCount: ran.subExecutions,
			});
			return done.result;
		},
	};
}

function workflowOfTool(tool: Tool | undefined, name: string): WorkflowReference {
	if (!tool?.workflow)
		return failCall(
			'serverError',
			`The tool '${name}' names no n8n workflow on the item (its 'workflow' key), so nothing was run: list it with List Tools of n8n Workflows.`,
		);
	return tool.workflow;
}

/** What a failed sub-execution carries: n8n attaches its id to the error it throws. */
interface SubExecutionError {
	executionId?: string;
	description?: string;
	node?: { name?: string };
}

/**
 * One call: the workflow run as n8n's Execute Workflow node runs it (the arguments the JSON of its
 * one item, its parent execution named so n8n links the two, the caller's mode so a manual run
 * uses the draft and a production run the published version), waited for up to the call's limits.
 */
async function runWorkflow(
	context: IExecuteFunctions,
	workflow: WorkflowReference,
	args: Record<string, unknown>,
	options: ToolCallOptions,
	redactor: Redactor,
): Promise<{ executionId: string; result: ServedResult }> {
	const proxy = context.getWorkflowDataProxy(0);
	const called = describe(workflow);
	const execution = inWorkflowCall(workflow, () =>
		context.executeWorkflow({ id: workflow.id }, [{ json: args as IDataObject }], undefined, {
			doNotWaitToFinish: false,
			parentExecution: {
				executionId: String(proxy.$execution.id),
				workflowId: String(proxy.$workflow.id),
				shouldResume: true,
			},
			executionMode: context.getMode(),
		}),
	);
	const settled = await settleWithin(execution, options);
	if ('limit' in settled)
		return failCall(
			settled.limit,
			settled.limit === 'timeout'
				? `The ${called} did not finish within ${settled.ms} ms, so its result was not waited for; it may still be running in n8n. It may be slow on these arguments; try simpler arguments or another approach.`
				: `The call to the ${called} was cancelled before it finished.`,
		);
	if ('error' in settled) {
		const failed = settled.error as SubExecutionError;
		const described = `${reasonOf(settled.error)}${failed.description ? `\n${failed.description}` : ''}`;
		// No execution: n8n refused to start one (no such workflow, not published, no trigger, not allowed).
		if (!failed.executionId)
			return failCall(
				'serverError',
				`Could not run the ${called}: ${described}\nThe tool is not available now; answer without it.`,
			);
		const where = failed.node?.name ? ` at node '${failed.node.name}'` : '';
		const text = `The ${called} failed${where} (execution ${failed.executionId}): ${described}`;
		return {
			executionId: failed.executionId,
			result: {
				content: [{ type: 'text', text }],
				isError: true,
				[CALL_RUN]: runOf(context, workflow, failed.executionId, 'error'),
			},
		};
	}
	const { executionId, waitTill, data } = settled.done;
	if (waitTill) {
		const text = `The ${called} is waiting (a Wait node or a person), so it has no result to give now (execution ${executionId}).`;
		const run = runOf(context, workflow, executionId, 'waiting');
		return {
			executionId,
			result: { content: [{ type: 'text', text }], isError: true, [CALL_RUN]: run },
		};
	}
	const run = runOf(context, workflow, executionId, 'success');
	const items = await outputItems(context, data, redactor);
	const limit = options.maxResultBytes ?? Infinity;
	const result = workflowOutputResult(workflow.name ?? workflow.id, items, limit, run);
	return { executionId, result: { ...result, [CALL_RUN]: run } };
}

/** A workflow as messages name it. */
const describe = (workflow: WorkflowReference) =>
	`workflow '${workflow.name ?? workflow.id}' (ID ${workflow.id})`;

/** Where a call ran: the sub-execution, its workflow and how it ended, and where to open it. */
function runOf(
	context: IExecuteFunctions,
	workflow: WorkflowReference,
	executionId: string,
	status: 'success' | 'error' | 'waiting',
) {
	const base = context.getInstanceBaseUrl().replace(/\/$/, '');
	return {
		executionId,
		workflowId: workflow.id,
		status,
		url: `${base}/workflow/${encodeURIComponent(workflow.id)}/executions/${encodeURIComponent(executionId)}`,
	};
}

/**
 * The items of every output of the sub-workflow's last node, binary data read from n8n's store.
 * The node cannot know the secrets of the credentials the sub-workflow used: values under secret
 * keys (token, password, authorization…) are hidden, as in traces, before the model reads them.
 */
async function outputItems(
	context: IExecuteFunctions,
	data: ExecuteWorkflowData['data'],
	redactor: Redactor,
): Promise<WorkflowOutputItem[]> {
	const items = data.flatMap((branch) => branch ?? []);
	return await Promise.all(items.map((item) => outputItem(context, item, redactor)));
}

async function outputItem(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	redactor: Redactor,
): Promise<WorkflowOutputItem> {
	const binary = await Promise.all(
		Object.entries(item.binary ?? {}).map(async ([property, data]) => {
			// Held in memory, the data is base64 already (n8n's BINARY_ENCODING).
			const base64 = data.id
				? (
						await context.helpers.binaryToBuffer(await context.helpers.getBinaryStream(data.id))
					).toString('base64')
				: data.data;
			return {
				property,
				mimeType: data.mimeType || 'application/octet-stream',
				...(data.fileName && { fileName: data.fileName }),
				base64,
			};
		}),
	);
	return { json: redactor.all(item.json), ...(binary.length > 0 && { binary }) };
}
