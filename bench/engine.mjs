// n8n-core's real engine for the benchmarks, built as test/support/engine.ts builds it (that file is
// for Jest; this one is plain JavaScript over the built package in dist/): a manual execution in
// WorkflowExecute, node types by name, credentials decrypted as n8n would hand them to a node.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { Container } = require('@n8n/di');
const { BinaryDataService, ExecutionLifecycleHooks, WorkflowExecute } = require('n8n-core');
const { ICredentialsHelper, NodeHelpers, Workflow } = require('n8n-workflow');

const PACKAGE_NAME = require(path.join(root, 'package.json')).name;

/** The package's built node classes, keyed as n8n registers them ('<package>.<node name>'). */
export function packageNodeTypes() {
	const { McpClient } = require(path.join(root, 'dist/nodes/McpClient/McpClient.node'));
	const { ToolCallingModel } = require(
		path.join(root, 'dist/nodes/ToolCallingModel/ToolCallingModel.node'),
	);
	return Object.fromEntries(
		[new McpClient(), new ToolCallingModel()].map((node) => [
			`${PACKAGE_NAME}.${node.description.name}`,
			node,
		]),
	);
}

// n8n's own nodes the benchmark workflows use, the real classes from n8n-nodes-base.
const N8N_NODES = {
	'n8n-nodes-base.manualTrigger': ['ManualTrigger/ManualTrigger.node', 'ManualTrigger'],
	'n8n-nodes-base.noOp': ['NoOp/NoOp.node', 'NoOp'],
	'n8n-nodes-base.set': ['Set/Set.node', 'Set'],
};

class NodeTypes {
	constructor(types) {
		this.types = { ...types };
		for (const [type, [file, className]] of Object.entries(N8N_NODES))
			this.types[type] ??= new (require(`n8n-nodes-base/dist/nodes/${file}`)[className])();
	}
	getByName(type) {
		const nodeType = this.types[type];
		if (!nodeType) throw new Error(`Unknown node type "${type}"`);
		return nodeType;
	}
	getByNameAndVersion(type, version) {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}
	getKnownTypes() {
		return Object.fromEntries(Object.keys(this.types).map((type) => [type, {}]));
	}
}

// Credentials by id (or by type), decrypted: a copy per read, as n8n decrypts anew for every call.
class CredentialsHelper extends ICredentialsHelper {
	constructor(byId) {
		super();
		this.byId = byId;
	}
	getParentTypes() {
		return [];
	}
	isCredentialUsableByNode() {
		return true;
	}
	async authenticate() {
		throw new Error('Not used by the benchmark workflows');
	}
	async preAuthentication() {
		return undefined;
	}
	async runPreAuthentication() {
		return undefined;
	}
	async getCredentials() {
		throw new Error('Encrypted credentials are not used by the benchmark');
	}
	async getDecrypted(_additionalData, nodeCredentials, type) {
		const data = this.byId[nodeCredentials.id ?? ''] ?? this.byId[type];
		if (!data) throw new Error(`No credential "${nodeCredentials.id}" of type "${type}"`);
		return structuredClone(data);
	}
	async updateCredentials() {}
	async updateCredentialsOauthTokenData() {}
	getCredentialsProperties() {
		return [];
	}
}

let userFolder;
/** The engine's services from the DI container, in a temporary n8n user folder; once per process. */
export async function setUpEngine() {
	if (userFolder) return;
	userFolder = mkdtempSync(path.join(tmpdir(), 'n8n-bench-'));
	process.env.N8N_USER_FOLDER = userFolder;
	mkdirSync(path.join(userFolder, 'n8n-files'));
	process.env.N8N_RESTRICT_FILE_ACCESS_TO = path.join(userFolder, 'n8n-files');
	process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'default';
	// n8n's default level, to a file: at 'info' n8n's logger makes debug lines no-ops, as in a
	// default n8n ('silent' still builds each line's call site before dropping it).
	process.env.N8N_LOG_LEVEL ??= 'info';
	process.env.N8N_LOG_OUTPUT ??= 'file';
	process.env.N8N_LOG_FILE_LOCATION ??= path.join(userFolder, 'n8n.log');
	await Container.get(BinaryDataService).init();
}

export function tearDownEngine() {
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
	userFolder = undefined;
}

/**
 * A workflow ready to run again and again, as n8n runs a saved workflow: each run is a new
 * manual execution (a new Workflow and WorkflowExecute) from its first node; `inputItems` (or
 * the items a run is given) are pinned on that node, as the editor pins test data. Resolves to the
 * engine's IRun.
 */
export function workflowRunner(json, { nodeTypes, credentials = {}, inputItems, workflowId }) {
	const types = new NodeTypes(nodeTypes);
	const credentialsHelper = new CredentialsHelper(credentials);
	let executions = 0;
	return async function run(items = inputItems) {
		const workflowData = {
			id: workflowId ?? 'bench',
			name: json.name ?? 'Benchmark',
			active: false,
			isArchived: false,
			activeVersionId: null,
			createdAt: new Date(),
			updatedAt: new Date(),
			nodes: json.nodes,
			connections: json.connections,
			settings: json.settings ?? { executionOrder: 'v1' },
		};
		const workflow = new Workflow({ ...workflowData, nodeTypes: types });
		const executionId = String(++executions);
		const additionalData = {
			hooks: new ExecutionLifecycleHooks('manual', executionId, workflowData),
			credentialsHelper,
			executionId,
			currentNodeExecutionIndex: 0,
			variables: {},
			webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
			formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		};
		const pinData = items ? { [json.nodes[0].name]: items } : undefined;
		const startNode = workflow.getNode(json.nodes[0].name) ?? undefined;
		return new WorkflowExecute(additionalData, 'manual').run({ workflow, startNode, pinData });
	};
}

/** The items on one output of a node's last run; throws with the run's error when it failed. */
export function outputOf(run, nodeName, outputIndex = 0) {
	const { runData, error } = run.data.resultData;
	if (error) throw new Error(`The workflow failed at ${nodeName}: ${error.message}`);
	const last = runData[nodeName]?.at(-1);
	if (!last) throw new Error(`Node "${nodeName}" did not run`);
	if (last.error) throw new Error(`${nodeName} failed: ${last.error.message}`);
	return last.data?.main[outputIndex] ?? [];
}

/** Manual Trigger → the given nodes, each feeding the next through its first output. */
export function chain(...nodes) {
	const trigger = {
		id: 'trigger',
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const all = [trigger, ...nodes];
	const connections = Object.fromEntries(
		all
			.slice(0, -1)
			.map((node, index) => [
				node.name,
				{ main: [[{ node: all[index + 1].name, type: 'main', index: 0 }]] },
			]),
	);
	return { nodes: all, connections };
}

/** A node of this package, with its credential by id. */
export function packageNode(name, type, parameters, credentials) {
	return {
		id: name,
		name,
		type: `${PACKAGE_NAME}.${type}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials,
	};
}

/** A stdio server configuration as the MCP Server (Command Line) credential stores it. */
export function stdioCredential({ command, args, env = {} }) {
	return {
		command,
		arguments: { argument: args.map((value) => ({ value })) },
		environment: { variable: Object.entries(env).map(([name, value]) => ({ name, value })) },
		cwd: '',
	};
}

/** The pooled MCP connections the nodes opened; closed when the benchmark ends. */
export function sharedPool() {
	return require(path.join(root, 'dist/lib/mcp')).sharedPool;
}
