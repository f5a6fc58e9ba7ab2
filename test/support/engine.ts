import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Container } from '@n8n/di';
import {
	BinaryDataService,
	CredentialTestContext,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	UserError,
	Workflow,
	type ExecutionError,
	type ExecutionStatus,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type IConnections,
	type ICredentialTestFunctions,
	type IExecuteResponsePromiseData,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type IWorkflowSettings,
	type StructuredChunk,
} from 'n8n-workflow';
import { name as packageName } from '../../package.json';
import { checkContract } from './contract';
import type { DataTables } from './dataTables';
import { subWorkflowRunner, type StoredWorkflow, type SubExecution } from './subWorkflows';

export interface WorkflowJson {
	nodes: INode[];
	connections: IConnections;
	name?: string;
	settings?: IWorkflowSettings;
}

export type NodeTypeMap = Record<string, INodeType | IVersionedNodeType>;

export interface RunOptions {
	/** Keyed by the type name used in the JSON, e.g. 'n8n-nodes-tool-calling.mcpClient'. */
	nodeTypes: NodeTypeMap;
	/** Keyed by credential id, or by type for any credential of that type; what `this.getCredentials(type)` returns. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Called with every node's output items after the run; by default the package's item contract is checked. */
	checkOutput?: (node: INode, items: INodeExecutionData[]) => void;
	/** Pinned on the workflow's first node (its trigger), as the editor pins test data; one empty item when absent. */
	inputItems?: INodeExecutionData[];
	/** The workflow's id, as n8n gives it to nodes (`this.getWorkflow().id`); 'engine-test' when absent. */
	workflowId?: string;
	/**
	 * Runs as n8n runs a workflow whose trigger answers by streaming (a Chat Trigger or Webhook in
	 * Streaming response mode): a webhook execution with streaming on and this as its sendChunk hook.
	 */
	onChunk?: (chunk: StructuredChunk) => void | Promise<void>;
	/** n8n's Data tables for its Data table node: a stand-in (test/support/dataTables.ts). */
	dataTables?: DataTables;
	/** The workflows sub-workflow calls may run, by id, each run for real in a nested WorkflowExecute. */
	workflows?: Record<string, StoredWorkflow>;
}

export interface NodeRun {
	/** Items per main output index; empty when the node failed without continuing. */
	outputs: INodeExecutionData[][];
	error?: ExecutionError;
}

export interface EngineRun {
	status: ExecutionStatus;
	/** Every run of each node that ran, in order. */
	nodes: Record<string, NodeRun[]>;
	/** Node names in the order the engine ran them, once per run. */
	order: string[];
	/** Why the workflow stopped, if it did. */
	error?: ExecutionError;
	/** The engine's own result, for what the fields above leave out. */
	raw: IRun;
	/** The credentials after the run, by id or type as given: what nodes saved (renewed OAuth2 tokens) is in them. */
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** What Respond to Webhook nodes sent back, in order: a webhook caller's answers. */
	responses: IExecuteResponsePromiseData[];
	/** The sub-executions the run made, in the order they started. */
	subExecutions: SubExecution[];
}

/**
 * n8n's own nodes, as n8n registers them: the real classes from n8n-nodes-base, loaded on first
 * use. Workflows in tests (and the examples) use them around the package's nodes.
 */
const N8N_NODES: Record<string, [path: string, className: string]> = {
	manualTrigger: ['ManualTrigger/ManualTrigger.node', 'ManualTrigger'],
	scheduleTrigger: ['Schedule/ScheduleTrigger.node', 'ScheduleTrigger'],
	webhook: ['Webhook/Webhook.node', 'Webhook'],
	respondToWebhook: ['RespondToWebhook/RespondToWebhook.node', 'RespondToWebhook'],
	set: ['Set/Set.node', 'Set'],
	if: ['If/If.node', 'If'],
	noOp: ['NoOp/NoOp.node', 'NoOp'],
	convertToFile: ['Files/ConvertToFile/ConvertToFile.node', 'ConvertToFile'],
	dataTable: ['DataTable/DataTable.node', 'DataTable'],
	readWriteFile: ['Files/ReadWriteFile/ReadWriteFile.node', 'ReadWriteFile'],
	executeWorkflowTrigger: [
		'ExecuteWorkflow/ExecuteWorkflowTrigger/ExecuteWorkflowTrigger.node',
		'ExecuteWorkflowTrigger',
	],
	stopAndError: ['StopAndError/StopAndError.node', 'StopAndError'],
	splitOut: ['Transform/SplitOut/SplitOut.node', 'SplitOut'],
};

const loadedN8nNodes = new Map<string, INodeType | IVersionedNodeType>();

function n8nNodeType(type: string): INodeType | IVersionedNodeType | undefined {
	const entry = type.startsWith('n8n-nodes-base.')
		? N8N_NODES[type.slice('n8n-nodes-base.'.length)]
		: undefined;
	if (!entry) return undefined;
	if (!loadedN8nNodes.has(type)) {
		const [path, className] = entry;
		// Loaded on demand: requiring all of n8n-nodes-base up front would take seconds per test file.
		loadedN8nNodes.set(type, new (require(`n8n-nodes-base/dist/nodes/${path}`)[className])());
	}
	return loadedN8nNodes.get(type);
}

