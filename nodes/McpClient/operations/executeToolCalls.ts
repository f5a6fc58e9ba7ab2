import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Conversation, ToolMessage } from '../../../lib/conversation/types';
import { readConversation } from '../../../lib/conversation/read';
import { executePendingCalls } from '../../../lib/execution/executeCalls';
import type { Routed } from '../../shared/items';
import type { NodeRedaction } from '../../shared/traceOptions';
import { binaryStoreFor, outputItemFor, serverLabelOf, validator } from '../server';
import type { ServerSource } from '../sources';
import { elicitationOf } from './elicitation';
import { callOptionsOf, type CallSettings } from './settings';

/** The execute step for one item: its pending calls checked, run and answered in call order. */
export function executeToolCalls(
	context: IExecuteFunctions,
	servers: ServerSource,
	settings: CallSettings,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const conversation = readConversation(item.json);
		const output = outputItemFor(item);
		if (conversation.toolCalls.length === 0)
			return { output: 0, item: { ...output, json: { ...conversation } } };

		const redaction = redactionFor(itemIndex);
		const { conversation: answered, statuses } = await servers.use(
			{ itemIndex, conversation, redaction },
			(server) =>
				executePendingCalls(conversation, {
					server,
					serverLabel: serverLabelOf(context, itemIndex, server.name),
					nodeName: context.getNode().name,
					validator,
					storeBinary: binaryStoreFor(context, output),
					options: {
						...callOptionsOf(context, settings),
						elicitation: elicitationOf(context, itemIndex),
					},
					redactor: redaction.redactor,
					tracePolicy: redaction.trace,
					parallelCalls: settings.parallelCalls,
				}),
		);

		logCalls(context, answered, conversation.messages.length, statuses, redaction);
		const failed = statuses.findIndex((status) => status !== 'ok');
		if (settings.onToolError === 'failNode' && failed !== -1) {
			const message = answered.messages[conversation.messages.length + failed];
			throw new NodeOperationError(context.getNode(), `Tool call failed (${statuses[failed]})`, {
				itemIndex,
				description: String(message.content),
			});
		}
		return { output: 0, item: { ...output, json: { ...answered } } };
	};
}

/** One log line per call through n8n's logger; failed calls with the message the model gets, redacted. */
function logCalls(
	context: IExecuteFunctions,
	answered: Conversation,
	firstAnswer: number,
	statuses: string[],
	redaction: NodeRedaction,
): void {
	const node = context.getNode().name;
	statuses.forEach((status, index) => {
		const message = answered.messages[firstAnswer + index] as ToolMessage;
		if (status === 'ok')
			context.logger.debug(
				redaction.text(`${node}: ${message.name} (${message.tool_call_id}) answered`),
			);
		else
			context.logger.warn(
				redaction.text(
					`${node}: ${message.name} (${message.tool_call_id}) ended ${status}: ${message.content}`,
				),
			);
	});
}
