import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { describeType } from '../../../lib/conversation/read';
import type { ApprovalPolicy } from '../../../lib/execution/approval';
import type { ParallelCalls } from '../../../lib/execution/executeCalls';
import type { RequestLimits, SamplingOptions, ToolCallOptions, UseOptions } from '../../../lib/mcp';
import { DEFAULT_CONCURRENCY } from '../../shared/items';
import { commaList, itemParameter } from '../../shared/parameters';

export interface CallSettings {
	timeoutMs: number;
	/** 0: no cap. */
	maxTotalMs: number;
	maxResultBytes: number;
	onToolError: 'toModel' | 'failNode';
	concurrency: number;
	parallelCalls: ParallelCalls;
	/** How the server's sampling requests are answered; declined without it. */
	sampling?: SamplingOptions;
}

interface CallOptionValues extends Omit<CallSettings, 'maxResultBytes' | 'sampling'> {
	maxResultMb: number;
}

/** The Options, one for all items: an expression in them is read for the first item. */
export function callSettingsOf(context: IExecuteFunctions): CallSettings {
	const options = itemParameter(context, 'options', 0, {}) as Partial<CallOptionValues>;
	return {
		timeoutMs: options.timeoutMs ?? 60_000,
		maxTotalMs: options.maxTotalMs ?? 300_000,
		maxResultBytes: (options.maxResultMb ?? 10) * 1024 * 1024,
		onToolError: options.onToolError ?? 'toModel',
		concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
		parallelCalls: options.parallelCalls ?? 'readOnly',
	};
}

/**
 * Which calls of an item wait for a person (Require Approval For). An expression over the item
 * gives the ids of the calls to hold: true holds them all, false or an empty list none.
 */
export function approvalPolicyOf(context: IExecuteFunctions, itemIndex: number): ApprovalPolicy {
	// Require Approval For sets the node's outputs, so it is one for all items; the list may differ.
	const require = itemParameter(context, 'requireApproval', 0, 'nothing') as string;
	if (require === 'listed') {
		return { require, tools: itemParameter(context, 'approvalTools', itemIndex, []) as string[] };
	}
	if (require === 'expression') {
		const chosen = context.getNodeParameter('approvalCalls', itemIndex, false) as unknown;
		const calls = context.getInputData()[itemIndex]?.json.toolCalls;
		const allIds = Array.isArray(calls)
			? calls.map((call) => String((call as { id?: unknown }).id))
			: [];
		const callIds = chosenCallIds(chosen, allIds);
		const description =
			"It must give a list of the item's call IDs (not the calls themselves), true (all calls) or false (none); no call of the item ran. A value it cannot read never lets the calls run unapproved.";
		if (callIds === undefined)
			throw new NodeOperationError(
				context.getNode(),
				`Calls to Approve gave ${describeType(chosen)}, which names no calls`,
				{ itemIndex, description },
			);
		// An id the item does not have (a typo, the calls of another item) would hold nothing.
		const unknown = callIds.filter((id) => !allIds.includes(id));
		if (unknown.length > 0)
			throw new NodeOperationError(
				context.getNode(),
				`Calls to Approve names ${unknown.map((id) => JSON.stringify(id)).join(', ')}, which no pending call of the item has (its calls: ${allIds.join(', ') || 'none'})`,
				{ itemIndex, description },
			);
		return { require: 'chosen', callIds };
	}
	return { require: require as 'nothing' | 'notReadOnly' | 'destructive' };
}

/**
 * The ids a Calls to Approve value names: a list, true or false, as themselves or as JSON text (a
 * fixed value is text), or text of ids separated by commas; undefined for anything else.
 */
function chosenCallIds(chosen: unknown, allIds: string[]): string[] | undefined {
	if (chosen === true) return allIds;
	if (chosen === false) return [];
	if (Array.isArray(chosen))
		return chosen.every((id) => typeof id === 'string' || typeof id === 'number')
			? chosen.map(String)
			: undefined;
	if (typeof chosen !== 'string') return undefined;
	const text = chosen.trim();
	if (text === '') return [];
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		// Not JSON: ids as written.
		return commaList(text);
	}
	return chosenCallIds(parsed, allIds);
}

/** How each tools/call of this execution is made. */
export function callOptionsOf(context: IExecuteFunctions, settings: CallSettings): ToolCallOptions {
	return {
		timeoutMs: settings.timeoutMs,
		maxTotalMs: settings.maxTotalMs,
		maxResultBytes: settings.maxResultBytes,
		signal: context.getExecutionCancelSignal(),
	};
}

/** How long each request for resources or prompts may wait (the node's Timeout), and its cancellation. */
export function requestLimitsOf(context: IExecuteFunctions): RequestLimits {
	return {
		timeoutMs: callSettingsOf(context).timeoutMs,
		signal: context.getExecutionCancelSignal(),
	};
}

/** How this execution uses the pool: in its scope, and a server that must start gets the node's Timeout. */
export function poolUseOf(context: IExecuteFunctions): UseOptions {
	const options = itemParameter(context, 'options', 0, {}) as {
		timeoutMs?: number;
		shareServer?: boolean;
	};
	return {
		scope: poolScope(options.shareServer, context.getWorkflow().id),
		connectTimeoutMs: options.timeoutMs ?? 60_000,
	};
}

/**
 * Which pooled server a workflow uses: its own by default, so a stateful server's data never
 * crosses workflows (or their owners); one for every workflow that shares it when asked.
 */
export function poolScope(
	shareServer: boolean | undefined,
	workflowId: string | undefined,
): string {
	return shareServer ? 'shared' : `workflow ${workflowId ?? ''}`;
}
