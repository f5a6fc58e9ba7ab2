export * from './config';
export {
	McpConnection,
	isTransportFailure,
	type ToolCallOptions,
	type CallToolResult,
	type McpTool,
	type ServerIdentity,
} from './connection';
export { ConnectionPool, type PoolOptions } from './pool';
export { sharedPool } from './sharedPool';
export { CLIENT_INFO } from './transport';
