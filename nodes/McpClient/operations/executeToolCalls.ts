import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Conversation, ToolMessage } from '../../../lib/conversation/types';
import { readConversation } from '../../../lib/conversation/read';
import {
	ApprovalError,
	executeWithApproval,
	type ApprovalPolicy,
} from '../../../lib/execution/approval';
import { failedAfter, type Routed } from '../../shared/items';
import type { NodeRedaction } from '../../shared/traceOptions';
import { outputItemFor, serverLabelOf } from '../server';
import type { ServerSource } from '../sources';
import { savedNode } from '../../shared/parameters';
import { callContextFor } from './callContext';
import type { CallSettings } from './settings';

/**
 * The execute step for one item: its pending calls checked, run and answered in call order; or,
 * when the approval policy holds one, the item leaves by the second output with its calls held.
 */
export function executeToolCalls(
	context: IExecuteFunctions,
	servers: ServerSource,
	settings: CallSettings,
	approvalFor: (itemIndex: number) => ApprovalPolicy,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	const nodeName = savedNode(context).name;
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const conversation = readConversation(item.json);
		const output = outputItemFor(item);
		if (conversation.toolCalls.length === 0) {
			// With no call pending, decisions the item still carries are for none: kept, they would
			// be taken for a later call that happens to have the same id.
			const { approval: _settled, ...settled } = conversation;
			return { output: 0, item: { ...output, json: { ...settled } } };
		}

		const redaction = redactionFor(itemIndex);
		// Told apart inside the work: the connection wraps whatever its work throws.
		const notMatching = (error: unknown): never => {
			if (!(error instanceof ApprovalError)) throw error;
			throw new NodeOperationError(context.getNode(), error.message, {
				itemIndex,
				description:
					'The item came back to Execute Tool Calls with approval decisions that do not match the calls it held',
			});
		};
		const outcome = await servers.use({ itemIndex, conversation, redaction }, (server) =>
			executeWithApproval(
				conversation,
				{
					...callContextFor(context, settings, itemIndex, output, redaction, server),
					server,
					serverLabel: serverLabelOf(context, itemIndex, server.name),
					nodeName,
					tracePolicy: redaction.trace,
					parallelCalls: settings.parallelCalls,
				},
				approvalFor(itemIndex),
			).catch(notMatching),
		);
		if (outcome.held) return { output: 1, item: { ...output, json: { ...outcome.conversation } } };
		const { conversation: answered, statuses } = outcome;

		logCalls(context, nodeName, answered, conversation.messages.length, statuses, redaction);
		// A call a person declined is answered as they decided, not failed.
		const failed = statuses.findIndex((status) => status !== 'ok' && status !== 'declined');
		if (settings.onToolError === 'failNode' && failed !== -1) {
			const message = answered.messages[conversation.messages.length + failed];
			// Every call was answered: an item that goes on must carry the answers, not run them again.
			throw failedAfter(
				new NodeOperationError(context.getNode(), `Tool call failed (${statuses[failed]})`, {
					itemIndex,
					description: String(message.content),
				}),
				{ ...output, json: { ...answered } },
			);
		}
		return { output: 0, item: { ...output, json: { ...answered } } };
	};
}

/** One log line per call through n8n's logger; failed calls with the message the model gets, redacted. */
function logCalls(
	context: IExecuteFunctions,
	node: string,
	answered: Conversation,
	firstAnswer: number,
	statuses: string[],
	redaction: NodeRedaction,
): void {
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
