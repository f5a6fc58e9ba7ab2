import { sharedPool } from '../../lib/mcp';
import { mcpServerConnection } from '../../nodes/McpClient/methods';
import { credentialTestContext, errorOf, outputOf } from '../support/engine';
import { httpCredential, mcpClientNode, runMcpChain } from '../support/mcpWorkflow';
import { startOAuthServer, stopOAuthServers, type OAuthServerHandle } from '../support/oauthServer';

// n8n's SSRF protection, on as an administrator turns it on: private addresses (127.0.0.0/8 among
// them) are blocked. n8n reads its configuration once, when the engine's services start.
const SSRF_VARIABLES = ['N8N_SSRF_PROTECTION_ENABLED', 'N8N_SSRF_ALLOWED_HOSTNAMES'];
const saved = SSRF_VARIABLES.map((name) => process.env[name]);
process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
process.env.N8N_SSRF_ALLOWED_HOSTNAMES = 'localhost';

let server: OAuthServerHandle;
beforeAll(async () => {
	server = await startOAuthServer(['--no-auth']);
});
afterAll(async () => {
	await sharedPool.closeAll();
	await stopOAuthServers();
	SSRF_VARIABLES.forEach((name, index) => {
		if (saved[index] === undefined) delete process.env[name];
		else process.env[name] = saved[index];
	});
});

const listTools = mcpClientNode('List Tools', { operation: 'listTools', connectionType: 'http' });

describe("MCP over HTTP under n8n's egress policy", () => {
	it('refuses a server at an address the policy blocks, before connecting, and says so', async () => {
		const before = await server.stats();
		const run = await runMcpChain([listTools], {
			credentials: { mcpHttpServerApi: httpCredential(server.mcp) },
		});
		const error = errorOf(run, 'List Tools');
		expect(error?.message).toBe(`Could not connect to the MCP server (HTTP: ${server.mcp})`);
		expect(error?.description).toMatch(
			new RegExp(
				`^The outbound network policy refused the request to ${server.mcp}: The request was blocked because it resolves to a restricted IP address$`,
			),
		);
		expect((await server.stats()).mcpRequests).toBe(before.mcpRequests);
	});

	it('reaches a host the policy allows', async () => {
		const byName = server.mcp.replace('127.0.0.1', 'localhost');
		const run = await runMcpChain([listTools], {
			credentials: { mcpHttpServerApi: httpCredential(byName) },
		});
		expect(errorOf(run, 'List Tools')).toBeUndefined();
		expect(outputOf(run, 'List Tools')).toHaveLength(1);
	});
});

describe("The MCP credential test under n8n's egress policy", () => {
	const test = async (url: string) =>
		mcpServerConnection.call(await credentialTestContext(), {
			id: 'test',
			name: 'test',
			type: 'mcpHttpServerApi',
			data: httpCredential(url),
		});

	it('refuses a server at an address the policy blocks, as executions do, sending it nothing', async () => {
		const before = await server.stats();
		expect(await test(server.mcp)).toEqual({
			status: 'Error',
			message: 'The request was blocked because it resolves to a restricted IP address',
		});
		expect((await server.stats()).mcpRequests).toBe(before.mcpRequests);
	});

	it('tests a server the policy allows', async () => {
		expect(await test(server.mcp.replace('127.0.0.1', 'localhost'))).toMatchObject({
			status: 'OK',
		});
	});
});
