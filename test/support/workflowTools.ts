import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { LocalLoadOptionsContext } from 'n8n-core';
import type {
	ILocalLoadOptionsFunctions,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { chain, linked, mcpClientNode } from './mcpWorkflow';
import { nodeTypesFrom, runWorkflow, type EngineRun, type RunOptions } from './engine';
import type { StoredWorkflow } from './subWorkflows';

/** One of n8n's own nodes at a version. */
export function n8nNodeAt(
	name: string,
	type: string,
	typeVersion: number,
	parameters: INode['parameters'] = {},
): INode {
	return {
		id: name,
		name,
		type: `n8n-nodes-base.${type}`,
		typeVersion,
		position: [0, 0],
		parameters,
	};
}

/** The 'When Executed by Another Workflow' trigger (v1.1) with these fields, or accepting all data. */
export function subWorkflowTrigger(
	fields: Array<{ name: string; type: string }> | 'acceptsAll',
): INode {
	return n8nNodeAt(
		'When Executed by Another Workflow',
		'executeWorkflowTrigger',
		1.1,
		fields === 'acceptsAll'
			? { inputSource: 'passthrough' }
			: { inputSource: 'workflowInputs', workflowInputs: { values: fields } },
	);
}

/** A Set node (3.4) whose output item is this JSON (an expression over the trigger's item). */
export function setJson(name: string, jsonOutput: string): INode {
	return n8nNodeAt(name, 'set', 3.4, { mode: 'raw', jsonOutput, options: {} });
}

/** A stored workflow of these nodes, each feeding the next. */
export function storedChain(name: string, ...nodes: INode[]): StoredWorkflow {
	return { name, ...linked(nodes) };
}

/** A Workflow Tools entry, and the fields of its trigger that the editor read into Trigger Inputs. */
export interface WorkflowToolSpec {
	entry: IDataObject;
	read?: IDataObject[];
}

/** A Workflow Tools entry as the editor saves it: the workflow picked from the list, its trigger's fields read. */
export function workflowToolEntry(
	id: string,
	name: string,
	fields: Array<{ name: string; type?: string }> | 'acceptsAll',
	more: IDataObject = {},
): WorkflowToolSpec {
	const read = (field: string, type?: string) => ({
		id: `${id}/${field}`,
		displayName: `${name}: ${field}`,
		required: false,
		defaultMatch: false,
		display: true,
		canBeUsedToMatch: false,
		readOnly: true,
		...(type && { type }),
	});
	return {
		entry: {
			workflowId: { __rl: true, value: id, mode: 'list', cachedResultName: name },
			inputSchemaFrom: 'trigger',
			...more,
		},
		read:
			fields === 'acceptsAll'
				? [read('*', 'object')]
				: fields.map((field) => read(field.name, field.type)),
	};
}

/** An MCP Client node offering n8n workflows as tools (no credential). */
export const workflowsNode = (name: string, parameters: IDataObject) =>
	mcpClientNode(name, { connectionType: 'workflows', ...parameters });

/** List Tools of these Workflow Tools entries, with what the editor read of their triggers. */
export const listWorkflows = (tools: WorkflowToolSpec[], more: IDataObject = {}) =>
	workflowsNode('List Workflows', {
		operation: 'listTools',
		workflowTools: { tool: tools.map(({ entry }) => entry) },
		workflowInputs: {
			mappingMode: 'defineBelow',
			value: {},
			schema: tools.flatMap(({ read }) => read ?? []),
		},
		...more,
	});

/** Execute Tool Calls of workflow tools. */
export const executeWorkflows = (parameters: IDataObject = {}) =>
	workflowsNode('Run Workflows', { operation: 'executeToolCalls', ...parameters });

/** Manual Trigger → the nodes, with these stored workflows to call and this input item. */
export function runWithWorkflows(
	nodes: INode[],
	workflows: Record<string, StoredWorkflow>,
	input: IDataObject,
	options: Partial<RunOptions> = {},
): Promise<EngineRun> {
	return runWorkflow(chain(...nodes), {
		nodeTypes: nodeTypesFrom(new McpClient()),
		workflows,
		inputItems: [{ json: input } as INodeExecutionData],
		...options,
	});
}

/**
 * What the editor's reader of Trigger Inputs gets: n8n-core's real LocalLoadOptionsContext for
 * the node's parameters, at the path of Trigger Inputs, loading workflows from `stored`.
 */
export function triggerReaderContext(
	parameters: IDataObject,
	stored: Record<string, StoredWorkflow>,
	nodeTypes: INodeTypes,
): ILocalLoadOptionsFunctions {
	const additionalData = {
		currentNodeParameters: parameters,
	} as unknown as IWorkflowExecuteAdditionalData;
	const loader = {
		get: async (id: string) => {
			const workflow = stored[id];
			if (!workflow) throw new Error(`Workflow ${id} not found`);
			return { id, active: false, isArchived: false, activeVersionId: null, ...workflow } as never;
		},
	};
	return new LocalLoadOptionsContext(
		nodeTypes,
		additionalData,
		'parameters.workflowInputs',
		loader,
	);
}
