import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { readConversation } from '../../../lib/conversation/read';
import { filterTools, mergeServerTools, type ToolFilter } from '../../../lib/conversation/tools';
import { fingerprint } from '../../../lib/json/canonical';
import { redact } from '../../../lib/json/redact';
import { secretsOf, type McpServerConfig } from '../../../lib/mcp';
import type { Routed } from '../../shared/items';
import { serverLabelOf, withConnection } from '../server';

/**
 * The register step: the server's tools added to each item. The list (every page) is asked once
 * per execution; when that fails, each item fails with the reason.
 */
export function listTools(context: IExecuteFunctions, config: McpServerConfig) {
	const started = Date.now();
	const listing = withConnection(context, config, async (connection) => ({
		server: connection.server,
		tools: await connection.listTools({ fresh: true }),
		label: (itemIndex: number) => serverLabelOf(context, itemIndex, connection),
		durationMs: Date.now() - started,
	}));
	listing.catch(() => undefined);

	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const { server, tools, label, durationMs } = await listing;
		const conversation = readConversation(item.json);
		const offered = filterTools(tools, toolFilterOf(context, itemIndex));
		const serverLabel = label(itemIndex);
		const trace = {
			step: 'mcp.listTools',
			node: context.getNode().name,
			at: new Date(started).toISOString(),
			durationMs,
			server: { label: serverLabel, ...server },
			toolCount: offered.length,
			listedCount: tools.length,
			listHash: fingerprint(offered),
		};
		const json = redact(
			{ ...conversation, tools: mergeServerTools(conversation.tools, serverLabel, offered), trace: [...conversation.trace, trace] },
			secretsOf(config),
		);
		return { output: 0, item: { json, binary: item.binary } };
	};
}

function toolFilterOf(context: IExecuteFunctions, itemIndex: number): ToolFilter {
	const mode = context.getNodeParameter('toolFilter', itemIndex, 'all') as ToolFilter['mode'];
	if (mode === 'all') return { mode };
	const names = context.getNodeParameter(mode === 'only' ? 'includeTools' : 'excludeTools', itemIndex, []) as string[];
	return { mode, names };
}
