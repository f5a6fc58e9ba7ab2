import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import { readConversation } from '../../../lib/conversation/read';
import { executePendingCalls } from '../../../lib/execution/executeCalls';
import { redact } from '../../../lib/json/redact';
import { secretsOf, type McpServerConfig } from '../../../lib/mcp';
import type { Routed } from '../../shared/items';
import { binaryStoreFor, pooledServer, serverLabelOf, validator, withConnection } from '../server';
import type { CallSettings } from './settings';

/** The execute step for one item: its pending calls checked, run and answered in call order. */
export function executeToolCalls(context: IExecuteFunctions, config: McpServerConfig, settings: CallSettings) {
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const conversation = readConversation(item.json);
		const output: INodeExecutionData = { json: {}, ...(item.binary && { binary: { ...item.binary } }) };
		if (conversation.toolCalls.length === 0) return { output: 0, item: { ...output, json: { ...conversation } } };

		const { conversation: answered, statuses } = await withConnection(context, config, (connection) => {
			const server = pooledServer(config, connection);
			return executePendingCalls(conversation, {
				server,
				serverLabel: serverLabelOf(context, itemIndex, connection),
				nodeName: context.getNode().name,
				validator,
				storeBinary: binaryStoreFor(context, output),
				options: { timeoutMs: settings.timeoutMs, signal: context.getExecutionCancelSignal() },
				listServerTools: () => server.listTools(),
			});
		});

		const failed = statuses.findIndex((status) => status !== 'ok');
		if (settings.onToolError === 'failNode' && failed !== -1) {
			const message = answered.messages[conversation.messages.length + failed];
			throw new NodeOperationError(context.getNode(), `Tool call failed (${statuses[failed]})`, {
				itemIndex,
				description: redact(String(message.content), secretsOf(config)),
			});
		}
		// A server may echo what it was given (its token, its environment): none of it leaves the node.
		return { output: 0, item: { ...output, json: redact({ ...answered }, secretsOf(config)) } };
	};
}
