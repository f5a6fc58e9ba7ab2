import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type ResourceMapperValue,
} from 'n8n-workflow';
import { parseToolArguments } from '../../../lib/conversation/arguments';
import { toConversationTool } from '../../../lib/conversation/tools';
import type { JsonSchema } from '../../../lib/conversation/types';
import { callTrace } from '../../../lib/execution/executeCalls';
import { runToolCall } from '../../../lib/execution/runToolCall';
import type { McpServerConfig } from '../../../lib/mcp';
import { formValuesToArguments } from '../../../lib/schema/formFields';
import { failedAfter, type Routed } from '../../shared/items';
import { savedNode } from '../../shared/parameters';
import type { NodeRedaction } from '../../shared/traceOptions';
import { outputItemFor, withConnection } from '../server';
import { callContextFor } from './callContext';
import type { CallSettings } from './settings';

/** One tool, no model: the same checks, result handling and trace as Execute Tool Calls. */
export function callTool(
	context: IExecuteFunctions,
	config: McpServerConfig,
	settings: CallSettings,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const toolName = context.getNodeParameter('tool', itemIndex, '', {
			extractValue: true,
		}) as string;
		const output = outputItemFor(item);
		const started = Date.now();

		const redaction = redactionFor(itemIndex);
		const { call, outcome, server } = await withConnection(context, config, async (connection) => {
			const listed = await connection.findTool(toolName);
			const tool = listed && toConversationTool(listed, listed.name, connection.server.name);
			const args = argumentsOf(context, itemIndex, tool?.inputSchema);
			const call = {
				id: `call_${itemIndex}`,
				name: toolName,
				arguments: args,
				rawArguments: JSON.stringify(args),
			};
			const outcome = await runToolCall(
				call,
				async () => tool,
				callContextFor(context, settings, itemIndex, output, redaction, connection),
			);
			return { call, outcome, server: connection.server.name };
		});

		const { message } = outcome;
		const timing = { node: savedNode(context).name, round: 0, startedAt: started };
		output.json = {
			tool: toolName,
			arguments: outcome.sentArguments ?? null,
			status: outcome.status,
			isError: message.isError ?? false,
			result: message.content,
			...(message.structuredContent && { structuredContent: message.structuredContent }),
			...(message.attachments && { attachments: message.attachments }),
			...(message.resourceLinks && { resourceLinks: message.resourceLinks }),
			durationMs: Date.now() - started,
			trace: callTrace(call, outcome, timing, {
				server,
				policy: redaction.trace,
				replayed: false,
			}),
		};
		if (settings.onToolError === 'failNode' && outcome.status !== 'ok') {
			// The tool ran: under continue-on-fail the item goes on with what it said and its trace.
			const error = new NodeOperationError(
				context.getNode(),
				`Tool call failed (${outcome.status})`,
				{
					itemIndex,
					description: message.content,
				},
			);
			throw failedAfter(error, output);
		}
		return { output: 0, item: output };
	};
}

function argumentsOf(
	context: IExecuteFunctions,
	itemIndex: number,
	inputSchema: JsonSchema | undefined,
): Record<string, unknown> {
	if (context.getNodeParameter('argumentsSource', itemIndex) === 'json') {
		const raw = context.getNodeParameter('jsonArguments', itemIndex, '{}') as unknown;
		const parsed = parseToolArguments(raw);
		if (!parsed.ok)
			throw new NodeOperationError(context.getNode(), `Arguments (JSON): ${parsed.error}`, {
				itemIndex,
			});
		return parsed.value;
	}
	const form = context.getNodeParameter('formArguments', itemIndex) as ResourceMapperValue;
	return formValuesToArguments(form.value ?? {}, inputSchema ?? {});
}
