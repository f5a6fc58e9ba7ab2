import type {
	Approval,
	ApprovalDecision,
	ApprovalRequest,
	Conversation,
	PendingToolCall,
	Tool,
} from '../conversation/types';
import { describeType } from '../conversation/read';
import { isRecord } from '../json/value';
import { traceEntry } from '../trace/entries';
import {
	callsOfServer,
	executePendingCalls,
	idsSharedByCalls,
	wasNotOffered,
	type CallsExecuted,
	type ExecutionContext,
} from './executeCalls';

/** Which calls wait for a person before they run. */
export type ApprovalPolicy =
	| { require: 'nothing' }
	/** Every tool its server does not annotate `readOnlyHint`. */
	| { require: 'notReadOnly' }
	/** Tools that may be destructive: not annotated read-only, nor `destructiveHint: false` (MCP's default is true). */
	| { require: 'destructive' }
	| { require: 'listed'; tools: string[] }
	/** The calls an expression over the item chose (n8n: evaluated for each item). */
	| { require: 'chosen'; callIds: string[] };

/** A decision that does not fit what the item holds: it names the call, so the workflow can be fixed. */
export class ApprovalError extends Error {}

/** Why the policy holds a call for a person, or undefined when it may run. */
export function approvalReason(
	policy: ApprovalPolicy,
	call: PendingToolCall,
	tool: Tool | undefined,
): string | undefined {
	const annotations = tool?.annotations;
	switch (policy.require) {
		case 'notReadOnly':
			if (annotations?.readOnlyHint === true) return undefined;
			return tool
				? 'its server does not annotate the tool read-only'
				: 'the tool is not on the item, so nothing says it is read-only';
		case 'destructive':
			// MCP: destructiveHint defaults to true, and means something only when readOnlyHint is not.
			if (!tool) return 'the tool is not on the item, so nothing says it is not destructive';
			if (annotations?.readOnlyHint === true || annotations?.destructiveHint === false)
				return undefined;
			return annotations?.destructiveHint === true
				? 'its server annotates the tool destructive'
				: 'its server does not say the tool is not destructive (MCP takes a tool to be destructive unless told)';
		case 'listed':
			// The list names tools as their server does; a tool renamed on the item (two servers
			// with one name) is still the listed one.
			return policy.tools.includes(call.name) ||
				(tool?.mcpName !== undefined && policy.tools.includes(tool.mcpName))
				? 'the tool is on the list to approve'
				: undefined;
		case 'chosen':
			return policy.callIds.includes(call.id)
				? "the node's approval expression chose it"
				: undefined;
		default:
			return undefined;
	}
}

/**
 * What the item is asked: each call of this server the policy holds, in call order. Calls that
 * share an id are not asked about: a decision could not say which it is for, and none of them runs;
 * nor are calls of tools the model was not offered, which never run.
 */
export function approvalRequests(
	conversation: Conversation,
	serverLabel: string,
	policy: ApprovalPolicy,
): ApprovalRequest[] {
	if (policy.require === 'nothing') return [];
	const sharedIds = idsSharedByCalls(conversation.toolCalls);
	return callsOfServer(conversation, serverLabel).mine.flatMap(({ call, itemTool }) => {
		if (sharedIds.has(call.id) || wasNotOffered(conversation, itemTool)) return [];
		const reason = approvalReason(policy, call, itemTool);
		if (reason === undefined) return [];
		return [
			{
				callId: call.id,
				tool: call.name,
				arguments: call.arguments ?? call.rawArguments,
				...(itemTool?.annotations && { annotations: itemTool.annotations }),
				reason,
			},
		];
	});
}

/**
 * The decisions of a returning item, one per call the policy holds (`requested`, worked out again
 * from the item's calls: what the item says it asked is not taken on trust): a decision for a call
 * not held, a held call without a decision or with two, or a decision that is not one, is an
 * ApprovalError naming the call.
 */
