import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { Conversation, ToolMessage } from '../../../lib/conversation/types';
import { readConversation } from '../../../lib/conversation/read';
import { executePendingCalls, type ExecutionContext } from '../../../lib/execution/executeCalls';
import type { McpServerConfig } from '../../../lib/mcp';
import type { Recording } from '../../../lib/trace/recording';
import type { Routed } from '../../shared/items';
import { recordingReader } from '../../shared/recordingOptions';
import type { NodeRedaction } from '../../shared/traceOptions';
import { binaryStoreFor, pooledServer, serverLabelOf, validator, withConnection } from '../server';
import type { CallSettings } from './settings';

/** The execute step for one item: its pending calls checked, run and answered in call order. */
export function executeToolCalls(
	context: IExecuteFunctions,
	config: McpServerConfig | undefined,
	settings: CallSettings,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	const recordingOf = recordingReader(context, 'dryRun');
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const conversation = readConversation(item.json);
		const output: INodeExecutionData = {
			json: {},
			...(item.binary && { binary: { ...item.binary } }),
		};
		if (conversation.toolCalls.length === 0)
			return { output: 0, item: { ...output, json: { ...conversation } } };

		const redaction = redactionFor(itemIndex);
		const recording = await recordingOf(itemIndex, redaction.trace.redactor);
		const shared: Omit<ExecutionContext, 'server' | 'serverLabel' | 'listServerTools'> = {
			nodeName: context.getNode().name,
			validator,
			storeBinary: binaryStoreFor(context, output, redaction.text),
			options: { timeoutMs: settings.timeoutMs, signal: context.getExecutionCancelSignal() },
			tracePolicy: redaction.trace,
		};
		const { conversation: answered, statuses } = recording
			? await executePendingCalls(
					conversation,
					dryRunContext(context, itemIndex, conversation, recording, shared),
				)
			: await withConnection(context, config!, (connection) => {
					const server = pooledServer(config!, connection);
					return executePendingCalls(conversation, {
						...shared,
						server,
						serverLabel: serverLabelOf(context, itemIndex, connection),
						listServerTools: () => server.listTools(),
					});
				});

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

/**
 * A dry run: each call is checked as in a real run, then answered with the recorded result, and
 * no server is started. The server label is the configured one, or the one the item's tools carry.
 */
function dryRunContext(
	context: IExecuteFunctions,
	itemIndex: number,
	conversation: Conversation,
	recording: Recording,
	shared: Omit<ExecutionContext, 'server' | 'serverLabel' | 'listServerTools'>,
): ExecutionContext {
	const configured = (context.getNodeParameter('serverLabel', itemIndex, '') as string).trim();
	const calledTool = conversation.tools.find(
		(tool) =>
			tool.server !== undefined && conversation.toolCalls.some((call) => call.name === tool.name),
	);
	const serverFor = (call: { id: string; name: string }, round: number) => ({
		callTool: async (name: string, args: Record<string, unknown>) =>
			recording.toolResult(round, call.id, name, args),
		stderrTail: () => '',
	});
	return {
		...shared,
		serverLabel: configured || calledTool?.server || '',
		server: serverFor({ id: '', name: '' }, conversation.rounds ?? 0),
		serverFor,
		listServerTools: async () => recording.toolsList(conversation.rounds ?? 0).tools,
	};
}
