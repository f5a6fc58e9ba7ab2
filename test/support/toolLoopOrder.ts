/** The nodes of examples/mcp-tool-loop.json in the order they run when the model answers in its third round. */
export const TOOL_LOOP_ORDER = [
	'Run',
	'List Tools',
	'Model',
	'Execute Tool Calls',
	'Model',
	'Execute Tool Calls',
	'Model',
	'Answer',
];
