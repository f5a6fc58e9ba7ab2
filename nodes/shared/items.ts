import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { mapConcurrently } from '../../lib/util/concurrency';
import { redactedError } from './redactedError';
import { savedNode } from './parameters';
import { nodeRedactions, type NodeRedaction } from './traceOptions';

/** Items in Parallel when a node's option is not set. */
export const DEFAULT_CONCURRENCY = 4;

export interface Routed {
	/** Index of the node output the item leaves by. */
	output: number;
	item: INodeExecutionData;
}

/** The item as it leaves when it fails after work that must not be lost; see failedAfter. */
const itemOnFailure = new WeakMap<object, INodeExecutionData>();

/**
 * Marks an item's error as coming after work done (tool calls run and answered): under "continue
 * on fail" the item leaves as `done` with the error, not as it came, which would run that work
 * again. (n8n's error output takes the input item and the error only.)
 */
export function failedAfter<E extends Error>(error: E, done: INodeExecutionData): E {
	itemOnFailure.set(error, done);
	return error;
}

/**
 * Runs every input item (not just the first), `concurrency` at a time, keeping their order and
 * pairing each result with its input. A failing item stops the node, or with "continue on fail"
 * leaves by `errorOutput` as its own json plus `error` (by n8n's error output when the node has
 * one), so nothing is lost. Every item and error
 * passes the item's redaction on the way out: no secret leaves the node.
 */
export async function processItems(
	context: IExecuteFunctions,
	outputCount: number,
	concurrency: number,
	processItem: (item: INodeExecutionData, itemIndex: number) => Promise<Routed>,
	redactionFor: (itemIndex: number) => NodeRedaction,
	errorOutput = 0,
): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	const routed = await mapConcurrently(
		items,
		concurrency,
		async (item, itemIndex): Promise<Routed> => {
			const redaction = redactionFor(itemIndex);
			try {
				if (redaction.unreadable) throw redaction.unreadable;
				const result = await processItem(item, itemIndex);
				return {
					output: result.output,
					item: {
						...result.item,
						json: redaction.item(result.item.json),
						pairedItem: { item: itemIndex },
					},
				};
			} catch (error) {
				const done = itemOnFailure.get(error as object);
				const nodeError = redactedError(asNodeError(context, error, itemIndex), redaction);
				if (!context.continueOnFail()) throw nodeError;
				// Continue (using error output): n8n moves an item whose json holds only `error` to the
				// error output, its input item's json merged back in (and nothing else it could carry).
				if (savedNode(context).onError === 'continueErrorOutput')
					return {
						output: errorOutput,
						item: {
							json: { error: nodeError.message },
							binary: item.binary,
							pairedItem: { item: itemIndex },
						},
					};
				const left = done ?? item;
				return {
					output: errorOutput,
					item: {
						json: redaction.item({ ...left.json, error: nodeError.message }),
						binary: left.binary,
						pairedItem: { item: itemIndex },
					},
				};
			}
		},
	);
	const outputs: INodeExecutionData[][] = Array.from({ length: outputCount }, () => []);
	for (const { output, item } of routed) outputs[output].push(item);
	return outputs;
}

/**
 * What a node does when the work before its items (reading a credential, the server it names)
 * failed: under "continue on fail" every item leaves by `errorOutput` with that error, as each
 * would failing on its own; n8n would send them all on unchanged by the first output (the Tool
 * Calling Model's Tool Calls, which loops back to it without end). Otherwise the node fails.
 */
export async function failEveryItem(
	context: IExecuteFunctions,
	error: unknown,
	outputCount: number,
	errorOutput = 0,
): Promise<INodeExecutionData[][]> {
	if (!context.continueOnFail()) throw error;
	const failing = () => Promise.reject(error);
	return processItems(
		context,
		outputCount,
		Infinity,
		failing,
		nodeRedactions(context, []),
		errorOutput,
	);
}

function asNodeError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError) return error;
	if (error instanceof NodeOperationError) {
		if (error.context.itemIndex !== undefined) return error;
		// One error can fail several items (a listing they share): each gets its own, naming it,
		// with all the first holds (its cause, stack and level).
		const copy = Object.create(
			Object.getPrototypeOf(error),
			Object.getOwnPropertyDescriptors(error),
		) as NodeOperationError;
		copy.context = { ...error.context, itemIndex };
		return copy;
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
