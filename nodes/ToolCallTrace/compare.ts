import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { diffStories } from '../../lib/trace/diff';
import { traceFileText } from '../../lib/trace/read';
import { storyOf } from '../../lib/trace/story';
import type { Routed } from '../shared/items';
import { traceFrom } from './trace';

/** The key of the item's json that holds the comparison. */
export const DIFF_KEY = 'traceDiff';
const DIVERGED_OUTPUT = 1;

/**
 * Compares each item's trace (left) with the expected one (right) and puts the result on the item;
 * with `routeDiverged`, items whose traces diverge leave by the second output.
 */
export function compare(context: IExecuteFunctions, routeDiverged: boolean) {
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const actual = traceFrom(
			context,
			'The trace',
			context.getNodeParameter('trace', itemIndex),
			itemIndex,
			storyOf,
		);
		const expectedSource = await expectedTraceSource(context, item, itemIndex);
		const expected = traceFrom(context, 'The expected trace', expectedSource, itemIndex, storyOf);
		const diff = diffStories(actual, expected);
		return {
			output: routeDiverged && !diff.equal ? DIVERGED_OUTPUT : 0,
			item: {
				json: { ...item.json, [DIFF_KEY]: diff as unknown as IDataObject },
				binary: item.binary,
			},
		};
	};
}

async function expectedTraceSource(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
): Promise<unknown> {
	const source = context.getNodeParameter('expectedSource', itemIndex) as
		'json' | 'binary' | 'field';
	if (source === 'json') return context.getNodeParameter('expectedTrace', itemIndex);
	if (source === 'binary') {
		const property = context.getNodeParameter('expectedBinaryProperty', itemIndex) as string;
		context.helpers.assertBinaryData(itemIndex, property);
		return traceFileText(await context.helpers.getBinaryDataBuffer(itemIndex, property));
	}
	const path = context.getNodeParameter('expectedField', itemIndex) as string;
	const value = path
		.split('.')
		.reduce<unknown>((inner, key) => (inner as IDataObject | undefined)?.[key], item.json);
	if (value === undefined)
		throw new NodeOperationError(context.getNode(), `The item has no field "${path}"`, {
			itemIndex,
		});
	return value;
}
