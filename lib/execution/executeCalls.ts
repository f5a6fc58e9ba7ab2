import type { Conversation, PendingToolCall, Tool, ToolMessage, TraceEntry } from '../conversation/types';
import { toConversationTool } from '../conversation/tools';
import type { McpTool } from '../mcp/connection';
import { runToolCall, type CallContext, type CallStatus } from './runToolCall';

export interface ExecutionContext extends CallContext {
	serverLabel: string;
	nodeName: string;
	/** The server's live tool list, asked only when a call names a tool the item does not carry. */
	listServerTools(): Promise<McpTool[]>;
}

export interface CallsExecuted {
	conversation: Conversation;
	statuses: CallStatus[];
}

/**
 * Answers the item's pending calls that belong to this server, one after another in call order
 * (their side effects happen in the order the model asked for them). Calls for tools of other
 * servers stay pending for the executor of that server.
 */
export async function executePendingCalls(conversation: Conversation, context: ExecutionContext): Promise<CallsExecuted> {
	const answered: ToolMessage[] = [];
	const remaining: PendingToolCall[] = [];
	const trace: TraceEntry[] = [];
	const statuses: CallStatus[] = [];
	for (const call of conversation.toolCalls) {
		const itemTool = conversation.tools.find((tool) => tool.name === call.name);
		if (itemTool && itemTool.server !== context.serverLabel) {
			remaining.push(call);
			continue;
		}
		const started = Date.now();
		const outcome = await runToolCall(call, async () => itemTool ?? (await findServerTool(call.name, context)), context);
		const { tool } = outcome;
		answered.push(outcome.message);
		statuses.push(outcome.status);
		trace.push({
			step: 'mcp.callTool',
			node: context.nodeName,
			at: new Date(started).toISOString(),
			durationMs: Date.now() - started,
			server: context.serverLabel,
			callId: call.id,
			tool: call.name,
			...(tool?.mcpName && tool.mcpName !== call.name ? { mcpName: tool.mcpName } : {}),
			status: outcome.status,
			...(outcome.sentArguments ? { arguments: outcome.sentArguments } : {}),
			...(outcome.validationSkipped ? { validationSkipped: outcome.validationSkipped } : {}),
		});
	}
	return {
		conversation: {
			...conversation,
			messages: [...conversation.messages, ...answered],
			toolCalls: remaining,
			trace: [...conversation.trace, ...trace],
		},
		statuses,
	};
}

async function findServerTool(name: string, context: ExecutionContext): Promise<Tool | undefined> {
	const listed = (await context.listServerTools()).find((tool) => tool.name === name);
	return listed && toConversationTool(listed, listed.name, context.serverLabel);
}
