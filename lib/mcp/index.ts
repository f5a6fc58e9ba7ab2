export * from './config';
export * from './callErrors';
export {
	McpConnection,
	isTransportFailure,
	type RequestLimits,
	type ToolCallOptions,
	type CallToolResult,
	type GetPromptResult,
	type McpPrompt,
	type McpResource,
	type McpResourceTemplate,
	type InvalidTool,
	type McpTool,
	type ReadResourceResult,
	type ServerIdentity,
	type ToolListing,
} from './connection';
export { ConnectionPool, type PoolOptions, type UseOptions } from './pool';
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
export {
	type ClientCredentialsGrant,
	type EnterpriseGrant,
	type MachineGrant,
} from './oauth/grants';
export { JWT_ALGORITHMS, jwtExpiry, signingKey, type JwtAlgorithm } from './oauth/jwt';
export {
	EgressRefused,
	outboundFetch,
	proxySettingsFrom,
	type EgressFilter,
	type ProxySettings,
} from '../http/outbound';
export {
	CLIENT_CAPABILITIES,
	capabilitiesOf,
	defaultsOf,
	elicitResultFrom,
	type ElicitationOptions,
	type ElicitRequestFormParams,
	type ElicitResult,
	type SamplingAnswer,
	type SamplingCapability,
	type SamplingOptions,
	type ServerRequestEvent,
} from './serverRequests';
