import type { Conversation, PendingToolCall, Tool, TraceEntry } from '../conversation/types';
import { toConversationTool } from '../conversation/tools';
import { traceEntry, type TracePolicy } from '../trace/entries';
import { withToolCalls } from '../usage/totals';
import { mapConcurrently } from '../util/concurrency';
import { withBinaryReferences } from './resultMessage';
import { serverAskTrace } from './serverAsks';
import {
	runToolCall,
	unknownToolText,
	type ArgumentCheck,
	type CallContext,
	type CallOutcome,
	type CallStatus,
} from './runToolCall';
import type { ListingToolServer } from './toolServer';

/**
 * When one item's calls run at once: `readOnly` when every tool called is annotated `readOnlyHint`
 * on the item (nothing it does depends on the order), `always`, or `never`.
 */
export type ParallelCalls = 'readOnly' | 'always' | 'never';

/** At most this many calls of one item in flight. */
const MAX_CALLS_IN_FLIGHT = 8;

export interface ExecutionContext extends CallContext {
	/** The server: its tool list is asked only when a call names a tool the item does not carry. */
	server: ListingToolServer;
	serverLabel: string;
	nodeName: string;
	tracePolicy: TracePolicy;
	/** Default `never`. */
	parallelCalls?: ParallelCalls;
	/** Calls a person declined, by id: answered with this text instead of running. */
	declined?: ReadonlyMap<string, string>;
}

export interface CallsExecuted {
	conversation: Conversation;
	statuses: CallStatus[];
}

/**
 * Answers the item's pending calls that belong to this server, one after another in call order
 * (their side effects happen in the order the model asked for them), or at once where
 * `parallelCalls` allows; either way the tool messages and trace entries follow call order. Calls
 * for tools of other servers stay pending for the executor of that server.
 */
export async function executePendingCalls(
	conversation: Conversation,
	context: ExecutionContext,
): Promise<CallsExecuted> {
	const { mine, remaining } = callsOfServer(conversation, context.serverLabel);
	const round = conversation.rounds ?? 0;
	const inFlight = runsAtOnce(
		mine.map(({ itemTool }) => itemTool),
		context.parallelCalls,
	)
		? MAX_CALLS_IN_FLIGHT
		: 1;
	const sharedIds = idsSharedByCalls(conversation.toolCalls);
	const answers = await mapConcurrently(mine, inFlight, async ({ call, itemTool }) => {
		const startedAt = Date.now();
		const declined = context.declined?.get(call.id);
		const outcome = sharedIds.has(call.id)
			? notRunOutcome(
					call,
					'invalidArguments',
					`The call id '${call.id}' is given to more than one call of this turn, so their answers could not be told apart: none of them ran. Make the calls again, each with an id of its own.`,
					'its id is shared with another call',
				)
			: declined !== undefined
				? notRunOutcome(call, 'declined', declined, 'a person declined the call')
				: wasNotOffered(conversation, itemTool)
					? notOffered(call)
					: await runToolCall(
							call,
							async () => itemTool ?? (await findServerTool(call.name, context)),
							context,
						);
		const timing = { node: context.nodeName, round, startedAt };
		const trace = callTrace(call, outcome, timing, {
			server: context.serverLabel,
			policy: context.tracePolicy,
			replayed: context.server.replayed === true,
		});
		return { outcome, trace };
	});
	// The totals count calls a server ran (or a recording answered), not those refused before one.
	const sent = answers.filter(({ outcome }) => outcome.called !== undefined).length;
	return {
		conversation: {
			...conversation,
			messages: [...conversation.messages, ...answers.map(({ outcome }) => outcome.message)],
			toolCalls: remaining,
			trace: [...conversation.trace, ...answers.flatMap(({ trace }) => trace)],
			...(sent > 0 && { usage: withToolCalls(conversation.usage, sent) }),
		},
		statuses: answers.map(({ outcome }) => outcome.status),
	};
}

/**
 * The item's pending calls this server answers (its tools, tools not on the item, and every call
 * whose id another call shares: none of those may run, whichever server has its tool), and the others.
 */
export function callsOfServer(conversation: Conversation, serverLabel: string) {
	const sharedIds = idsSharedByCalls(conversation.toolCalls);
	const mine: Array<{ call: PendingToolCall; itemTool?: Tool }> = [];
	const remaining: PendingToolCall[] = [];
	for (const call of conversation.toolCalls) {
		const itemTool = conversation.tools.find((tool) => tool.name === call.name);
		if (itemTool && itemTool.server !== serverLabel && !sharedIds.has(call.id))
			remaining.push(call);
		else mine.push({ call, itemTool });
	}
	return { mine, remaining };
}

/** The ids that more than one pending call carries: a decision or an answer could not say which it is for. */
export function idsSharedByCalls(calls: readonly PendingToolCall[]): Set<string> {
	const seen = new Set<string>();
	const shared = new Set<string>();
	for (const { id } of calls) (seen.has(id) ? shared : seen).add(id);
	return shared;
}

/** A call answered without running (a person declined it, its id is not its own): the server never called. */
function notRunOutcome(
	call: PendingToolCall,
	status: CallStatus,
	text: string,
	reason: string,
	checkStatus: ArgumentCheck['status'] = 'unchecked',
): CallOutcome {
	return {
		status,
		message: { role: 'tool', tool_call_id: call.id, name: call.name, content: text, isError: true },
		check: { status: checkStatus, arguments: call.arguments ?? call.rawArguments, reason },
		serverAsks: [],
	};
}

/**
 * Whether a call's tool is missing from the item's tools while the item has some: the model was not
 * offered it, and the call never runs (nor is a person asked about it).
 */
export function wasNotOffered(conversation: Conversation, itemTool: Tool | undefined): boolean {
	return !itemTool && conversation.tools.length > 0;
}

/**
 * A call of a tool the item's tools do not hold: the model was not offered it (List Tools left
 * it out, or it made the name up), so it does not run, whatever server has a tool of that name.
 * Only an item with no tools at all (calls built in the workflow) asks the server for its tool.
 */
function notOffered(call: PendingToolCall): CallOutcome {
	return notRunOutcome(
		call,
		'unknownTool',
		unknownToolText(call.name),
		'the tool is not among the tools of the conversation',
		'unknownTool',
	);
}

/** Whether calls of these tools (undefined: not on the item, so nothing is known of it) may overlap. */
function runsAtOnce(tools: Array<Tool | undefined>, parallel: ParallelCalls = 'never'): boolean {
	if (tools.length < 2 || parallel === 'never') return false;
	return parallel === 'always' || tools.every((tool) => tool?.annotations?.readOnlyHint === true);
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
		entries.push(
			...serverAskTrace(outcome.serverAsks, timing, { server, ...names }, policy, replayed),
		);
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
			{ server, ...names, status: outcome.status, ...(outcome.run && { run: outcome.run }) },
			result,
			policy,
			replayed && outcome.called !== undefined,
		),
	);
	return entries;
}

async function findServerTool(name: string, context: ExecutionContext): Promise<Tool | undefined> {
	const listed = await context.server.findTool(name);
	return listed && toConversationTool(listed, listed.name, context.serverLabel);
}
