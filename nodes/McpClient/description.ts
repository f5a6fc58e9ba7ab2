import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_CONCURRENCY } from '../shared/items';
import { recordingProperties } from '../shared/recordingOptions';
import { traceOptionsProperty } from '../shared/traceOptions';
import { elicitationProperties } from './operations/elicitation';
import { samplingProperties } from './operations/sampling';
import { getPromptProperties } from './operations/getPrompt';
import { readResourceProperties } from './operations/readResource';
import { serverItemLocator } from './operations/serverItemLocator';
import { WORKFLOWS_CONNECTION, workflowToolProperties } from './workflowTools/description';

const show = (operation: string[]) => ({ show: { operation } });
/** Inside the Options collection: settings of tool calls only. */
const callsOnly = { show: { '/operation': ['executeToolCalls', 'callTool'] } };

/** A list of the server's tool names to pick from, shown when `show` holds. */
function toolNames(
	displayName: string,
	name: string,
	show: Record<string, string[]>,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getToolNames' },
		default: [],
		description:
			'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		displayOptions: { show },
	};
}

export const properties: INodeProperties[] = [
	{
		displayName: 'Connection',
		name: 'connectionType',
		type: 'options',
		noDataExpression: true,
		default: 'stdio',
		options: [
			{
				name: 'Command Line (STDIO)',
				value: 'stdio',
				description: 'Start the server as a process on the n8n machine',
			},
			{ name: 'HTTP', value: 'http', description: 'Streamable HTTP or legacy SSE' },
			{
				name: 'HTTP with OAuth2 Sign-In',
				value: 'oauth2',
				description:
					'Streamable HTTP or legacy SSE behind OAuth 2.1: sign in from the credential, n8n keeps and renews the tokens',
			},
			{
				name: 'HTTP with OAuth2 Client Credentials',
				value: 'clientCredentials',
				description:
					'Streamable HTTP or legacy SSE for a registered client (a service account) with a secret or private key: nobody signs in',
			},
			{
				name: 'HTTP with Enterprise-Managed Sign-In',
				value: 'enterprise',
				description:
					"Streamable HTTP or legacy SSE that your company's identity provider gives access to: sign in there once, workflows run on your behalf",
			},
			{
				name: 'HTTP with OAuth2 (Endpoints by Hand)',
				value: 'oauth2Manual',
				description:
					"For n8n before 1.119, which cannot discover a server's authorization server: enter its URLs and client",
			},
			WORKFLOWS_CONNECTION,
		],
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		default: 'listTools',
		displayOptions: { hide: { connectionType: ['workflows'] } },
		options: [
			{
				name: 'List Tools',
				value: 'listTools',
				action: 'List the tools of an MCP server',
				description: "Add the server's tools to each conversation (the register step)",
			},
			{
				name: 'Execute Tool Calls',
				value: 'executeToolCalls',
				action: 'Execute the pending tool calls',
				description:
					"Check and run each conversation's pending tool calls, then append the results",
			},
			{
				name: 'Call Tool',
				value: 'callTool',
				action: 'Call one tool',
				description: 'Run one tool with arguments from a form or JSON, no model involved',
			},
			{
				name: 'List Resources',
				value: 'listResources',
				action: 'List the resources of an MCP server',
				description: "Add the server's resources (every page) to each item",
			},
			{
				name: 'Read Resource',
				value: 'readResource',
				action: 'Read a resource',
				description: 'Text contents into the item, blobs as binary data',
			},
			{
				name: 'List Resource Templates',
				value: 'listResourceTemplates',
				action: 'List the resource templates of an MCP server',
				description: "Add the server's resource templates (every page) to each item",
			},
			{
				name: 'List Prompts',
				value: 'listPrompts',
				action: 'List the prompts of an MCP server',
				description: "Add the server's prompts (every page) to each item",
			},
			{
				name: 'Get Prompt',
				value: 'getPrompt',
				action: 'Get a prompt',
				description:
					"Append a prompt's messages, with arguments from a form, to each conversation for the model to continue",
			},
		],
	},
	...workflowToolProperties,
	{
		displayName: 'Server Label',
		name: 'serverLabel',
		type: 'string',
		default: '',
		placeholder: 'e.g. files',
		description:
			'Names the server in the conversation and the trace: tools listed by it carry this label, and Execute Tool Calls runs only the calls of tools with its label. Empty: the name the server reports.',
		displayOptions: { hide: { operation: ['callTool'] } },
	},
	{
		displayName: 'Tools to Include',
		name: 'toolFilter',
		type: 'options',
		default: 'all',
		options: [
			{ name: 'All', value: 'all' },
			{ name: 'Selected', value: 'only' },
			{ name: 'All Except', value: 'except' },
		],
		displayOptions: { ...show(['listTools']), hide: { connectionType: ['workflows'] } },
	},
	toolNames('Tools', 'includeTools', { operation: ['listTools'], toolFilter: ['only'] }),
	toolNames('Tools to Leave Out', 'excludeTools', {
		operation: ['listTools'],
		toolFilter: ['except'],
	}),
	{
		displayName: 'Require Approval For',
		name: 'requireApproval',
		type: 'options',
		noDataExpression: true,
		default: 'nothing',
		description:
			'Calls that wait for a person: an item with one leaves by the Needs Approval output with its calls held and approval.requested; it comes back with approval.decisions',
		options: [
			{ name: 'Nothing', value: 'nothing', description: 'Every call runs as the model asks' },
			{
				name: 'Tools Not Annotated Read-Only',
				value: 'notReadOnly',
				description: "Every tool its server does not annotate readOnlyHint (MCP's safe default)",
			},
			{
				name: 'Tools Annotated Destructive',
				value: 'destructive',
				description:
					'Every tool its server does not annotate read-only or destructiveHint false (MCP takes a tool to be destructive unless told), and tools the item does not carry',
			},
			{ name: 'Listed Tools', value: 'listed' },
			{
				name: 'Calls Chosen by an Expression',
				value: 'expression',
				description: 'An expression over the item that gives the IDs of the calls to hold',
			},
		],
		displayOptions: show(['executeToolCalls']),
	},
	toolNames('Tools to Approve', 'approvalTools', {
		operation: ['executeToolCalls'],
		requireApproval: ['listed'],
	}),
	{
		displayName: 'Calls to Approve',
		name: 'approvalCalls',
		type: 'json',
		default:
			'={{ $json.toolCalls.filter(call => call.name.startsWith("delete")).map(call => call.id) }}',
		description:
			"The IDs of the item's pending calls that wait for a person: a list, or IDs separated by commas (true: all of them; false: none; anything else, or an ID the item does not have, fails the item, running nothing). The expression sees the item, whose toolCalls hold each call's ID, name and rawArguments (n8n expressions cannot read a key named arguments; use JSON.parse(call.rawArguments)).",
		displayOptions: { show: { operation: ['executeToolCalls'], requireApproval: ['expression'] } },
	},
	serverItemLocator({
		displayName: 'Tool',
		name: 'tool',
		operation: 'callTool',
		searchListMethod: 'searchTools',
		typed: { displayName: 'By Name', name: 'name', placeholder: 'e.g. read_file' },
	}),
	{
		displayName: 'Arguments From',
		name: 'argumentsSource',
		type: 'options',
		default: 'form',
		displayOptions: show(['callTool']),
		options: [
			{ name: 'Form', value: 'form', description: "Fields built from the tool's input schema" },
			{ name: 'JSON', value: 'json' },
		],
	},
	{
		displayName: 'Arguments',
		name: 'formArguments',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		displayOptions: { show: { operation: ['callTool'], argumentsSource: ['form'] } },
		typeOptions: {
			loadOptionsDependsOn: ['tool.value'],
			resourceMapper: {
				resourceMapperMethod: 'getToolArgumentFields',
				mode: 'add',
				fieldWords: { singular: 'argument', plural: 'arguments' },
				addAllFields: true,
				supportAutoMap: false,
				noFieldsError: 'This tool takes no arguments',
			},
		},
	},
	{
		displayName: 'Arguments (JSON)',
		name: 'jsonArguments',
		type: 'json',
		default: '{}',
		displayOptions: { show: { operation: ['callTool'], argumentsSource: ['json'] } },
	},
	...readResourceProperties,
	...getPromptProperties,
	...elicitationProperties,
	...samplingProperties,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Timeout (Ms)',
				name: 'timeoutMs',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 60000,
				description:
					'How long starting the server, listing its tools, one tool call or one request for resources or prompts may take without an answer. Each progress notification from the server restarts the wait of a call.',
			},
			{
				displayName: 'Max Total Time (Ms)',
				name: 'maxTotalMs',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 300000,
				description:
					'The longest one tool call may take, however much progress the server reports. 0: no limit.',
				displayOptions: callsOnly,
			},
			{
				displayName: 'Max Result Size (MB)',
				name: 'maxResultMb',
				type: 'number',
				typeOptions: { minValue: 0.001, numberPrecision: 3 },
				default: 10,
				description:
					'A larger tool result is dropped (status resultTooLarge) and the model is told so; the server keeps running',
				displayOptions: callsOnly,
			},
			{
				displayName: 'On Tool Error',
				name: 'onToolError',
				type: 'options',
				default: 'toModel',
				options: [
					{
						name: 'Send to the Model',
						value: 'toModel',
						description:
							'A tool message flagged as an error, saying what went wrong, so the model can correct itself',
					},
					{ name: 'Fail the Node', value: 'failNode' },
				],
				displayOptions: callsOnly,
			},
			{
				displayName: 'Items in Parallel',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_CONCURRENCY,
				description:
					'How many items (conversations) run at once. How the calls of one item run: Calls of One Item.',
				displayOptions: callsOnly,
			},
			{
				displayName: 'Calls of One Item',
				name: 'parallelCalls',
				type: 'options',
				default: 'readOnly',
				description:
					'Whether the calls a model asked for in one turn run at once. Their tool messages follow call order either way.',
				options: [
					{
						name: 'At Once When Every Tool Is Read-Only',
						value: 'readOnly',
						description:
							'When each tool called is annotated readOnlyHint by its server (nothing depends on their order); else in call order',
					},
					{ name: 'Always at Once', value: 'always' },
					{
						name: 'One After Another',
						value: 'never',
						description: 'In the order the model asked for them',
					},
				],
				displayOptions: { show: { '/operation': ['executeToolCalls'] } },
			},
			{
				displayName: 'Share Server Between Workflows',
				name: 'shareServer',
				type: 'boolean',
				default: false,
				description:
					"Whether workflows that use the same credential share one server process (and its state). Off: each workflow gets its own, so one workflow's data never reaches another.",
				displayOptions: { hide: { '/connectionType': ['workflows'] } },
			},
		],
	},
	...recordingProperties({
		name: 'dryRun',
		displayName: 'Dry Run',
		description:
			'Answer tools/list and each tools/call from a recorded trace instead of the server: arguments are still checked, no server is started. Stops at the first call that differs from the recording.',
		displayOptions: show(['listTools', 'executeToolCalls']),
	}),
	traceOptionsProperty,
];
