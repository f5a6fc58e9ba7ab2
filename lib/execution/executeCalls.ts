import type {
	Conversation,
	PendingToolCall,
	Tool,
	ToolMessage,
	TraceEntry,
} from '../conversation/types';
import { toConversationTool } from '../conversation/tools';
import { traceEntry, type TracePolicy } from '../trace/entries';
import { withBinaryReferences } from './resultMessage';
import { serverAskTrace } from './serverAsks';
import { runToolCall, type CallContext, type CallOutcome, type CallStatus } from './runToolCall';
import type { ListingToolServer } from './toolServer';

export interface ExecutionContext extends CallContext {
	/** The server: its tool list is asked only when a call names a tool the item does not carry. */
	server: ListingToolServer;
	serverLabel: string;
	nodeName: string;
	tracePolicy: TracePolicy;
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
export async function executePendingCalls(
	conversation: Conversation,
	context: ExecutionContext,
): Promise<CallsExecuted> {
	const answered: ToolMessage[] = [];
	const remaining: PendingToolCall[] = [];
	const trace: TraceEntry[] = [];
	const statuses: CallStatus[] = [];
	const round = conversation.rounds ?? 0;
	for (const call of conversation.toolCalls) {
		const itemTool = conversation.tools.find((tool) => tool.name === call.name);
		if (itemTool && itemTool.server !== context.serverLabel) {
			remaining.push(call);
			continue;
		}
		const startedAt = Date.now();
		const outcome = await runToolCall(
			call,
			async () => itemTool ?? (await findServerTool(call.name, context)),
			context,
		);
		answered.push(outcome.message);
		statuses.push(outcome.status);
		const timing = { node: context.nodeName, round, startedAt };
		trace.push(
			...callTrace(call, outcome, timing, {
				server: context.serverLabel,
				policy: context.tracePolicy,
				replayed: context.server.replayed === true,
			}),
		);
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

/** Where a call's trace entries come from: the server's label, the trace policy, and whether a recording answered. */
export interface CallTraceSource {
	server: string;
	policy: TracePolicy;
	replayed: boolean;
}

/**
 * arguments.validation, then, when the server was called, tools.call.request, a server.request for
 * each request the server made during the call, and tools.call.result.
 */
export function callTrace(
	call: PendingToolCall,
	outcome: CallOutcome,
	timing: { node: string; round: number; startedAt: number },
	{ server, policy, replayed }: CallTraceSource,
): TraceEntry[] {
	const names = {
		callId: call.id,
		tool: call.name,
		...(outcome.tool?.mcpName &&
			outcome.tool.mcpName !== call.name && { mcpName: outcome.tool.mcpName }),
	};
	const { check } = outcome;
	const entries = [
		traceEntry(
			'arguments.validation',
			timing,
			{
				...names,
				status: check.status,
				...(check.issues && { issues: check.issues }),
				...(check.reason && { reason: check.reason }),
			},
			check.arguments,
			policy,
		),
	];
	if (outcome.called) {
		const { startedAt } = outcome.called;
		const request = { name: outcome.tool?.mcpName ?? call.name, arguments: outcome.sentArguments };
		entries.push(
			traceEntry(
				'tools.call.request',
				{ ...timing, startedAt },
				{ server, ...names },
				request,
				policy,
				replayed,
			),
		);
		entries.push(...serverAskTrace(outcome.serverAsks, timing, { server, ...names }, policy));
	}
	const result = outcome.result
		? withBinaryReferences(outcome.result, outcome.message.attachments)
		: { error: outcome.message.content };
	const resultTiming = outcome.called
		? { ...timing, ...outcome.called }
		: { ...timing, durationMs: Date.now() - timing.startedAt };
	entries.push(
		traceEntry(
			'tools.call.result',
			resultTiming,
			{ server, ...names, status: outcome.status },
			result,
			policy,
			replayed && outcome.called !== undefined,
		),
	);
	return entries;
}

async function findServerTool(name: string, context: ExecutionContext): Promise<Tool | undefined> {
	const listed = (await context.server.listTools()).find((tool) => tool.name === name);
	return listed && toConversationTool(listed, listed.name, context.serverLabel);
}
