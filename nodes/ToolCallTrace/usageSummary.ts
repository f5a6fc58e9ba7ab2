import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { usageOfTrace, usageRow } from '../../lib/trace/usage';
import type { Routed } from '../shared/items';
import { traceFrom } from './trace';

/**
 * One row per conversation: what its trace says it used (rounds, model and tool calls, tokens by
 * kind, cost, time), in place of the item's json, ready for a sheet or a table.
 */
export function usageSummary(context: IExecuteFunctions) {
	return async (_item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const row = traceFrom(
			context,
			'The trace',
			context.getNodeParameter('trace', itemIndex),
			itemIndex,
			(trace) => usageRow(usageOfTrace(trace)),
		);
		return { output: 0, item: { json: row as unknown as IDataObject } };
	};
}
