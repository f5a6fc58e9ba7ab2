import {
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { secretsOf, type McpServerConfig } from '../../lib/mcp';
import { DEFAULT_CONCURRENCY, failEveryItem, processItems } from '../shared/items';
import { answersFromRecording } from '../shared/recordingOptions';
import { nodeRedactions } from '../shared/traceOptions';
import { properties } from './description';
import {
	getPromptArgumentFields,
	getToolArgumentFields,
	getToolNames,
	mcpServerConnection,
	searchPrompts,
	searchResources,
	searchTools,
} from './methods';
import { callTool } from './operations/callTool';
import { executeToolCalls } from './operations/executeToolCalls';
import { getPrompt } from './operations/getPrompt';
import { isListOperation, listServerItems } from './operations/listServerItems';
import { listTools } from './operations/listTools';
import { readResource } from './operations/readResource';
import { nodeSamplingOf, samplingCredentials, type NodeSampling } from './operations/sampling';
import { approvalPolicyOf, callSettingsOf } from './operations/settings';
import { serverConfigFor, type ConnectionType } from './serverConfig';
import { liveServers, recordedServers } from './sources';
import { workflowServers } from './workflowTools/server';
import { getWorkflowToolInputs } from './workflowTools/triggerInputs';

const OPERATION_NAMES: Record<string, string> = {
	listTools: 'List Tools',
	executeToolCalls: 'Execute Tool Calls',
	callTool: 'Call Tool',
	listResources: 'List Resources',
	readResource: 'Read Resource',
	listResourceTemplates: 'List Resource Templates',
	listPrompts: 'List Prompts',
	getPrompt: 'Get Prompt',
};

export class McpClient implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Tool Calling MCP Client',
		name: 'mcpClient',
		icon: { light: 'file:mcp.svg', dark: 'file:mcp.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: `={{ ${JSON.stringify(OPERATION_NAMES)}[$parameter["operation"]] }}`,
		description:
			'List the tools, resources and prompts of an MCP server, and check and execute the tool calls a model made',
		defaults: { name: 'Tool Calling MCP Client' },
		inputs: [NodeConnectionTypes.Main],
		// A second output only where calls can wait for a person.
		outputs: `={{ $parameter.operation === "executeToolCalls" && ($parameter.requireApproval ?? "nothing") !== "nothing" ? [{ type: "${NodeConnectionTypes.Main}", displayName: "Done" }, { type: "${NodeConnectionTypes.Main}", displayName: "Needs Approval" }] : ["${NodeConnectionTypes.Main}"] }}`,
		credentials: [
			{
				name: 'mcpStdioServerApi',
				required: true,
				testedBy: 'mcpServerConnection',
				displayOptions: { show: { connectionType: ['stdio'] } },
			},
			{
				name: 'mcpHttpServerApi',
				required: true,
				testedBy: 'mcpServerConnection',
				displayOptions: { show: { connectionType: ['http'] } },
			},
			{
				name: 'mcpServerOAuth2Api',
				required: true,
				testedBy: 'mcpServerConnection',
				displayOptions: { show: { connectionType: ['oauth2'] } },
			},
			{
				name: 'mcpServerManualOAuth2Api',
				required: true,
				testedBy: 'mcpServerConnection',
				displayOptions: { show: { connectionType: ['oauth2Manual'] } },
			},
			{
				name: 'mcpServerClientCredentialsOAuth2Api',
				required: true,
				testedBy: 'mcpServerConnection',
				displayOptions: { show: { connectionType: ['clientCredentials'] } },
			},
			{
				name: 'mcpServerEnterpriseOAuth2Api',
				required: true,
				testedBy: 'mcpServerConnection',
				displayOptions: { show: { connectionType: ['enterprise'] } },
			},
			...samplingCredentials,
		],
		properties,
	};

	methods = {
		loadOptions: { getToolNames },
		listSearch: { searchTools, searchResources, searchPrompts },
		resourceMapping: { getToolArgumentFields, getPromptArgumentFields },
		localResourceMapping: { getWorkflowToolInputs },
		credentialTest: { mcpServerConnection },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as string;
		try {
			return await runOperation(this, operation);
		} catch (error) {
			// Items that failed on their own already left; this is the work before them.
			return failEveryItem(this, error, outputCountOf(this, operation));
		}
	}
}

