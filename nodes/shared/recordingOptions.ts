import {
	NodeOperationError,
	type IDisplayOptions,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';
import type { Redactor } from '../../lib/json/redact';
import { readTrace, traceFileText, type RecordedEntry } from '../../lib/trace/read';
import { Recording } from '../../lib/trace/recording';

export type RecordingParameter = 'replay' | 'dryRun';

/**
 * Where a recorded trace comes from: a JSON value (an expression such as {{ $json.recording }}, or a
 * pasted trace), or a file in a binary property (read with Read Files, say). Named `replay` on the
 * Tool Calling Model node and `dryRun` on the MCP Client node.
 */
export function recordingProperties(options: {
	name: RecordingParameter;
	displayName: string;
	description: string;
	displayOptions?: IDisplayOptions;
}): INodeProperties[] {
	const { name, displayOptions } = options;
	const when = (source: string): IDisplayOptions => ({
		...displayOptions,
		show: { ...displayOptions?.show, [name]: [source] },
	});
	return [
		{
			displayName: options.displayName,
			name,
			type: 'options',
			noDataExpression: true,
			default: 'off',
			options: [
				{ name: 'Off', value: 'off' },
				{
					name: 'From JSON',
					value: 'json',
					description:
						'A trace given as JSON: an expression such as {{ $json.recording }}, or pasted',
				},
				{
					name: 'From a File (Binary)',
					value: 'binary',
					description: 'A trace file (.json or .jsonl) in a binary property of the item',
				},
			],
			description: options.description,
			...(displayOptions && { displayOptions }),
		},
		{
			displayName: 'Recorded Trace',
			name: `${name}Trace`,
			type: 'json',
			default: '',
			required: true,
			description: 'An item with a trace, a list of trace entries, or JSON Lines',
			displayOptions: when('json'),
		},
		{
			displayName: 'Binary Property',
			name: `${name}BinaryProperty`,
			type: 'string',
			default: 'data',
			required: true,
			displayOptions: when('binary'),
		},
	];
}

/** Whether the node answers from recordings: chosen for the whole execution (no expression). */
export function answersFromRecording(
	context: IExecuteFunctions,
	name: RecordingParameter,
): boolean {
	return context.getNodeParameter(name, 0, 'off') !== 'off';
}

export type RecordingReader = (itemIndex: number, redactor: Redactor) => Promise<Recording>;

/**
 * Each item's recording, for a node that answers from recordings. A trace that many items share
 * (a pasted one, or the same file) is read and parsed once per execution, not once per item.
 */
export function recordingReader(
	context: IExecuteFunctions,
	name: RecordingParameter,
): RecordingReader {
	const parsed = new Map<unknown, RecordedEntry[]>();
	const node = context.getNode();
	return async (itemIndex, redactor) => {
		const source = context.getNodeParameter(name, itemIndex) as 'json' | 'binary';
		try {
			const value =
				source === 'json'
					? context.getNodeParameter(`${name}Trace`, itemIndex)
					: traceFileText(
							await context.helpers.getBinaryDataBuffer(
								itemIndex,
								context.getNodeParameter(`${name}BinaryProperty`, itemIndex) as string,
							),
						);
			const entries = parsed.get(value) ?? readTrace(value);
			parsed.set(value, entries);
			// What the run sends now is redacted as its trace entry would be, payload paths included.
			return new Recording(
				entries,
				node.name,
				(json) => (redactor.all({ payload: json }) as { payload: typeof json }).payload,
			);
		} catch (error) {
			throw new NodeOperationError(
				node,
				`The recorded trace could not be read: ${(error as Error).message}`,
				{ itemIndex },
			);
		}
	};
}
