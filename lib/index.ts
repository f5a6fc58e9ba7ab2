// The package's library, usable without n8n: the item contract, the dialects, schema checks,
// the MCP connection layer and tool-call execution.
export * from './conversation/types';
export { parseToolArguments, type ParsedArguments } from './conversation/arguments';
export { readConversation, ConversationError } from './conversation/read';
export { mergeServerTools, filterTools, type ToolFilter } from './conversation/tools';
export { applyModelTurn } from './conversation/turn';
export * from './dialects/types';
export { openaiDialect, createOpenAIDialect } from './dialects/openai';
export { SchemaValidator, describeIssues, type CheckResult, type SchemaIssue } from './schema/validator';
export { toStrictSchema, dropAddedNulls } from './schema/strict';
export * from './mcp';
export { executePendingCalls, type ExecutionContext } from './execution/executeCalls';
export { runToolCall, type CallOutcome, type CallStatus, type ToolServer } from './execution/runToolCall';
export { redact } from './json/redact';
export { createChatCompletion, listModels, type EndpointConfig } from './model/openaiCompatible';
