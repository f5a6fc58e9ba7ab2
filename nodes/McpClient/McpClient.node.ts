import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { secretsOf } from '../../lib/mcp';
import { processItems } from '../shared/items';
import { answersFromRecording } from '../shared/recordingOptions';
import { redactionOf } from '../shared/traceOptions';
import { properties } from './description';
import { getToolArgumentFields, getToolNames, mcpServerConnection, searchTools } from './methods';
import { callTool } from './operations/callTool';
import { executeToolCalls } from './operations/executeToolCalls';
import { listTools } from './operations/listTools';
import { callSettingsOf } from './operations/settings';
import { serverConfigOf } from './serverConfig';
import { liveServers, recordedServers } from './sources';

export class McpClient implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP Client',
		name: 'mcpClient',
		icon: { light: 'file:mcp.svg', dark: 'file:mcp.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ { listTools: "List Tools", executeToolCalls: "Execute Tool Calls", callTool: "Call Tool" }[$parameter["operation"]] }}',
		description:
			'List the tools of an MCP server, and check and execute the tool calls a model made',
		defaults: { name: 'MCP Client' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
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
		],
		properties,
	};

	methods = {
		loadOptions: { getToolNames },
		listSearch: { searchTools },
		resourceMapping: { getToolArgumentFields },
		credentialTest: { mcpServerConnection },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as
			'listTools' | 'executeToolCalls' | 'callTool';
		if (operation === 'callTool') {
			const config = await serverConfigOf(this);
			const redaction = (itemIndex: number) => redactionOf(this, itemIndex, secretsOf(config));
			const settings = callSettingsOf(this);
			const processItem = callTool(this, config, settings, redaction);
			return processItems(this, 1, settings.concurrency, processItem, redaction);
		}
		// A dry run answers from recordings: no server starts, so no credential is needed.
		const servers = answersFromRecording(this, 'dryRun')
			? recordedServers(this)
			: liveServers(this, await serverConfigOf(this));
		const redaction = (itemIndex: number) => redactionOf(this, itemIndex, servers.secrets);
		if (operation === 'listTools')
			return processItems(this, 1, Infinity, listTools(this, servers, redaction), redaction);
		const settings = callSettingsOf(this);
		const processItem = executeToolCalls(this, servers, settings, redaction);
		return processItems(this, 1, settings.concurrency, processItem, redaction);
	}
}
