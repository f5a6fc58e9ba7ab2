import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { readConversation } from '../../../lib/conversation/read';
import type { McpConnection, McpServerConfig, RequestLimits } from '../../../lib/mcp';
import { traceEntry, type TraceStep } from '../../../lib/trace/entries';
import type { Routed } from '../../shared/items';
import { savedNode } from '../../shared/parameters';
import type { NodeRedaction } from '../../shared/traceOptions';
import { serverLabelOf, withConnection } from '../server';
import { requestLimitsOf } from './settings';

/** What each list operation asks for, the key it adds to the item and the trace step it writes. */
const LISTINGS = {
	listResources: {
		key: 'resources',
		step: 'resources.list',
		list: (connection: McpConnection, limits: RequestLimits) => connection.listResources(limits),
	},
	listResourceTemplates: {
		key: 'resourceTemplates',
		step: 'resources.templates.list',
		list: (connection: McpConnection, limits: RequestLimits) =>
			connection.listResourceTemplates(limits),
	},
	listPrompts: {
		key: 'prompts',
		step: 'prompts.list',
		list: (connection: McpConnection, limits: RequestLimits) => connection.listPrompts(limits),
	},
} satisfies Record<
	string,
	{
		key: string;
		step: TraceStep;
		list: (c: McpConnection, limits: RequestLimits) => Promise<unknown[]>;
	}
>;

export type ListOperation = keyof typeof LISTINGS;

export const isListOperation = (operation: string): operation is ListOperation =>
	Object.hasOwn(LISTINGS, operation);

/**
 * List Resources, List Resource Templates and List Prompts: every page, asked once per execution,
 * added to each item under its key (a listing replaces an earlier one), with a trace entry.
 */
export function listServerItems(
	context: IExecuteFunctions,
	config: McpServerConfig,
	operation: ListOperation,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	const { key, step, list } = LISTINGS[operation];
	const startedAt = Date.now();
	let listing: Promise<{ items: unknown[]; server: string; durationMs: number }> | undefined;
	const listOnce = () =>
		(listing ??= withConnection(context, config, async (connection) => ({
			items: await list(connection, requestLimitsOf(context)),
			server: connection.server.name,
			durationMs: Date.now() - startedAt,
		})));
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const conversation = readConversation(item.json);
		const { items, server, durationMs } = await listOnce();
		const entry = traceEntry(
			step,
			{ node: savedNode(context).name, round: conversation.rounds ?? 0, startedAt, durationMs },
			{ server: serverLabelOf(context, itemIndex, server), count: items.length },
			items,
			redactionFor(itemIndex).trace,
		);
		const json = { ...conversation, [key]: items, trace: [...conversation.trace, entry] };
		return { output: 0, item: { json, binary: item.binary } };
	};
}