/** The package's node classes keyed as n8n registers them: '<package name>.<description.name>'. */
export function nodeTypesFrom(...nodes: Array<INodeType | IVersionedNodeType>): NodeTypeMap {
	return Object.fromEntries(nodes.map((node) => [`${packageName}.${node.description.name}`, node]));
}

class TestNodeTypes implements INodeTypes {
	constructor(private readonly types: NodeTypeMap) {}

	getByName(type: string) {
		const nodeType = this.types[type] ?? n8nNodeType(type);
		if (!nodeType) throw new UnexpectedError(`Unknown node type "${type}": pass it in nodeTypes`);
		return nodeType;
	}

	getByNameAndVersion(type: string, version?: number) {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes() {
		const known = [
			...Object.keys(this.types),
			...Object.keys(N8N_NODES).map((name) => `n8n-nodes-base.${name}`),
		];
		return Object.fromEntries(known.map((type) => [type, {}]));
	}
}

/** n8n's node types as the engine tests know them: these, and n8n's own nodes. */
export function engineNodeTypes(types: NodeTypeMap): INodeTypes {
	return new TestNodeTypes(types);
}

// Stores credentials by type, decrypted, where n8n would load and decrypt them from the database.
class TestCredentialsHelper extends ICredentialsHelper {
	constructor(readonly byType: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}

	getParentTypes() {
		return [];
	}

	isCredentialUsableByNode() {
		return true;
	}

	// Needs the credential type's `authenticate`, which tests do not register: fail loudly rather than send no auth.
	async authenticate(
		_credentials: ICredentialDataDecryptedObject,
		type: string,
	): Promise<IHttpRequestOptions> {
		throw new UnexpectedError(
			`Authenticating requests with credential type "${type}" is not supported in engine tests`,
		);
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	// Encrypted credentials need n8n's key provider, and the engine only reads decrypted ones.
	async getCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		throw new UnexpectedError(
			`Encrypted credentials of type "${type}" are not available in engine tests`,
		);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	) {
		const data = this.byType[nodeCredentials.id ?? ''] ?? this.byType[type];
		// n8n's message for credentials missing from the database.
		if (!data)
			throw new UserError(
				`Credential with ID "${nodeCredentials.id}" does not exist for type "${type}".`,
			);
		// A copy, as n8n decrypts anew for every call.
		return structuredClone(data);
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		this.byType[type] = data;
	}

	// Where getDecrypted found the credential, so the next read sees the renewed tokens.
	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		const key = nodeCredentials.id && this.byType[nodeCredentials.id] ? nodeCredentials.id : type;
		this.byType[key] = { ...this.byType[key], oauthTokenData: data.oauthTokenData };
	}

	getCredentialsProperties() {
		return [];
	}
}

let userFolder: string | undefined;
let setUp: Promise<void> | undefined;

// The engine takes its services from the DI container, built from env config on first use.
function setUpOnce() {
	setUp ??= (async () => {
		// n8n writes its settings (encryption key) to N8N_USER_FOLDER: a temporary one keeps tests off ~/.n8n.
		userFolder = mkdtempSync(join(tmpdir(), 'n8n-engine-'));
		process.env.N8N_USER_FOLDER = userFolder;
		// Where file nodes may read and write, as ~/.n8n-files is in a default n8n.
		mkdirSync(join(userFolder, 'n8n-files'));
		process.env.N8N_RESTRICT_FILE_ACCESS_TO = join(userFolder, 'n8n-files');
		process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'default';
		// Node errors are in the EngineRun; N8N_LOG_LEVEL=debug shows the engine's log.
		process.env.N8N_LOG_LEVEL ??= 'silent';
		await Container.get(BinaryDataService).init();
	})();
	return setUp;
}

const removeUserFolder = () => {
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
};
// Under Jest the folder goes after the file's tests; the benchmark (bench/inEngine.ts) runs this
// module in plain Node, where there is no afterAll, so there it goes when the process exits.
if (typeof afterAll === 'function') afterAll(removeUserFolder);
else process.on('exit', removeUserFolder);

/** The folder n8n's file nodes may use in engine runs (N8N_RESTRICT_FILE_ACCESS_TO). */
export async function allowedFilesFolder(): Promise<string> {
	await setUpOnce();
	return process.env.N8N_RESTRICT_FILE_ACCESS_TO!;
}

// Only what a manual run reads; task runners and webhooks are not wired (sub-workflows: runWorkflow).
function additionalDataFor(
	workflowData: ConstructorParameters<typeof ExecutionLifecycleHooks>[2],
	executionId: string,
	credentials: RunOptions['credentials'],
): IWorkflowExecuteAdditionalData {
	return {
		hooks: new ExecutionLifecycleHooks('manual', executionId, workflowData),
		credentialsHelper: new TestCredentialsHelper({ ...credentials }) as ICredentialsHelper,
		executionId,
		currentNodeExecutionIndex: 0,
		variables: {},
		instanceBaseUrl: 'http://localhost:5678/',
		// For $execution.resumeUrl in expressions.
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
	} as Partial<IWorkflowExecuteAdditionalData> as IWorkflowExecuteAdditionalData;
}

