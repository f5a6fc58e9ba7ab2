import { WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	SubworkflowOperationError,
	UnexpectedError,
	Workflow,
	type ExecuteWorkflowData,
	type ExecuteWorkflowOptions,
	type ExecutionStatus,
	type IExecuteWorkflowInfo,
	type INodeExecutionData,
	type INodeTypes,
	type IRun,
	type IWorkflowExecuteAdditionalData,
	type RelatedExecution,
} from 'n8n-workflow';
import type { WorkflowJson } from './engine';

/** A workflow other workflows may call, as n8n keeps it in its database. */
export interface StoredWorkflow extends WorkflowJson {
	/** False: it has no published version, so only manual and chat runs may call it (its draft). */
	published?: boolean;
}

/** A sub-execution the run made, as n8n lists it among the executions. */
export interface SubExecution {
	id: string;
	workflowId: string;
	status: ExecutionStatus;
	mode: string;
	parentExecution?: RelatedExecution;
	/** The items it was given. */
	input: INodeExecutionData[];
	run?: IRun;
}

/**
 * `additionalData.executeWorkflow` as n8n's server wires it (its workflow-execute-additional-data):
 * the workflow loaded by id (the draft for manual and chat runs, else the published version), its
 * run started at its Execute Workflow Trigger with the caller's items, in a nested WorkflowExecute
 * of n8n-core in the 'integrated' mode, and the last node's output returned with the execution's
 * id; a failed run throws its error with the id attached. Not n8n's server: no database, no
 * sub-workflow caller policy, no execution hooks beyond the ones the nested run makes.
 */
export function subWorkflowRunner(
	workflows: Record<string, StoredWorkflow>,
	nodeTypes: INodeTypes,
	additionalDataFor: (executionId: string) => IWorkflowExecuteAdditionalData,
	executions: SubExecution[],
) {
	let next = 100;
	const executeWorkflow = async (
		workflowInfo: IExecuteWorkflowInfo,
		_caller: IWorkflowExecuteAdditionalData,
		options: ExecuteWorkflowOptions,
	): Promise<ExecuteWorkflowData> => {
		const stored = workflowInfo.id !== undefined ? workflows[workflowInfo.id] : undefined;
		if (workflowInfo.id !== undefined && !stored)
			throw new UnexpectedError('Workflow does not exist.', {
				extra: { workflowId: workflowInfo.id },
			});
		const json = stored ?? (workflowInfo.code as unknown as StoredWorkflow);
		const draft = options.executionMode === 'manual' || options.executionMode === 'chat';
		if (!draft && stored?.published === false)
			throw new UnexpectedError('Workflow is not active and cannot be executed.');
		const start = json.nodes.find((node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger');
		if (!start)
			throw new SubworkflowOperationError(
				'Missing node to start execution',
				"Please make sure the workflow you're calling contains an Execute Workflow Trigger node",
			);
		const workflowId = workflowInfo.id ?? options.parentWorkflowId;
		const executionId = String(next++);
		const input = options.inputData ?? [{ json: {} }];
		const runData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [
					{
						node: start,
						data: { main: [input] },
						metadata: { parentExecution: options.parentExecution },
						source: null,
					},
				],
			},
			parentExecution: options.parentExecution,
		});
		const workflow = new Workflow({
			id: workflowId,
			name: json.name,
			nodes: json.nodes,
			connections: json.connections,
			active: false,
			nodeTypes,
			settings: json.settings ?? { executionOrder: 'v1' },
		});
		const record: SubExecution = {
			id: executionId,
			workflowId,
			status: 'running',
			mode: 'integrated',
			parentExecution: options.parentExecution,
			input,
		};
		executions.push(record);
		const additionalData = { ...additionalDataFor(executionId), executeWorkflow };
		const run = await new WorkflowExecute(
			additionalData,
			'integrated',
			runData,
		).processRunExecutionData(workflow);
		record.status = run.status;
		record.run = run;
		if (run.finished === true || run.status === 'waiting') {
			const { runData: ran, lastNodeExecuted } = run.data.resultData;
			const last = lastNodeExecuted ? ran[lastNodeExecuted]?.at(-1) : undefined;
			return { executionId, data: last?.data?.main ?? [null], waitTill: run.waitTill };
		}
		const error = run.data.resultData.error;
		throw Object.assign(new Error(error?.message ?? 'The sub-workflow failed'), {
			executionId,
			workflowId,
			description: error?.description,
			node: (error as { node?: unknown } | undefined)?.node,
		});
	};
	return executeWorkflow;
}
