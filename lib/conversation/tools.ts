import type { McpTool } from '../mcp/connection';
import type { Tool } from './types';

export type ToolFilter = { mode: 'all' } | { mode: 'only' | 'except'; names: string[] };

export function filterTools(tools: McpTool[], filter: ToolFilter): McpTool[] {
	if (filter.mode === 'all') return tools;
	const names = new Set(filter.names);
	return tools.filter((tool) => names.has(tool.name) === (filter.mode === 'only'));
}

/**
 * Adds one server's tools to a conversation's tool list. The server's earlier tools are replaced
 * (listing again refreshes, never duplicates). A name another server already uses gets the
 * server label as prefix; `server` + `mcpName` always lead back to the original.
 */
export function mergeServerTools(existing: Tool[], serverLabel: string, listed: McpTool[]): Tool[] {
	const kept = existing.filter((tool) => tool.server !== serverLabel);
	const taken = new Set(kept.map((tool) => tool.name));
	const added = listed.map((mcpTool) => {
		const name = uniqueName(mcpTool.name, serverLabel, taken);
		taken.add(name);
		return toConversationTool(mcpTool, name, serverLabel);
	});
	return [...kept, ...added];
}

function uniqueName(mcpName: string, serverLabel: string, taken: Set<string>): string {
	if (!taken.has(mcpName)) return mcpName;
	const prefixed = `${serverLabel.replace(/[^A-Za-z0-9_-]+/g, '_')}__${mcpName}`;
	let candidate = prefixed;
	for (let n = 2; taken.has(candidate); n++) candidate = `${prefixed}_${n}`;
	return candidate;
}

export function toConversationTool(mcpTool: McpTool, name: string, server: string): Tool {
	const tool: Tool = { name, inputSchema: mcpTool.inputSchema as Tool['inputSchema'], server, mcpName: mcpTool.name };
	if (mcpTool.title !== undefined) tool.title = mcpTool.title;
	if (mcpTool.description !== undefined) tool.description = mcpTool.description;
	if (mcpTool.outputSchema !== undefined) tool.outputSchema = mcpTool.outputSchema as Tool['outputSchema'];
	if (mcpTool.annotations !== undefined) tool.annotations = mcpTool.annotations;
	return tool;
}
