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
import {
	McpConnection,
	secretsOf,
	sharedPool,
	type McpServerConfig,
	type McpTool,
} from '../../lib/mcp';
import type { JsonSchema } from '../../lib/conversation/types';
import { promptArgumentsSchema } from '../../lib/execution/prompts';
import { schemaToFormFields } from '../../lib/schema/formFields';
import { poolScope } from './operations/settings';
import {
	CREDENTIAL_TYPES,
	serverConfigFor,
	serverConfigFromCredentials,
	type ConnectionType,
} from './serverConfig';

/**
 * The editor's view of the server, through the pooled connection the workflow's executions use.
 * A failure reaches the editor (and n8n's log) with the credential's secrets taken out: a server
 * that fails to start may print them.
 */
async function withEditorConnection<T>(
	context: ILoadOptionsFunctions,
	work: (connection: McpConnection) => Promise<T>,
): Promise<T> {
	const connectionType = context.getNodeParameter('connectionType', 'stdio') as ConnectionType;
	let config: McpServerConfig;
	try {
		config = await serverConfigFor(context, connectionType);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), error as Error);
	}
	const options = context.getNodeParameter('options', {}) as { shareServer?: boolean };
	try {
		return await sharedPool.use(config, work, {
			scope: poolScope(options.shareServer, context.getWorkflow().id),
		});
	} catch (error) {
		throw new NodeOperationError(
			context.getNode(),
			redact((error as Error).message, secretsOf(config)),
		);
	}
}

/** The live `tools/list`. */
function liveTools(context: ILoadOptionsFunctions): Promise<McpTool[]> {
	return withEditorConnection(context, (connection) => connection.listTools({ fresh: true }));
}

export async function getToolNames(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const tools = await liveTools(this);
	return tools.map((tool) => ({
		name: tool.title ?? tool.name,
		value: tool.name,
		description: tool.description,
	}));
}

/** List search results from the live server, filtered by the text typed. */
function searchResults<T>(
	items: T[],
	filter: string | undefined,
	describe: (item: T) => { name: string; value: string; description?: string; haystack: string },
): INodeListSearchResult {
	const needle = filter?.toLowerCase() ?? '';
	return {
		results: items
			.map(describe)
			.filter((result) => result.haystack.toLowerCase().includes(needle))
			.map(({ haystack: _haystack, ...result }) => result),
	};
}

export async function searchTools(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return searchResults(await liveTools(this), filter, (tool) => ({
		name: tool.title ?? tool.name,
		value: tool.name,
		description: tool.description,
		haystack: `${tool.name} ${tool.title ?? ''}`,
	}));
}

export async function searchResources(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const resources = await withEditorConnection(this, (connection) => connection.listResources());
	return searchResults(resources, filter, (resource) => ({
		name: resource.title ?? resource.name,
		value: resource.uri,
		description: resource.description ?? resource.uri,
		haystack: `${resource.name} ${resource.title ?? ''} ${resource.uri}`,
	}));
}

export async function searchPrompts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const prompts = await withEditorConnection(this, (connection) => connection.listPrompts());
	return searchResults(prompts, filter, (prompt) => ({
		name: prompt.title ?? prompt.name,
		value: prompt.name,
		description: prompt.description,
		haystack: `${prompt.name} ${prompt.title ?? ''}`,
	}));
}

/** Form fields as the resource mapper shows them: names and types; descriptions stay in the schema. */
function mapperFields(schema: JsonSchema): ResourceMapperFields['fields'] {
	return schemaToFormFields(schema).map(({ description: _description, ...field }) => ({
		...field,
		defaultMatch: false,
		display: true,
	}));
}

export async function getToolArgumentFields(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const toolName = this.getNodeParameter('tool', '', { extractValue: true }) as string;
	const tool = (await liveTools(this)).find((candidate) => candidate.name === toolName);
	if (!tool) return { fields: [], emptyFieldsNotice: `The server has no tool named '${toolName}'` };
	return { fields: mapperFields(tool.inputSchema) };
}

export async function getPromptArgumentFields(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const promptName = this.getNodeParameter('prompt', '', { extractValue: true }) as string;
	const prompts = await withEditorConnection(this, (connection) => connection.listPrompts());
	const prompt = prompts.find((candidate) => candidate.name === promptName);
	if (!prompt) {
		return { fields: [], emptyFieldsNotice: `The server has no prompt named '${promptName}'` };
	}
	return { fields: mapperFields(promptArgumentsSchema(prompt)) };
}

/**
 * A credential test cannot renew an OAuth2 token: it has no node, so n8n would not save the new
 * one, and the credential's refresh token would be spent.
 */
const TEST_RENEWAL =
	'a credential test does not renew the access token; run a node with this credential (n8n renews and saves it) or reconnect';

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
	let config: McpServerConfig | undefined;
	try {
		config = serverConfigFromCredentials(connectionType, credential.data, {
			// Its own authorization: nothing a test does reaches the sessions of executions.
			credentialId: `credential-test:${credential.id ?? credential.name}`,
			renew: () => Promise.reject(new Error(TEST_RENEWAL)),
		});
		const refused = config.transport === 'http' && (await egressRefusal(this, config.url));
		if (refused) return { status: 'Error', message: refused };
		connection = await McpConnection.open(config, 30_000);
		const tools = await connection.listTools();
		const { name, version, protocolVersion, transport } = connection.server;
		return {
			status: 'OK',
			message: `Connected to ${name} ${version} (MCP ${protocolVersion}, ${transport}): ${tools.length} tools`,
		};
	} catch (error) {
		const message = (error as Error).message;
		return { status: 'Error', message: config ? redact(message, secretsOf(config)) : message };
	} finally {
		await connection?.close();
	}
}

/**
 * Why n8n's outbound policy (SSRF protection) refuses the server's address; none when it allows
 * it. A credential test gets no egress filter from n8n, only its checked request helper: the test
 * asks it for the server's URL first, so that no test reaches an address executions may not.
 */
async function egressRefusal(
	context: ICredentialTestFunctions,
	url: string,
): Promise<string | undefined> {
	try {
		await context.helpers.request({ method: 'HEAD', uri: url, simple: false, timeout: 10_000 });
		return undefined;
	} catch (error) {
		return isPolicyRefusal(error) ? (error as Error).message : undefined;
	}
}

/** n8n's SSRF errors (SsrfBlockedIpError, SsrfBlockedHostnameError), however deep the helper wrapped them. */
function isPolicyRefusal(error: unknown): boolean {
	for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++) {
		if (cause.name.startsWith('SsrfBlocked')) return true;
		cause = cause.cause;
	}
	return false;
}
