import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { readConversation } from '../../../lib/conversation/read';
import { filterTools, mergeServerTools, type ToolFilter } from '../../../lib/conversation/tools';
import { fingerprint } from '../../../lib/json/canonical';
import { compactToolsList } from '../../../lib/trace/compact';
import { traceEntry } from '../../../lib/trace/entries';
import { madeOnce } from '../../../lib/util/madeOnce';
import type { Routed } from '../../shared/items';
import { savedNode } from '../../shared/parameters';
import type { NodeRedaction } from '../../shared/traceOptions';
import { serverLabelOf } from '../server';
import { invalidToolsWarning, type ServerSource } from '../sources';

/**
 * The register step: the server's tools added to each item. The list (every page) is asked once
 * per execution; when that fails, each item fails with the reason. In a dry run the recorded
 * list answers instead, and no server is started. Items given the same tools share one tool list
 * and one tools.list entry: n8n stores an object that items share once, and a batch of items
 * would otherwise store the list twice per item.
 */
export function listTools(
	context: IExecuteFunctions,
	servers: ServerSource,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	const started = Date.now();
	const shared = madeOnce();
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const conversation = readConversation(item.json);
		const round = conversation.rounds ?? 0;
		const redaction = redactionFor(itemIndex);
		const { server, tools, invalid, name, durationMs } = await servers.listing({
			itemIndex,
			conversation,
			redaction,
		});
		const filter = toolFilterOf(context, itemIndex);
		const offered = shared(['offered', tools, JSON.stringify(filter)], () =>
			filterTools(tools, filter),
		);
		const listHash = shared(['listHash', offered], () => fingerprint(offered));
		const serverLabel = serverLabelOf(context, itemIndex, name);
		const makeEntry = () =>
			traceEntry(
				'tools.list',
				{ node: savedNode(context).name, round, startedAt: started, durationMs },
				{
					server: { ...server, label: serverLabel },
					toolCount: offered.length,
					listedCount: tools.length,
					listHash,
					...(invalid.length > 0 && { invalidTools: invalid }),
				},
				offered,
				redaction.trace,
				servers.replayed,
				// Full payloads keep a list once: a later listing of the same tools names the earlier one.
				(whole) => compactToolsList(whole, conversation.trace),
			);
		// An item whose trace holds no listing of these tools gets the entry as it is for all such items.
		const listedBefore = conversation.trace.some(
			(entry) => entry.step === 'tools.list' && entry.listHash === listHash,
		);
		const entry = listedBefore
			? makeEntry()
			: shared(
					['entry', redaction, server, offered, invalid, serverLabel, round, durationMs],
					makeEntry,
				);
		const json = {
			...conversation,
			tools:
				conversation.tools.length === 0
					? shared(['tools', serverLabel, offered], () =>
							mergeServerTools([], serverLabel, offered),
						)
					: mergeServerTools(conversation.tools, serverLabel, offered),
			trace: [...conversation.trace, entry],
			...(invalid.length > 0 && {
				warnings: [...(conversation.warnings ?? []), invalidToolsWarning(serverLabel, invalid)],
			}),
		};
		return { output: 0, item: { json, binary: item.binary } };
	};
}

function toolFilterOf(context: IExecuteFunctions, itemIndex: number): ToolFilter {
	const mode = context.getNodeParameter('toolFilter', itemIndex, 'all') as ToolFilter['mode'];
	if (mode === 'all') return { mode };
	const names = context.getNodeParameter(
		mode === 'only' ? 'includeTools' : 'excludeTools',
		itemIndex,
		[],
	) as string[];
	return { mode, names };
}