export function readDecisions(
	approval: unknown,
	requested: readonly ApprovalRequest[],
): Map<string, ApprovalDecision> {
	if (!isRecord(approval)) {
		throw new ApprovalError("The item's 'approval' must be { requested: [...], decisions: [...] }");
	}
	const { decisions = [] } = approval;
	if (!Array.isArray(decisions))
		throw new ApprovalError(
			`The item's 'approval.decisions' must be a list of decisions, but it is ${describeType(decisions)}: give [{ "callId": …, "approved": true or false }]`,
		);
	const byCall = new Map<string, ApprovalDecision>();
	for (const decision of decisions) {
		if (
			!isRecord(decision) ||
			typeof decision.callId !== 'string' ||
			typeof decision.approved !== 'boolean'
		) {
			throw new ApprovalError(
				`Each approval decision needs a callId and approved: true or false; got ${JSON.stringify(decision)}`,
			);
		}
		if (!requested.some((request) => request.callId === decision.callId)) {
			throw new ApprovalError(
				`A decision names call ${decision.callId}, which the item did not ask approval for (it asked for ${requested.map((request) => request.callId).join(', ') || 'none'})`,
			);
		}
		if (decision.arguments !== undefined && !isRecord(decision.arguments)) {
			throw new ApprovalError(
				`The edited arguments of call ${decision.callId} must be a JSON object`,
			);
		}
		if (byCall.has(decision.callId))
			throw new ApprovalError(
				`Two decisions name call ${decision.callId}: give exactly one decision for each call`,
			);
		byCall.set(decision.callId, decision as unknown as ApprovalDecision);
	}
	const waiting = requested.filter((request) => !byCall.has(request.callId));
	if (waiting.length > 0) {
		throw new ApprovalError(
			`No decision for ${waiting.map((request) => `call ${request.callId} (${request.tool})`).join(', ')}: each call asked about needs approval.decisions[] with its callId and approved`,
		);
	}
	return byCall;
}

/** What the model is told of a call a person declined. */
export function declinedMessage(decision: ApprovalDecision): string {
	const who = decision.by ? ` (${decision.by})` : '';
	return `A person${who} declined this call, so it did not run.${decision.note ? ` Their reason: ${decision.note}` : ''} Do not try the same call again unless asked to.`;
}

export type ApprovalOutcome =
	{ held: true; conversation: Conversation } | ({ held: false } & CallsExecuted);

/**
 * The execute step with a person in the loop. An item that comes back with decisions: approved
 * calls run (edited arguments are checked like any others), declined ones are answered with a
 * tool message saying so, both traced. An item whose calls the policy holds: none runs, and it
 * carries `approval.requested`. Else the calls run as without approval.
 */
export async function executeWithApproval(
	conversation: Conversation,
	context: ExecutionContext,
	policy: ApprovalPolicy,
): Promise<ApprovalOutcome> {
	const timing = { node: context.nodeName, round: conversation.rounds ?? 0, startedAt: Date.now() };
	const { approval, ...rest } = conversation;
	const requested = approvalRequests(rest, context.serverLabel, policy);
	if (approval !== undefined) {
		const decisions = readDecisions(approval, requested);
		const decided = [...decisions.values()].map((decision) =>
			traceEntry(
				'approval.decision',
				timing,
				{
					callId: decision.callId,
					approved: decision.approved,
					...(decision.by && { by: decision.by }),
					...(decision.arguments && { argumentsEdited: true }),
				},
				decision,
				context.tracePolicy,
			),
		);
		const toolCalls = rest.toolCalls.map((call) => {
			const edited = decisions.get(call.id)?.arguments;
			return edited ? { ...call, arguments: edited, rawArguments: JSON.stringify(edited) } : call;
		});
		const executed = await executePendingCalls(
			{ ...rest, toolCalls, trace: [...rest.trace, ...decided] },
			{
				...context,
				declined: new Map(
					[...decisions.values()]
						.filter((decision) => !decision.approved)
						.map((decision) => [decision.callId, declinedMessage(decision)]),
				),
			},
		);
		return { held: false, ...executed };
	}
	if (requested.length === 0) return { held: false, ...(await executePendingCalls(rest, context)) };
	const asked = traceEntry(
		'approval.requested',
		timing,
		{ server: context.serverLabel, callIds: requested.map((request) => request.callId) },
		requested,
		context.tracePolicy,
	);
	return {
		held: true,
		conversation: {
			...rest,
			approval: { requested } satisfies Approval,
			trace: [...rest.trace, asked],
		},
	};
}
