import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
} from 'n8n-workflow';
import type { Conversation, ToolMessage } from '../../lib/conversation/types';
import type { HttpServerConfig, StdioServerConfig } from '../../lib/mcp/config';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { sharedPool } from '../../lib/mcp';
import { CREDENTIAL_TYPES, type ConnectionType } from '../../nodes/McpClient/serverConfig';
import { nodeTypesFrom, runWorkflow, type EngineRun, type NodeTypeMap } from './engine';
import { faultStdio, stopAllServers } from './servers';

export { expectConversationItem } from './contract';

export const MCP_CLIENT_TYPE = 'n8n-nodes-tool-calling.mcpClient';

/** A stdio server configuration as the MCP Server (Command Line) credential stores it. */
export function stdioCredential(config: StdioServerConfig): ICredentialDataDecryptedObject {
	return {
		command: config.command,
		arguments: { argument: config.args.map((value) => ({ value })) },
		environment: { variable: Object.entries(config.env).map(([name, value]) => ({ name, value })) },
		cwd: config.cwd ?? '',
	};
}

/** The fault server over stdio, as the credentials of a workflow run. */
export const faultCredentials = () => ({ mcpStdioServerApi: stdioCredential(faultStdio()) });

/**
 * Once the file's tests are done: the shared pool's connections closed, then whatever else the
 * file started (`more`), then every server process the tests started stopped.
 */
export function stopServersAfterAll(...more: Array<() => Promise<void>>): void {
	afterAll(async () => {
		await sharedPool.closeAll();
		for (const stop of more) await stop();
		await stopAllServers();
	});
}

/** An HTTP server as the MCP Server (HTTP) credential stores it. */
export function httpCredential(
	url: string,
	options: {
		transport?: HttpServerConfig['mode'];
		token?: string;
		headers?: Record<string, string>;
	} = {},
): ICredentialDataDecryptedObject {
	const authentication =
		options.token !== undefined ? 'bearer' : options.headers ? 'headers' : 'none';
	return {
		url,
		transport: options.transport ?? 'auto',
		authentication,
		token: options.token ?? '',
		headers: {
			header: Object.entries(options.headers ?? {}).map(([name, value]) => ({ name, value })),
		},
	};
}

export function mcpClientNode(
	name: string,
	parameters: IDataObject,
	extra: Partial<INode> = {},
): INode {
	const connectionType = (parameters.connectionType as ConnectionType | undefined) ?? 'stdio';
	// n8n workflows as tools take no credential.
	const credentialType = (CREDENTIAL_TYPES as Record<string, string>)[connectionType];
	return {
		id: name,
		name,
		type: MCP_CLIENT_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { connectionType, ...parameters },
		...(credentialType && {
			credentials: { [credentialType]: { id: credentialType, name: credentialType } },
		}),
		...extra,
	};
}

/** One of n8n's own nodes (n8n-nodes-base), version 1, with its parameters. */
export function n8nNode(name: string, type: string, parameters: INode['parameters'] = {}): INode {
	return {
		id: name,
		name,
		type: `n8n-nodes-base.${type}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
}

/** Manual Trigger → the given nodes, each feeding the next through its first output. */
export function chain(...nodes: INode[]) {
	return linked([n8nNode('Start', 'manualTrigger'), ...nodes]);
}

/** The nodes, each feeding the next through its first output. */
export function linked(nodes: INode[]) {
	const connections = Object.fromEntries(
		nodes
			.slice(0, -1)
			.map((node, index) => [
				node.name,
				{ main: [[{ node: nodes[index + 1].name, type: 'main' as const, index: 0 }]] },
			]),
	);
	return { nodes, connections };
}

export function runMcpChain(
	nodes: INode[],
	options: {
		credentials: Record<string, ICredentialDataDecryptedObject>;
		inputItems?: INodeExecutionData[];
		nodeTypes?: NodeTypeMap;
		workflowId?: string;
	},
): Promise<EngineRun> {
	return runWorkflow(chain(...nodes), {
		nodeTypes: { ...nodeTypesFrom(new McpClient()), ...options.nodeTypes },
		credentials: options.credentials,
		inputItems: options.inputItems,
		workflowId: options.workflowId,
	});
}

/** The item's conversation, typed: what our nodes output. */
export const conversationOf = (json: IDataObject) => json as unknown as Conversation;

export const toolMessages = (json: IDataObject) =>
	conversationOf(json).messages.filter(
		(message): message is ToolMessage => message.role === 'tool',
	);

export const callTraces = (json: IDataObject) =>
	conversationOf(json).trace.filter((entry) => entry.step === 'tools.call.result');

let nextCallId = 0;

/** A pending call as the model node writes it; a string argument is sent raw (and left unparsed). */
export function pendingCall(
	name: string,
	args: Record<string, unknown> | string = {},
	id = `call_${++nextCallId}`,
) {
	return typeof args === 'string'
		? { id, name, arguments: null, rawArguments: args }
		: { id, name, arguments: args, rawArguments: JSON.stringify(args) };
}
