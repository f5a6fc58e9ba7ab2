import type { INodeProperties } from 'n8n-workflow';

const show = (operation: string[]) => ({ show: { operation } });

const ACCEPTED = "an item's json, a list of trace entries, or the text of either or of JSON Lines";

export const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		default: 'compare',
		options: [
			{
				name: 'Compare',
				value: 'compare',
				action: 'Compare a trace with an expected one',
				description: 'Step by step: tools offered, tool chosen, arguments, results, final answer',
			},
			{
				name: 'Export JSON Lines',
				value: 'exportJsonLines',
				action: 'Export a trace as JSON Lines',
				description: 'The trace as a file with one entry per line, to store or to compare later',
			},
			{
				name: 'Summarize Usage',
				value: 'usageSummary',
				action: 'Summarize what a conversation used',
				description:
					'One row per conversation: rounds, model and tool calls, tokens by kind, cost and time',
			},
		],
	},
	{
		displayName: 'Trace',
		name: 'trace',
		type: 'json',
		default: '={{ $json.trace }}',
		description: `The trace to use: by default the item's own. Also accepted: ${ACCEPTED}.`,
	},
	{
		displayName: 'Expected Trace From',
		name: 'expectedSource',
		type: 'options',
		default: 'json',
		displayOptions: show(['compare']),
		options: [
			{ name: 'JSON', value: 'json', description: 'Pasted, or from an expression' },
			{
				name: 'File (Binary Property)',
				value: 'binary',
				description: 'A trace file read into the item, e.g. by Read/Write Files from Disk',
			},
			{ name: 'Field', value: 'field', description: "A field of the item's JSON" },
		],
	},
	{
		displayName: 'Expected Trace',
		name: 'expectedTrace',
		type: 'json',
		default: '[]',
		description: `The trace a good run leaves: ${ACCEPTED}`,
		displayOptions: { show: { operation: ['compare'], expectedSource: ['json'] } },
	},
	{
		displayName: 'Input Binary Field',
		name: 'expectedBinaryProperty',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the expected trace',
		displayOptions: { show: { operation: ['compare'], expectedSource: ['binary'] } },
	},
	{
		displayName: 'Expected Trace Field',
		name: 'expectedField',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. expected.trace',
		description: 'The field holding the expected trace; dots lead into nested objects',
		displayOptions: { show: { operation: ['compare'], expectedSource: ['field'] } },
	},
	{
		displayName: 'Route Diverged Items Separately',
		name: 'routeDiverged',
		type: 'boolean',
		default: false,
		description:
			'Whether items whose trace diverges leave by a second output, Diverged, so the workflow can alert',
		displayOptions: show(['compare']),
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions: show(['exportJsonLines']),
	},
];
