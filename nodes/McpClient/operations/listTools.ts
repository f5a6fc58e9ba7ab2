import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { readConversation } from '../../../lib/conversation/read';
import { filterTools, mergeServerTools, type ToolFilter } from '../../../lib/conversation/tools';
import { fingerprint } from '../../../lib/json/canonical';
import type { McpServerConfig, McpTool } from '../../../lib/mcp';
import { traceEntry } from '../../../lib/trace/entries';
import type { Routed } from '../../shared/items';
import { recordingReader } from '../../shared/recordingOptions';
import type { NodeRedaction } from '../../shared/traceOptions';
import { serverLabelOf, withConnection } from '../server';

interface Listing {
	server: Record<string, unknown>;
	tools: McpTool[];
	label: (itemIndex: number) => string;
	durationMs: number;
}

/**
 * The register step: the server's tools added to each item. The list (every page) is asked once
 * per execution; when that fails, each item fails with the reason. In a dry run the recorded
 * list answers instead, and no server is started.
 */
export function listTools(
	context: IExecuteFunctions,
	config: McpServerConfig | undefined,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	const started = Date.now();
	let listing: Promise<Listing> | undefined;
	const liveListing = () =>
		(listing ??= withConnection(context, config!, async (connection) => ({
			server: { ...connection.server },
			tools: await connection.listTools({ fresh: true }),
			label: (itemIndex: number) => serverLabelOf(context, itemIndex, connection),
			durationMs: Date.now() - started,
		})));

	const recordingOf = recordingReader(context, 'dryRun');
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const conversation = readConversation(item.json);
		const round = conversation.rounds ?? 0;
		const redaction = redactionFor(itemIndex);
		const recording = await recordingOf(itemIndex, redaction.trace.redactor);
		const { server, tools, label, durationMs } = recording
			? recordedListing(context, recording.toolsList(round), itemIndex)
			: await liveListing();
		const offered = filterTools(tools, toolFilterOf(context, itemIndex));
		const serverLabel = label(itemIndex);
		const entry = traceEntry(
			'tools.list',
			{ node: context.getNode().name, round, startedAt: started, durationMs },
			{
				server: { ...server, label: serverLabel },
				toolCount: offered.length,
				listedCount: tools.length,
				listHash: fingerprint(offered),
			},
			offered,
			redaction.trace,
			recording !== undefined,
		);
		const json = {
			...conversation,
			tools: mergeServerTools(conversation.tools, serverLabel, offered),
			trace: [...conversation.trace, entry],
		};
		return { output: 0, item: { json, binary: item.binary } };
	};
}

function recordedListing(
	context: IExecuteFunctions,
	recorded: { server: Record<string, unknown>; tools: McpTool[] },
	itemIndex: number,
): Listing {
	const configured = (context.getNodeParameter('serverLabel', itemIndex, '') as string).trim();
	return {
		server: recorded.server,
		tools: recorded.tools,
		label: () => configured || String(recorded.server.label ?? recorded.server.name),
		durationMs: 0,
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
