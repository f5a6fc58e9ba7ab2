import {
	NodeOperationError,
	type ICredentialTestFunctions,
	type ICredentialsDecrypted,
	type ILoadOptionsFunctions,
	type INodeCredentialTestResult,
	type INodeListSearchResult,
	type INodePropertyOptions,
	type ResourceMapperFields,
} from 'n8n-workflow';
import { redact } from '../../lib/json/redact';
import { McpConnection, secretsOf, sharedPool, type McpTool } from '../../lib/mcp';
import { schemaToFormFields } from '../../lib/schema/formFields';
import { poolScope } from './operations/settings';
import { CREDENTIAL_TYPES, serverConfigFromCredentials, type ConnectionType } from './serverConfig';

/**
 * The editor's view of the live `tools/list`, through the pooled connection the workflow's
 * executions use. A failure reaches the editor (and n8n's log) with the credential's secrets
 * taken out: a server that fails to start may print them.
 */
async function liveTools(context: ILoadOptionsFunctions): Promise<McpTool[]> {
	const connectionType = context.getNodeParameter('connectionType', 'stdio') as ConnectionType;
	const config = serverConfigFromCredentials(
		connectionType,
		await context.getCredentials(CREDENTIAL_TYPES[connectionType]),
	);
	const options = context.getNodeParameter('options', {}) as { shareServer?: boolean };
	try {
		return await sharedPool.use(config, (connection) => connection.listTools({ fresh: true }), {
			scope: poolScope(options.shareServer, context.getWorkflow().id),
		});
	} catch (error) {
		throw new NodeOperationError(
			context.getNode(),
			redact((error as Error).message, secretsOf(config)),
		);
	}
}

export async function getToolNames(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const tools = await liveTools(this);
	return tools.map((tool) => ({
		name: tool.title ?? tool.name,
		value: tool.name,
		description: tool.description,
	}));
}

export async function searchTools(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const needle = filter?.toLowerCase() ?? '';
	const tools = await liveTools(this);
	return {
		results: tools
			.filter((tool) => `${tool.name} ${tool.title ?? ''}`.toLowerCase().includes(needle))
			.map((tool) => ({
				name: tool.title ?? tool.name,
				value: tool.name,
				description: tool.description,
			})),
	};
}

export async function getToolArgumentFields(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const toolName = this.getNodeParameter('tool', '', { extractValue: true }) as string;
	const tool = (await liveTools(this)).find((candidate) => candidate.name === toolName);
	if (!tool) return { fields: [], emptyFieldsNotice: `The server has no tool named '${toolName}'` };
	// The form shows names and types; descriptions stay in the tool's schema.
	const fields = schemaToFormFields(tool.inputSchema).map(
		({ description: _description, ...field }) => ({
			...field,
			defaultMatch: false,
			display: true,
		}),
	);
	return { fields };
}

/** Connects with the credential being saved (never pooled), lists the tools and says what answered. */
export async function mcpServerConnection(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const connectionType = (Object.keys(CREDENTIAL_TYPES) as ConnectionType[]).find(
		(type) => CREDENTIAL_TYPES[type] === credential.type,
	);
	if (!connectionType || !credential.data)
		return { status: 'Error', message: `Not an MCP server credential: ${credential.type}` };
	let connection: McpConnection | undefined;
	const config = serverConfigFromCredentials(connectionType, credential.data);
	try {
		connection = await McpConnection.open(config, 30_000);
		const tools = await connection.listTools();
		const { name, version, protocolVersion, transport } = connection.server;
		return {
			status: 'OK',
			message: `Connected to ${name} ${version} (MCP ${protocolVersion}, ${transport}): ${tools.length} tools`,
		};
	} catch (error) {
		return { status: 'Error', message: redact((error as Error).message, secretsOf(config)) };
	} finally {
		await connection?.close();
	}
}
