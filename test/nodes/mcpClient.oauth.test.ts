import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { mcpServerConnection } from '../../nodes/McpClient/methods';
import { credentialTestContext, errorOf, outputOf, type EngineRun } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import {
	connectedOAuthCredential,
	startOAuthServer,
	stopOAuthServers,
	type OAuthServerHandle,
} from '../support/oauthServer';

mcp.stopServersAfterAll(stopOAuthServers);

const TYPE = 'mcpServerOAuth2Api';
const oauthNode = (name: string, parameters: IDataObject) =>
	mcp.mcpClientNode(name, { connectionType: 'oauth2', ...parameters });
const listTools = oauthNode('List Tools', { operation: 'listTools' });
const execute = oauthNode('Execute', { operation: 'executeToolCalls' });

/** Every token and client secret the credential holds, before and after the run. */
function secretsIn(...credentials: ICredentialDataDecryptedObject[]): string[] {
	return credentials.flatMap((credential) => {
		const tokens = credential.oauthTokenData as IDataObject;
		return [tokens.access_token, tokens.refresh_token, credential.clientSecret].filter(
			(value): value is string => typeof value === 'string' && value !== '',
		);
	});
}

/** What our nodes wrote (the trigger's input is the test's own). */
function expectNoSecret(run: EngineRun, secrets: string[]): void {
	const { Start: _input, ...written } = run.nodes;
	const text = JSON.stringify([written, run.error ?? null]);
	for (const secret of secrets) expect(text).not.toContain(secret);
}

/** List Tools → Execute Tool Calls with one item whose calls are given. */
function listAndExecute(credential: ICredentialDataDecryptedObject, calls: unknown[]) {
	return mcp.runMcpChain([listTools, execute], {
		credentials: { [TYPE]: credential },
		inputItems: [{ json: { toolCalls: calls } }],
	});
}

const callTexts = (run: EngineRun) =>
	mcp.toolMessages(outputOf(run, 'Execute')[0].json).map((message) => message.content);

describe('MCP Client with the MCP Server (OAuth2) credential', () => {
	let server: OAuthServerHandle;
	beforeAll(async () => {
		server = await startOAuthServer(['--token-seconds', '3']);
	});

	it('lists and calls tools with the token n8n keeps; no token or client secret reaches the output', async () => {
		const credential = await connectedOAuthCredential(server);
		const token = (credential.oauthTokenData as IDataObject).access_token as string;
		const run = await listAndExecute(credential, [
			mcp.pendingCall('whoami'),
			mcp.pendingCall('echo', { text: `the token is ${token}` }),
		]);
		const [whoami, echo] = callTexts(run);
		expect(JSON.parse(whoami)).toMatchObject({ clientId: credential.clientId });
		expect(echo).toBe('the token is [redacted]');
		expect(mcp.conversationOf(outputOf(run, 'List Tools')[0].json).tools.length).toBeGreaterThan(0);
		mcp.expectConversationItem(outputOf(run, 'Execute')[0].json);
		expectNoSecret(run, secretsIn(credential));
	});

	it('renews a token that expires during the run through n8n, which saves it to the credential', async () => {
		const credential = await connectedOAuthCredential(server);
		const before = await server.stats();
		const run = await listAndExecute(credential, [
			mcp.pendingCall('wait', { ms: 3_200 }),
			mcp.pendingCall('whoami'),
		]);
		expect(callTexts(run)[0]).toBe('waited');
		expect(JSON.parse(callTexts(run)[1])).toMatchObject({ clientId: credential.clientId });
		expect((await server.stats()).refreshes - before.refreshes).toBe(1);
		const saved = run.credentials[TYPE].oauthTokenData as IDataObject;
		const first = credential.oauthTokenData as IDataObject;
		expect(saved.access_token).not.toBe(first.access_token);
		expect(saved.refresh_token).not.toBe(first.refresh_token);
		expect(Number(saved.n8n_expires_at)).toBeGreaterThan(Number(first.n8n_expires_at));
		expectNoSecret(run, secretsIn(credential, run.credentials[TYPE]));
	});

	it('renews through n8n before using a token that is about to expire, in a later execution', async () => {
		const credential = await connectedOAuthCredential(server);
		const first = await mcp.runMcpChain([listTools], { credentials: { [TYPE]: credential } });
		expect(errorOf(first, 'List Tools')).toBeUndefined();
		await new Promise((resolve) => setTimeout(resolve, 2_500));
		const before = await server.stats();
		const second = await mcp.runMcpChain([listTools], { credentials: first.credentials });
		expect(errorOf(second, 'List Tools')).toBeUndefined();
		const after = await server.stats();
		expect(after.refreshes - before.refreshes).toBe(1);
		const saved = second.credentials[TYPE].oauthTokenData as IDataObject;
		expect(saved.access_token).not.toBe((credential.oauthTokenData as IDataObject).access_token);
	});

	it('fails the node, saying to connect, when the credential was never connected', async () => {
		const run = await mcp.runMcpChain([listTools], {
			credentials: { [TYPE]: { serverUrl: server.mcp, transport: 'auto', clientId: 'x' } },
		});
		expect(errorOf(run, 'List Tools')?.message).toMatch(
			/not connected: open it and use "Connect my account"/,
		);
	});

	it("answers n8n's Custom API Call, which n8n offers beside an OAuth2 credential, with what to use", async () => {
		const run = await mcp.runMcpChain([oauthNode('Custom', { operation: '__CUSTOM_API_CALL__' })], {
			credentials: { [TYPE]: await connectedOAuthCredential(server) },
		});
		expect(errorOf(run, 'Custom')?.message).toMatch(
			/an MCP server takes no custom API calls; use Call Tool, or n8n's HTTP Request node/,
		);
	});

	it('tests the credential by listing the tools, and never renews in a test', async () => {
		const credential = await connectedOAuthCredential(server);
		const test = (data: ICredentialDataDecryptedObject) =>
			credentialTestContext().then((context) =>
				mcpServerConnection.call(context, { id: 'oauth', name: 'Remote', type: TYPE, data }),
			);
		expect(await test(credential)).toEqual({
			status: 'OK',
			message: expect.stringMatching(
				/^Connected to oauth-server 1\.0\.0 \(MCP [\d-]+, streamableHttp\): \d+ tools$/,
			),
		});
		await new Promise((resolve) => setTimeout(resolve, 3_100));
		const before = await server.stats();
		const expired = await test(credential);
		expect(expired.status).toBe('Error');
		expect(expired.message).toMatch(
			/^OAuth refresh failed: .*\/token could not be renewed through the credential: a credential test does not renew the access token/,
		);
		expect((await server.stats()).refreshes).toBe(before.refreshes);
		for (const secret of secretsIn(credential)) expect(expired.message).not.toContain(secret);
	});
});

