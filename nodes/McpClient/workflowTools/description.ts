import type { INodePropertyOptions, INodeProperties } from 'n8n-workflow';

/** The Connection that offers n8n workflows as tools instead of an MCP server's. */
export const WORKFLOWS_CONNECTION: INodePropertyOptions = {
	name: 'n8n Workflows as Tools',
	value: 'workflows',
	description:
		"Offer workflows of this n8n as tools; each call runs its workflow as a sub-workflow (its 'When Executed by Another Workflow' trigger)",
};

const forWorkflows = (operation: string[]) => ({
	show: { connectionType: ['workflows'], operation },
});

/** The parameters of the workflow tool source: which workflows, as which tools, and how deep calls may nest. */
export const workflowToolProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		default: 'listTools',
		displayOptions: { show: { connectionType: ['workflows'] } },
		options: [
			{
				name: 'List Tools',
				value: 'listTools',
				action: 'List workflows as tools',
				description: 'Add the chosen workflows as tools to each conversation (the register step)',
			},
			{
				name: 'Execute Tool Calls',
				value: 'executeToolCalls',
				action: 'Execute the pending calls of workflow tools',
				description:
					"Check each pending call of a workflow tool, run its workflow as a sub-workflow, and append the workflow's output",
			},
		],
	},
	{
		displayName: 'Workflow Tools',
		name: 'workflowTools',
		type: 'fixedCollection',
		placeholder: 'Add Workflow Tool',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		displayOptions: forWorkflows(['listTools']),
		options: [
			{
				displayName: 'Workflow Tool',
				name: 'tool',
				values: [
					{
						displayName: 'Workflow',
						name: 'workflowId',
						type: 'workflowSelector',
						default: '',
						required: true,
						description:
							"The workflow a call runs: it starts at its 'When Executed by Another Workflow' trigger and its last node's items are the result",
					},
					{
						displayName: 'Tool Name',
						name: 'toolName',
						type: 'string',
						default: '',
						placeholder: 'e.g. look_up_order',
						description:
							"The name the model calls the tool by. Empty: the workflow's name (letters, digits, _ and -).",
					},
					{
						displayName: 'Tool Description',
						name: 'toolDescription',
						type: 'string',
						typeOptions: { rows: 2 },
						default: '',
						description:
							'What the tool does and when to use it, for the model. Empty: "Runs the n8n workflow <name>".',
					},
					{
						displayName: 'Input Schema From',
						name: 'inputSchemaFrom',
						type: 'options',
						default: 'trigger',
						options: [
							{
								name: "The Sub-Workflow's Trigger",
								value: 'trigger',
								description:
									"The fields and types its 'When Executed by Another Workflow' trigger defines, read into Trigger Inputs when this node is opened in the editor ('Accept all data': any object)",
							},
							{ name: 'JSON Schema', value: 'jsonSchema' },
						],
					},
					{
						displayName: 'Input Schema (JSON)',
						name: 'jsonSchema',
						type: 'json',
						default:
							'{\n  "type": "object",\n  "properties": {\n    "query": { "type": "string" }\n  },\n  "required": ["query"]\n}',
						description:
							'The JSON Schema of the arguments, an object; the arguments become the JSON of the one item the workflow gets',
						displayOptions: { show: { inputSchemaFrom: ['jsonSchema'] } },
					},
					{
						displayName: 'Read-Only',
						name: 'readOnly',
						type: 'boolean',
						default: false,
						description:
							'Whether the workflow only reads: its calls may run at once (Calls of One Item) and it is not held by Require Approval For: Tools Not Annotated Read-Only or Tools Annotated Destructive',
					},
				],
			},
		],
	},
	{
		displayName: 'Trigger Inputs',
		name: 'workflowInputs',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		description:
			"The inputs each workflow's trigger defines, read from the workflows when this node is opened (refresh it after changing a workflow); the model gives their values",
		displayOptions: forWorkflows(['listTools']),
		typeOptions: {
			loadOptionsDependsOn: ['workflowTools'],
			resourceMapper: {
				localResourceMapperMethod: 'getWorkflowToolInputs',
				valuesLabel: 'Trigger Inputs',
				mode: 'map',
				fieldWords: { singular: 'input', plural: 'inputs' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
	},
	{
		displayName: 'Max Workflow Depth',
		name: 'maxWorkflowDepth',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 3,
		description:
			'How many workflow tool calls may run inside one another: a sub-workflow that runs the tool loop again, whose call runs it again, is stopped at this depth and the model is told why',
		displayOptions: forWorkflows(['executeToolCalls']),
	},
];
