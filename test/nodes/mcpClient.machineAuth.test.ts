import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { mcpServerConnection } from '../../nodes/McpClient/methods';
import { credentialTestContext, errorOf, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { startOAuthServer, stopOAuthServers } from '../support/oauthServer';

mcp.stopServersAfterAll(stopOAuthServers);

const CLIENT_ID = 'nightly-report';
const CLIENT_SECRET = 'cs-91d2e7a4c0b3';

/** Whoami through the node: List Tools, then Execute Tool Calls with one call of it. */
function whoami(connectionType: string, type: string, credential: ICredentialDataDecryptedObject) {
	const node = (name: string, parameters: IDataObject) =>
		mcp.mcpClientNode(name, { connectionType, ...parameters });
	return mcp.runMcpChain(
		[
			node('List Tools', { operation: 'listTools' }),
			node('Execute', { operation: 'executeToolCalls' }),
		],
		{
			credentials: { [type]: credential },
			inputItems: [{ json: { toolCalls: [mcp.pendingCall('whoami')] } }],
		},
	);
}

const whoamiText = (run: Awaited<ReturnType<typeof whoami>>) =>
	mcp.toolMessages(outputOf(run, 'Execute')[0].json)[0].content as string;

describe('MCP Client with the MCP Server (OAuth2 Client Credentials) credential', () => {
	const TYPE = 'mcpServerClientCredentialsOAuth2Api';

	it('gets its token with the client secret, nobody signing in, and shows no secret', async () => {
		const server = await startOAuthServer([
			'--client-credentials',
			`${CLIENT_ID}:${CLIENT_SECRET}`,
		]);
		const credential = {
			serverUrl: server.mcp,
			transport: 'auto',
			clientId: CLIENT_ID,
			clientAuthentication: 'clientSecret',
			clientSecret: CLIENT_SECRET,
		};
		const run = await whoami('clientCredentials', TYPE, credential);
		expect(JSON.parse(whoamiText(run))).toEqual({ clientId: CLIENT_ID, scopes: ['mcp:tools'] });
		expect(JSON.stringify(run.nodes)).not.toContain(CLIENT_SECRET);
		expect(await server.stats()).toMatchObject({ clientCredentials: 1, authorizations: 0 });
	});

	it('signs with the private key pasted as PEM, which no output shows', async () => {
		const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
		const publicFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'keys-')), 'client.pem');
		writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
		const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
		const server = await startOAuthServer(['--client-key', `${CLIENT_ID}=${publicFile}`]);
		const credential = {
			serverUrl: server.mcp,
			transport: 'streamableHttp',
			clientId: CLIENT_ID,
			clientAuthentication: 'privateKey',
			privateKey: pem,
			signingAlgorithm: 'ES256',
		};
		const node = mcp.mcpClientNode('Echo', {
			connectionType: 'clientCredentials',
			operation: 'executeToolCalls',
		});
		const body = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
		const run = await mcp.runMcpChain([node], {
			credentials: { [TYPE]: credential },
			inputItems: [{ json: { toolCalls: [mcp.pendingCall('echo', { text: `key ${body}` })] } }],
		});
		expect(mcp.toolMessages(outputOf(run, 'Echo')[0].json)[0].content).toBe('key [redacted]');
	});

	it('tests the credential by getting a token and listing the tools, or names the step that failed', async () => {
		const server = await startOAuthServer([
			'--client-credentials',
			`${CLIENT_ID}:${CLIENT_SECRET}`,
		]);
		const test = (data: ICredentialDataDecryptedObject) =>
			credentialTestContext().then((context) =>
				mcpServerConnection.call(context, { id: 'cc', name: 'Service', type: TYPE, data }),
			);
		const credential = { serverUrl: server.mcp, transport: 'auto', clientId: CLIENT_ID };
		expect(await test({ ...credential, clientSecret: CLIENT_SECRET })).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connected to oauth-server 1\.0\.0 .*: \d+ tools$/),
		});
		const wrong = await test({ ...credential, clientSecret: 'cs-wrong-55aa' });
		expect(wrong).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^OAuth token failed: .*\/token answered HTTP 401: invalid_client .*check the client ID, its secret or private key/,
			),
		});
		expect(wrong.message).not.toContain('cs-wrong-55aa');
		const badKey = await test({
			...credential,
			clientAuthentication: 'privateKey',
			privateKey: '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----',
		});
		expect(badKey.message).toMatch(/^The private key could not be read/);
	});
});

describe('MCP Client with the MCP Server (Enterprise Sign-In, OAuth2) credential', () => {
	const TYPE = 'mcpServerEnterpriseOAuth2Api';

	it("exchanges the identity token n8n keeps from the sign-in for the MCP server's token", async () => {
		const server = await startOAuthServer([
			'--client-credentials',
			`${CLIENT_ID}:${CLIENT_SECRET}`,
			'--idp',
		]);
		const signIn = await fetch(new URL('sign-in', server.idp), { method: 'POST' });
		const { id_token: idToken } = (await signIn.json()) as { id_token: string };
		const credential = {
			serverUrl: server.mcp,
			transport: 'auto',
			mcpClientId: CLIENT_ID,
			mcpClientSecret: CLIENT_SECRET,
			grantType: 'authorizationCode',
			accessTokenUrl: new URL('token', server.idp).href,
			clientId: 'n8n-at-idp',
			clientSecret: 'idp-secret-3c9d',
			oauthTokenData: { access_token: 'idp-at-1', token_type: 'bearer', id_token: idToken },
		};
		const run = await whoami('enterprise', TYPE, credential);
		expect(JSON.parse(whoamiText(run))).toMatchObject({ clientId: CLIENT_ID });
		expect(await server.stats()).toMatchObject({ tokenExchanges: 1, jwtBearer: 1 });
		const written = JSON.stringify(run.nodes);
		for (const secret of [idToken, CLIENT_SECRET, 'idp-secret-3c9d'])
			expect(written).not.toContain(secret);
	});

	it('says to connect when nobody signed in at the identity provider, and to add openid without an ID token', async () => {
		const server = await startOAuthServer(['--idp']);
		const credential = { serverUrl: server.mcp, mcpClientId: CLIENT_ID, clientId: 'n8n-at-idp' };
		const notConnected = await whoami('enterprise', TYPE, credential);
		expect(errorOf(notConnected, 'List Tools')?.message).toMatch(/not connected/);
		const noIdToken = await whoami('enterprise', TYPE, {
			...credential,
			accessTokenUrl: new URL('token', server.idp).href,
			oauthTokenData: { access_token: 'idp-at-1', token_type: 'bearer' },
		});
		const error = errorOf(noIdToken, 'List Tools');
		expect(`${error?.message} ${error?.description}`).toMatch(
			/gave no identity token \(id_token\) at sign-in: add "openid"/,
		);
	});
});
