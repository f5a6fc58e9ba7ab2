import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { CallContext } from '../../../lib/execution/runToolCall';
import type { ToolServer } from '../../../lib/execution/toolServer';
import type { NodeRedaction } from '../../shared/traceOptions';
import { binaryStoreFor, validator } from '../server';
import { elicitationOf } from './elicitation';
import { callOptionsOf, type CallSettings } from './settings';

/**
 * How an item's tool calls are made: on this server, checked by the node's shared validator, their
 * binaries stored on the output item, with the node's call options and the item's redaction.
 */
export function callContextFor(
	context: IExecuteFunctions,
	settings: CallSettings,
	itemIndex: number,
	output: INodeExecutionData,
	redaction: NodeRedaction,
	server: ToolServer,
): CallContext {
	return {
		server,
		validator,
		storeBinary: binaryStoreFor(context, output),
		options: {
			...callOptionsOf(context, settings),
			elicitation: { ...elicitationOf(context, itemIndex), sampling: settings.sampling },
		},
		redactor: redaction.redactor,
	};
}