/**
 * What the editor's calls to a node's methods get (resource lists, searches): n8n-core's real
 * LoadOptionsContext for the node, its parameters and credentials, with n8n's own HTTP helpers.
 */
export async function editorContextFor(
	node: INode,
	nodeTypes: NodeTypeMap,
	credentials: RunOptions['credentials'] = {},
): Promise<ILoadOptionsFunctions> {
	await setUpOnce();
	const workflowData = {
		id: 'editor',
		name: 'Editor',
		active: false,
		isArchived: false,
		activeVersionId: null,
		nodes: [node],
		connections: {},
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes: new TestNodeTypes(nodeTypes) });
	return new LoadOptionsContext(
		workflow,
		node,
		additionalDataFor(
			{ ...workflowData, createdAt: new Date(), updatedAt: new Date() },
			'editor',
			credentials,
		),
		'parameters',
	);
}

/** What a credential test gets: n8n-core's real CredentialTestContext, with n8n's request helper. */
export async function credentialTestContext(): Promise<ICredentialTestFunctions> {
	await setUpOnce();
	return new CredentialTestContext() as unknown as ICredentialTestFunctions;
}

/** Runs workflow JSON as a manual execution in n8n-core's WorkflowExecute. */
export async function runWorkflow(json: WorkflowJson, options: RunOptions): Promise<EngineRun> {
	await setUpOnce();
	const nodeTypes = new TestNodeTypes(options.nodeTypes);
	const workflowData = {
		id: options.workflowId ?? 'engine-test',
		name: json.name ?? 'Engine test',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: json.nodes,
		connections: json.connections,
		// The editor saves new workflows with execution order v1.
		settings: json.settings ?? { executionOrder: 'v1' },
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes });
	const executionId = '1';
	const additionalData = additionalDataFor(workflowData, executionId, options.credentials);
	const subExecutions: SubExecution[] = [];
	// Sub-executions share the run's credentials, as n8n's share its database.
	additionalData.executeWorkflow = subWorkflowRunner(
		options.workflows ?? {},
		nodeTypes,
		(id) => ({
			...additionalDataFor(workflowData, id, {}),
			credentialsHelper: additionalData.credentialsHelper,
		}),
		subExecutions,
	);
	if (options.dataTables)
		Object.assign(additionalData, {
			'data-table': options.dataTables.module,
			dataTableProjectId: 'project',
		});
	if (options.onChunk) {
		additionalData.streamingEnabled = true;
		additionalData.hooks!.addHandler('sendChunk', options.onChunk);
	}
	const responses: IExecuteResponsePromiseData[] = [];
	additionalData.hooks!.addHandler('sendResponse', async (response) => {
		responses.push(response);
	});

	const pinData = options.inputItems
		? { [json.nodes[0].name]: structuredClone(options.inputItems) }
		: undefined;
	// The first node starts the run, as when the editor executes a workflow from its trigger.
	const startNode = workflow.getNode(json.nodes[0].name) ?? undefined;
	const mode = options.onChunk ? 'webhook' : 'manual';
	const raw = await new WorkflowExecute(additionalData, mode).run({
		workflow,
		startNode,
		pinData,
	});
	const { runData, error } = raw.data.resultData;
	const nodes: Record<string, NodeRun[]> = {};
	const ran: Array<{ name: string; index: number }> = [];
	for (const [name, tasks] of Object.entries(runData)) {
		nodes[name] = tasks.map((task) => ({
			outputs: task.data?.main.map((items) => items ?? []) ?? [],
			error: task.error,
		}));
		ran.push(...tasks.map((task) => ({ name, index: task.executionIndex })));
	}
	const order = ran.sort((a, b) => a.index - b.index).map((run) => run.name);
	const { byType } = additionalData.credentialsHelper as TestCredentialsHelper;
	const run = {
		...{ status: raw.status, nodes, order, error, raw },
		...{ credentials: byType, responses, subExecutions },
	};
	for (const node of json.nodes) {
		for (const nodeRun of nodes[node.name] ?? [])
			(options.checkOutput ?? checkContract)(node, nodeRun.outputs.flat());
	}
	return run;
}

/** Every run of a node, in order; empty when it did not run. */
export function runsOf(run: EngineRun, nodeName: string): NodeRun[] {
	return run.nodes[nodeName] ?? [];
}

/** The items on one output of the node's last run. */
export function outputOf(run: EngineRun, nodeName: string, outputIndex = 0): INodeExecutionData[] {
	const last = runsOf(run, nodeName).at(-1);
	if (!last) {
		throw new Error(
			`Node "${nodeName}" did not run (ran: ${run.order.join(', ')}; error: ${run.error?.message ?? 'none'})`,
		);
	}
	return last.outputs[outputIndex] ?? [];
}

/** The error of the node's last run, if it failed. */
export function errorOf(run: EngineRun, nodeName: string): ExecutionError | undefined {
	return runsOf(run, nodeName).at(-1)?.error;
}
