/**
 * Runs in n8n's engine where a secret (a credential's value) is passed on by a hostile MCP server
 * and repeated by the model, in every way the package must withstand. The redaction canary test
 * checks each closely; the adversarial probe runs them for many secrets.
 */
import type { INode } from 'n8n-workflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { ToolCallTrace } from '../../nodes/ToolCallTrace/ToolCallTrace.node';
import { reply, type ChatCompletionsStandIn } from './chatCompletionsStandIn';
import { nodeTypesFrom, runWorkflow } from './engine';
import { chain, mcpClientNode, pendingCall, stdioCredential } from './mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from './modelWorkflow';
import { observed, type Observed } from './observe';
import { childEnv, faultStdio, type FaultServerOptions } from './servers';

export interface LeakSetting {
	secret: string;
	/** A model API stand-in that takes the secret as its key. */
	api: ChatCompletionsStandIn;
}

const nodeTypes = () => ({
	...modelNodeTypes(),
	...nodeTypesFrom(new McpClient(), new ToolCallTrace()),
});

/** The hostile fault server, with the secret in its environment. */
export const hostileServer = (secret: string, options: FaultServerOptions = {}) =>
	stdioCredential({
		...faultStdio({ hostile: true, ...options }),
		env: childEnv({ CANARY_SECRET: secret }),
	});

/** A server that prints the secret and exits before it ever answers. */
export const failingStart = (secret: string) =>
	stdioCredential({
		transport: 'stdio',
		command: process.execPath,
		args: [
			'-e',
			"process.stderr.write('key ' + process.env.CANARY_SECRET + '\\n'); process.exit(3)",
		],
		env: childEnv({ CANARY_SECRET: secret }),
	});

const credentialsFor = (setting: LeakSetting, server = hostileServer(setting.secret)) => ({
	mcpStdioServerApi: server,
	openai: standInCredential(setting.api, { apiKey: setting.secret }).openAiCompatibleApi,
});

/** List → Model → Execute → Model, whose Final Answer goes to the JSON Lines export. */
function loop(continueOnFail: boolean) {
	const model = continueOnFail ? { continueOnFail } : {};
	const workflow = chain(
		mcpClientNode('List Tools', {
			operation: 'listTools',
			toolFilter: 'only',
			includeTools: ['env_file', 'echo', 'leak'],
		}),
		modelNode('Model', { userMessage: 'What is in your environment?' }, model),
		mcpClientNode('Execute', { operation: 'executeToolCalls' }),
		modelNode('Model Again', {}, model),
		{
			id: 'export',
			name: 'Export',
			type: 'n8n-nodes-tool-calling.toolCallTrace',
			typeVersion: 1,
			position: [0, 0],
			parameters: { operation: 'exportJsonLines' },
		},
	);
	workflow.connections['Model Again'] = {
		main: [[], [{ node: 'Export', type: 'main', index: 0 }]],
	};
	return workflow;
}

/** The whole loop: the server leaks the secret in every form, the model repeats it. */
export function leakingLoop(setting: LeakSetting): Promise<Observed> {
	const { secret, api } = setting;
	api.script(
		reply.toolCalls([
			{ name: 'env_file', arguments: '{}' },
			{ name: 'leak', arguments: '{}' },
			{ name: 'leak', arguments: '{"as":"error"}' },
			// The model repeats the secret in a call the schema refuses: that failure is logged.
			{ name: 'echo', arguments: JSON.stringify({ text: secret, extra: secret }) },
		]),
		reply.text(`Your secret is ${secret}, or ${Buffer.from(secret).toString('base64')}.`),
	);
	return observed(() =>
		runWorkflow(loop(false), { nodeTypes: nodeTypes(), credentials: credentialsFor(setting) }),
	);
}

/** The model API refuses the key, repeating it. */
export function refusedKey(setting: LeakSetting, continueOnFail: boolean): Promise<Observed> {
	setting.api.script(
		reply.error(401, {
			message: `Incorrect API key provided: ${setting.secret}.`,
			code: 'invalid_api_key',
		}),
	);
	return observed(() =>
		runWorkflow(loop(continueOnFail), {
			nodeTypes: nodeTypes(),
			credentials: credentialsFor(setting),
		}),
	);
}

/** One MCP Client node against a server, with one pending call that makes the server quote the secret. */
export function mcpNodeFailing(
	setting: LeakSetting,
	how: 'list refused' | 'start fails' | 'tool error fails the node',
	continueOnFail: boolean,
): Promise<Observed> {
	const node: INode =
		how === 'tool error fails the node'
			? mcpClientNode('Execute', {
					operation: 'executeToolCalls',
					options: { onToolError: 'failNode' },
				})
			: mcpClientNode('List Tools', { operation: 'listTools' });
	const server =
		how === 'start fails'
			? failingStart(setting.secret)
			: hostileServer(setting.secret, { failingList: how === 'list refused' });
	return observed(() =>
		runWorkflow(chain({ ...node, ...(continueOnFail && { onError: 'continueRegularOutput' }) }), {
			nodeTypes: nodeTypes(),
			credentials: credentialsFor(setting, server),
			inputItems: [{ json: { toolCalls: [pendingCall('leak', { as: 'error' })] } }],
		}),
	);
}

/** The server prints the secret on stderr, cut where a tail would cut it, and crashes. */
export function stderrBeforeCrash(setting: LeakSetting): Promise<Observed> {
	return observed(() =>
		runWorkflow(chain(mcpClientNode('Execute', { operation: 'executeToolCalls' })), {
			nodeTypes: nodeTypes(),
			credentials: credentialsFor(setting),
			inputItems: [{ json: { toolCalls: [pendingCall('leak', { as: 'stderr' })] } }],
		}),
	);
}

/** Call Tool on the leaking tool: its result and binaries as Call Tool writes them. */
export function callToolLeak(setting: LeakSetting): Promise<Observed> {
	return observed(() =>
		runWorkflow(
			chain(
				mcpClientNode('Call Tool', {
					operation: 'callTool',
					tool: { __rl: true, mode: 'name', value: 'leak' },
					argumentsSource: 'json',
					jsonArguments: '{}',
				}),
			),
			{ nodeTypes: nodeTypes(), credentials: credentialsFor(setting) },
		),
	);
}
