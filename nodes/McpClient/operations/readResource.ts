import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import { redactReadResult } from '../../../lib/execution/redactResult';
import { readContents, readResultForTrace } from '../../../lib/execution/resources';
import type { McpServerConfig } from '../../../lib/mcp';
import { traceEntry } from '../../../lib/trace/entries';
import type { Routed } from '../../shared/items';
import type { NodeRedaction } from '../../shared/traceOptions';
import { serverAsker } from '../server';
import { serverItemLocator } from './serverItemLocator';
import { requestLimitsOf } from './settings';

export const readResourceProperties: INodeProperties[] = [
	serverItemLocator({
		displayName: 'Resource',
		name: 'resource',
		operation: 'readResource',
		searchListMethod: 'searchResources',
		typed: { displayName: 'By URI', name: 'uri', placeholder: 'e.g. file:///notes.txt' },
		description:
			'The resource to read. By URI takes expressions: a link a tool returned is {{ $json.resourceLinks[0].uri }} after Call Tool, {{ $json.messages.at(-1).resourceLinks[0].uri }} after Execute Tool Calls.',
	}),
];

/**
 * Read Resource: `resources/read` of one URI per item, its contents under `resource` (texts in the
 * JSON, JSON texts also parsed, blobs as binary data of the item), with a trace entry.
 */
export function readResource(
	context: IExecuteFunctions,
	config: McpServerConfig,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	const ask = serverAsker(context, config);
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const uri = String(
			context.getNodeParameter('resource', itemIndex, '', { extractValue: true }),
		).trim();
		if (uri === '') {
			throw new NodeOperationError(context.getNode(), 'Read Resource needs the URI of a resource', {
				itemIndex,
				description: 'Pick one from the list, or give its URI (an expression works too)',
			});
		}
		const redaction = redactionFor(itemIndex);
		const { conversation, output, result, server, storeBinary, timing } = await ask(
			item,
			itemIndex,
			async (connection) =>
				redactReadResult(
					await connection.readResource(uri, requestLimitsOf(context)),
					redaction.redactor,
				),
		);
		const contents = await readContents(result, storeBinary);
		const entry = traceEntry(
			'resources.read',
			timing(),
			{ server, uri, contentCount: contents.length },
			readResultForTrace(result, contents),
			redaction.trace,
		);
		output.json = {
			...conversation,
			resource: { uri, contents },
			trace: [...conversation.trace, entry],
		};
		return { output: 0, item: output };
	};
}
