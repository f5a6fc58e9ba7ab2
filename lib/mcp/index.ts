export * from './config';
export {
	McpConnection,
	isTransportFailure,
	type ToolCallOptions,
	type CallToolResult,
	type GetPromptResult,
	type McpPrompt,
	type McpResource,
	type McpResourceTemplate,
	type McpTool,
	type ReadResourceResult,
	type ServerIdentity,
} from './connection';
export { ConnectionPool, type PoolOptions } from './pool';
export { sharedPool } from './sharedPool';
export { CLIENT_INFO } from './transport';
export {
	oauthSession,
	OAuthAuthorizationRequired,
	OAuthSession,
	type OAuthClientInformationMixed,
	type OAuthOptions,
	type OAuthTokens,
} from './oauth/session';
export { outboundFetch, proxySettingsFrom, type ProxySettings } from './outbound';
export {
	CLIENT_CAPABILITIES,
	type ElicitationOptions,
	type ElicitRequestFormParams,
	type ElicitResult,
	type ServerRequestEvent,
} from './serverRequests';
