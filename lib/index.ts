// The package's library, usable without n8n: the item contract, the dialects, schema checks,
// the MCP connection layer, the trace, and the two steps: the model's turn and tool-call execution.
//
// Its folders in layers, lowest first. A file imports from its own folder and from folders on
// lower lines only: never upward, never sideways, no cycles (test/lib/layers.test.ts checks).
//   json, util
//   http
//   conversation
//   schema
//   dialects
//   model, mcp, usage
//   trace
//   execution, decision, memory
export * from './conversation/types';
export { parseToolArguments, type ParsedArguments } from './conversation/arguments';
export { readConversation, ConversationError } from './conversation/read';
export { mergeServerTools, filterTools, type ToolFilter } from './conversation/tools';
export * from './dialects/types';
export { openaiDialect, createOpenAIDialect } from './dialects/openai';
export { DIALECTS } from './dialects/registry';
export {
	SchemaValidator,
	describeIssues,
	type CheckResult,
	type SchemaIssue,
} from './schema/validator';
export { toStrictSchema, dropAddedNulls } from './schema/strict';
export * from './mcp';
export {
	executePendingCalls,
	type ExecutionContext,
	type ParallelCalls,
} from './execution/executeCalls';
export {
	ApprovalError,
	approvalReason,
	approvalRequests,
	executeWithApproval,
	readDecisions,
	type ApprovalOutcome,
	type ApprovalPolicy,
} from './execution/approval';
export { runToolCall, type CallOutcome, type CallStatus } from './execution/runToolCall';
export {
	CALL_RUN,
	recordedToolServer,
	RecordedFailure,
	type CallRun,
	type ListingToolServer,
	type ServedResult,
	type ToolServer,
} from './execution/toolServer';
export { takeModelTurn, type DecisionContext, type TurnTaken } from './decision/takeTurn';
export { applyModelTurn } from './decision/applyTurn';
export {
	checkReadyForTurn,
	NoToolToChooseError,
	PendingCallsError,
	ResultWithoutCallError,
	UnknownToolChoiceError,
} from './decision/readiness';
export {
	liveModelEndpoint,
	recordedModelEndpoint,
	type ModelEndpoint,
	type TurnRequest,
} from './decision/endpoint';
export { redact } from './json/redact';
export {
	callModel,
	listModels,
	type ModelCallOptions,
	type Exchange,
	type Attempt,
} from './model/transport';
export type { HttpSend, HttpRequest, HttpResponse } from './model/http';
export { ModelApiError, type ModelApiFailure } from './model/errors';
export {
	createRedactor,
	DEFAULT_SECRET_KEYS,
	type Redactor,
	type RedactionRules,
} from './json/redact';
export { traceEntry, type TracePolicy, type TraceStep } from './trace/entries';
export { Recording, ReplayDriftError, type RecordedAnswer } from './trace/recording';
export { readTrace, TraceReadError } from './trace/read';
export { diffTraces, type TraceDiff } from './trace/diff';
export { toJsonLines } from './trace/jsonl';
export { usageOfTrace, usageRow, type RoundUsage, type TraceUsage } from './trace/usage';
export {
	PRICE_TABLE,
	priceModelCall,
	type NodePrices,
	type PriceSource,
	type PricingOptions,
	type TurnCost,
} from './usage/prices';
export { NO_USAGE, withModelCall, withToolCalls } from './usage/totals';
export { budgetExceeded, describeUsage, type Budget } from './usage/budget';