describe('MCP Client with a broken OAuth server', () => {
	/** A credential whose token the server refuses, so the node must go through OAuth again. */
	const refusedCredential = (server: OAuthServerHandle) => ({
		serverUrl: server.mcp,
		transport: 'streamableHttp',
		clientId: 'client-1',
		clientSecret: 'client-secret-4711',
		authentication: 'body',
		grantType: 'authorizationCode',
		accessTokenUrl: new URL('token', server.issuer).href,
		oauthTokenData: {
			access_token: 'access-token-refused-1234',
			refresh_token: 'refresh-token-unknown-5678',
			token_type: 'bearer',
		},
	});
	const cases: Array<[string, RegExp]> = [
		[
			'metadata-html',
			/OAuth discovery failed: .*\/\.well-known\/oauth-protected-resource\/mcp answered HTTP 200 with text\/html, not JSON.*Check the server URL/,
		],
		[
			'metadata-invalid',
			/OAuth discovery failed: .*\/\.well-known\/oauth-authorization-server answered metadata that is not valid/,
		],
		[
			'unreachable',
			/OAuth discovery failed: .* could not be reached \(ECONNREFUSED\).*proxy settings/,
		],
		[
			'token-html',
			/OAuth refresh failed: .*\/token could not be renewed through the credential: .*reconnect the credential/,
		],
		[
			'refresh',
			/OAuth refresh failed: .*could not be renewed through the credential: The credential .* needs to be reconnected/,
		],
	];
	it.each(cases)(
		'%s: the node fails naming the step and what to check',
		async (fault, expected) => {
			const server = await startOAuthServer(['--break', fault]);
			const credential = refusedCredential(server);
			const started = Date.now();
			const run = await mcp.runMcpChain([listTools], { credentials: { [TYPE]: credential } });
			const error = errorOf(run, 'List Tools');
			expect(`${error?.message} ${error?.description ?? ''}`).toMatch(expected);
			expect(Date.now() - started).toBeLessThan(15_000);
			expectNoSecret(run, secretsIn(credential));
			await server.stop();
		},
	);
});
