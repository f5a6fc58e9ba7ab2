import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { toJsonLines } from '../../lib/trace/jsonl';
import type { Routed } from '../shared/items';
import { traceFrom } from './trace';

export const EXPORT_FILE_NAME = 'trace.jsonl';
export const EXPORT_MIME_TYPE = 'application/x-ndjson';

/** Adds each item's trace as a JSON Lines file, one entry per line, to its binary data. */
export function exportJsonLines(context: IExecuteFunctions) {
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const trace = traceFrom(
			context,
			'The trace',
			context.getNodeParameter('trace', itemIndex),
			itemIndex,
			(entries) => entries,
		);
		const property = context.getNodeParameter('binaryPropertyName', itemIndex) as string;
		const file = await context.helpers.prepareBinaryData(
			Buffer.from(toJsonLines(trace), 'utf8'),
			EXPORT_FILE_NAME,
			EXPORT_MIME_TYPE,
		);
		return { output: 0, item: { json: item.json, binary: { ...item.binary, [property]: file } } };
	};
}
