// The MCP client the conformance suite tests: this repository's connection layer as the MCP Client
// node drives it (a pooled connection, list tools, call each tool), with a headless OAuth
// authorization where the scenario needs one. The suite passes the server URL as the last argument
// and the scenario in MCP_CONFORMANCE_SCENARIO (plus MCP_CONFORMANCE_CONTEXT for some). Without a
// URL it only loads, which fills register.cjs's cache.
import { randomUUID } from 'node:crypto';
import {
	ConnectionPool,
	oauthSession,
	type ElicitationOptions,
	type HttpServerConfig,
	type McpTool,
	type OAuthOptions,
} from '../../lib/mcp';
import { headlessAuthorize } from '../support/headlessAuthorize';

/** The suite's authorization servers redirect here; nothing needs to listen. */
const REDIRECT_URL = 'http://localhost:3000/callback';
/** A URL-based client ID, used where the authorization server supports client ID metadata documents. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** What a scenario tells the client: a registered client, a private key, an identity token. */
interface ScenarioContext {
	client_id?: string;
	client_secret?: string;
	private_key_pem?: string;
	signing_algorithm?: string;
	idp_client_id?: string;
	idp_id_token?: string;
	idp_token_endpoint?: string;
}

/**
 * How the scenario's client is authorized, as a user would set up the credential that fits: a
 * person signs in (the default), the client itself (client credentials, by secret or private
 * key), or the user's identity token from the company's identity provider (enterprise-managed).
 */
function grantOf(scenario: string, context: ScenarioContext): OAuthOptions['grant'] {
	if (context.idp_id_token) {
		const idToken = context.idp_id_token;
		return {
			kind: 'enterprise',
			identityProvider: {
				tokenUrl: context.idp_token_endpoint ?? '',
				clientId: context.idp_client_id ?? '',
			},
			idToken: () => Promise.resolve(idToken),
		};
	}
	if (context.private_key_pem) {
		const algorithm = context.signing_algorithm ?? 'ES256';
		return { kind: 'clientCredentials', privateKey: { pem: context.private_key_pem, algorithm } };
	}
	if (scenario.startsWith('auth/client-credentials')) return { kind: 'clientCredentials' };
	return undefined;
}

function serverConfig(url: string, scenario: string): HttpServerConfig {
	const config: HttpServerConfig = { transport: 'http', url, headers: {}, mode: 'streamableHttp' };
	if (!scenario.startsWith('auth/')) return config;
	const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ScenarioContext;
	const preRegistered = context.client_id
		? { client_id: context.client_id, client_secret: context.client_secret }
		: undefined;
	config.oauth = oauthSession({
		id: randomUUID(),
		client: preRegistered,
		grant: grantOf(scenario, context),
		authorize: headlessAuthorize,
		redirectUrl: REDIRECT_URL,
		clientName: 'n8n-nodes-tool-calling conformance client',
		clientMetadataUrl: CLIENT_METADATA_URL,
	});
	return config;
}

/** Arguments a tool's schema accepts, from its required properties' types. */
function sampleArguments(tool: McpTool): Record<string, unknown> {
	const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
	const samples: Record<string, unknown> = { number: 1, integer: 1, boolean: true, string: 'test' };
	return Object.fromEntries(
		(tool.inputSchema.required ?? []).map((name) => [
			name,
			samples[properties[name]?.type ?? 'string'],
		]),
	);
}

async function main(): Promise<void> {
	const url = process.argv[process.argv.length - 1];
	const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
	// The node's option for a server that asks for input: here, accept with the schema's defaults.
	const elicitation: ElicitationOptions = {
		mode: 'defaults',
		onServerRequest: (event) => console.log('server request:', JSON.stringify(event)),
	};
	const pool = new ConnectionPool({ maxSize: 1, idleTimeoutMs: 60_000, connectTimeoutMs: 20_000 });
	try {
		await pool.use(serverConfig(url, scenario), async (connection) => {
			console.log('connected:', JSON.stringify(connection.server));
			const tools = await connection.listTools();
			for (const tool of tools) {
				const result = await connection.callTool(tool.name, sampleArguments(tool), {
					timeoutMs: 20_000,
					elicitation,
				});
				console.log(`${tool.name}:`, JSON.stringify(result));
			}
		});
	} finally {
		await pool.closeAll();
	}
}

if (process.argv.length < 3) process.exit(0);
main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error('failed:', error);
		process.exit(1);
	},
);
