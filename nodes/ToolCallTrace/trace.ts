import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { readTrace, type RecordedEntry } from '../../lib/trace/read';

/** Reads a trace and uses it; what goes wrong names which trace (`which`) it was. */
export function traceFrom<T>(
	context: IExecuteFunctions,
	which: string,
	source: unknown,
	itemIndex: number,
	use: (trace: RecordedEntry[]) => T,
): T {
	try {
		return use(readTrace(source));
	} catch (error) {
		throw new NodeOperationError(context.getNode(), `${which}: ${(error as Error).message}`, {
			itemIndex,
		});
	}
}
