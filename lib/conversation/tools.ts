import type { Tool } from './types';

/** A tool as a server lists it (MCP's `tools/list` entry). */
export type ListedTool = Omit<Tool, 'server' | 'mcpName' | 'inputSchema' | 'outputSchema'> & {
	inputSchema: object;
	outputSchema?: object;
};

export type ToolFilter = { mode: 'all' } | { mode: 'only' | 'except'; names: string[] };

export function filterTools<T extends { name: string }>(tools: T[], filter: ToolFilter): T[] {
	if (filter.mode === 'all') return tools;
	const names = new Set(filter.names);
	return tools.filter((tool) => names.has(tool.name) === (filter.mode === 'only'));
}

/**
 * Adds one server's tools to a conversation's tool list. The server's earlier tools are replaced
 * (listing again refreshes, never duplicates). A name another server already uses gets the
 * server label as prefix; `server` + `mcpName` always lead back to the original.
 */
export function mergeServerTools(
	existing: Tool[],
	serverLabel: string,
	listed: ListedTool[],
): Tool[] {
	const kept = existing.filter((tool) => tool.server !== serverLabel);
	const taken = new Set(kept.map((tool) => tool.name));
	const added = listed.map((listedTool) => {
		const name = uniqueName(listedTool.name, serverLabel, taken);
		taken.add(name);
		return toConversationTool(listedTool, name, serverLabel);
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

export function toConversationTool(listed: ListedTool, name: string, server: string): Tool {
	const tool: Tool = {
		name,
		inputSchema: listed.inputSchema as Tool['inputSchema'],
		server,
		mcpName: listed.name,
	};
	if (listed.title !== undefined) tool.title = listed.title;
	if (listed.description !== undefined) tool.description = listed.description;
	if (listed.outputSchema !== undefined)
		tool.outputSchema = listed.outputSchema as Tool['outputSchema'];
	if (listed.annotations !== undefined) tool.annotations = listed.annotations;
	if (listed.workflow !== undefined) tool.workflow = listed.workflow;
	return tool;
}
