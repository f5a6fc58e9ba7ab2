import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { LocalLoadOptionsContext } from 'n8n-core';
import type {
	ILocalLoadOptionsFunctions,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { chain, MCP_CLIENT_TYPE } from './mcpWorkflow';
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
	const connections = Object.fromEntries(
		nodes
			.slice(0, -1)
			.map((node, index) => [
				node.name,
				{ main: [[{ node: nodes[index + 1].name, type: 'main' as const, index: 0 }]] },
			]),
	);
	return { name, nodes, connections };
}

/** A Workflow Tools entry as the editor saves it: the workflow picked from the list, its trigger's fields read. */
export function workflowToolEntry(
	id: string,
	name: string,
	fields: Array<{ name: string; type?: string }> | 'acceptsAll',
	more: IDataObject = {},
): IDataObject {
	const schema =
		fields === 'acceptsAll'
			? []
			: fields.map((field) => ({
					id: field.name,
					displayName: field.name,
					required: false,
					defaultMatch: false,
					display: true,
					canBeUsedToMatch: false,
					readOnly: true,
					...(field.type && { type: field.type }),
				}));
	return {
		workflowId: { __rl: true, value: id, mode: 'list', cachedResultName: name },
		inputSchemaFrom: 'trigger',
		workflowInputs: { mappingMode: 'defineBelow', value: {}, schema },
		...more,
	};
}

/** An MCP Client node offering n8n workflows as tools (no credential). */
export function workflowsNode(name: string, parameters: IDataObject): INode {
	return {
		id: name,
		name,
		type: MCP_CLIENT_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { connectionType: 'workflows', ...parameters },
	};
}

/** List Tools of these Workflow Tools entries. */
export const listWorkflows = (tools: IDataObject[], more: IDataObject = {}) =>
	workflowsNode('List Workflows', {
		operation: 'listTools',
		workflowTools: { tool: tools },
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
 * the node's parameters, at the path of one Workflow Tools entry, loading workflows from `stored`.
 */
export function triggerReaderContext(
	parameters: IDataObject,
	entry: number,
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
		`parameters.workflowTools.tool[${entry}].workflowInputs`,
		loader,
	);
}