function outputCountOf(context: IExecuteFunctions, operation: string): number {
	const approving =
		operation === 'executeToolCalls' &&
		context.getNodeParameter('requireApproval', 0, 'nothing') !== 'nothing';
	return approving ? 2 : 1;
}

async function runOperation(
	context: IExecuteFunctions,
	operation: string,
): Promise<INodeExecutionData[][]> {
	if (operation === 'listTools' || operation === 'executeToolCalls') {
		// A dry run answers from recordings: no server starts, so no credential is needed.
		const dryRun = answersFromRecording(context, 'dryRun');
		const sampling = dryRun ? { secrets: [] } : await samplingOf(context, operation);
		const servers = dryRun
			? recordedServers(context)
			: context.getNodeParameter('connectionType', 0) === 'workflows'
				? workflowServers(context)
				: liveServers(context, await nodeServerConfig(context, sampling));
		const redaction = nodeRedactions(context, () => [...servers.secrets(), ...sampling.secrets]);
		if (operation === 'listTools')
			return processItems(context, 1, Infinity, listTools(context, servers, redaction), redaction);
		const settings = { ...callSettingsOf(context), sampling: sampling.options };
		const approvalFor = (itemIndex: number) => approvalPolicyOf(context, itemIndex);
		const processItem = executeToolCalls(context, servers, settings, approvalFor, redaction);
		return processItems(
			context,
			outputCountOf(context, operation),
			settings.concurrency,
			processItem,
			redaction,
		);
	}
	const sampling = await samplingOf(context, operation);
	const config = await nodeServerConfig(context, sampling);
	// Read at each use: a token renewed during the run is hidden too.
	const redaction = nodeRedactions(context, () => [...secretsOf(config), ...sampling.secrets]);
	if (operation === 'callTool') {
		const settings = { ...callSettingsOf(context), sampling: sampling.options };
		const processItem = callTool(context, config, settings, redaction);
		return processItems(context, 1, settings.concurrency, processItem, redaction);
	}
	const processItem = isListOperation(operation)
		? listServerItems(context, config, operation, redaction)
		: operation === 'readResource'
			? readResource(context, config, redaction)
			: operation === 'getPrompt'
				? getPrompt(context, config, redaction)
				: undefined;
	if (!processItem) {
		// n8n adds "Custom API Call" to the operations of a node with an OAuth2 credential.
		const hint =
			operation === '__CUSTOM_API_CALL__'
				? ": an MCP server takes no custom API calls; use Call Tool, or n8n's HTTP Request node with this credential"
				: '';
		throw new NodeOperationError(
			context.getNode(),
			`The operation "${operation}" is not known${hint}`,
		);
	}
	return processItems(context, 1, DEFAULT_CONCURRENCY, processItem, redaction);
}

/** The server of the node's credential; a credential missing or never connected fails the node, saying so. */
/** The credential's server, declaring sampling where the node answers it. */
async function nodeServerConfig(
	context: IExecuteFunctions,
	sampling: NodeSampling,
): Promise<McpServerConfig> {
	const connectionType = context.getNodeParameter('connectionType', 0) as ConnectionType;
	if ((connectionType as string) === 'workflows')
		throw new NodeOperationError(
			context.getNode(),
			'n8n Workflows as Tools offers List Tools and Execute Tool Calls; the other operations need an MCP server',
		);
	try {
		const config = await serverConfigFor(context, connectionType);
		return sampling.capability ? { ...config, sampling: sampling.capability } : config;
	} catch (error) {
		throw new NodeOperationError(context.getNode(), error as Error);
	}
}

async function samplingOf(context: IExecuteFunctions, operation: string): Promise<NodeSampling> {
	try {
		return await nodeSamplingOf(context, operation);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), error as Error);
	}
}
