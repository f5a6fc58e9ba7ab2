/**
 * Remote MCP servers in the real n8n: an MCP server of ours behind OAuth 2.1 (test/servers/oauth-server.mjs,
 * whose authorization server approves at once) is signed in to through n8n's own Connect flow, then
 * published workflows list and call its tools, renew an expired token through n8n, read its resources
 * and prompts, and read a blob of server-everything as binary data. A server that refuses the renewal
 * ends in an error naming the step, without a token in it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
	callWebhook,
	cookiesOf,
	createCredential,
	lastExecution,
	publishWorkflow,
	rest,
	type Loose,
} from '../n8nRest.ts';
import type { PhaseRun, RunningN8n } from '../phase.ts';

const MCP_CLIENT = 'n8n-nodes-tool-calling.mcpClient';
const OAUTH_CREDENTIAL = 'mcpServerOAuth2Api';
/** Short enough that the second run meets an expired token. */
const TOKEN_SECONDS = 3;

export interface OAuthServer {
	mcp: string;
	stats: string;
	process: ChildProcess;
}

/** Starts test/servers/oauth-server.mjs in its own process group; resolves with the URLs it prints. */
export function startOAuthServer(run: PhaseRun, args: string[]): Promise<OAuthServer> {
	const child = spawn(
		process.execPath,
		[join(run.projectRoot, 'test/servers/oauth-server.mjs'), ...args],
		{
			cwd: run.projectRoot,
			detached: true,
			stdio: ['ignore', 'pipe', 'inherit'],
			env: { ...process.env, E2E_RUN_ID: run.runId },
		},
	);
	return new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error('the OAuth server printed no URLs within 20 s')),
			20_000 * run.timeoutScale,
		);
		child.once('exit', (code) => reject(new Error(`the OAuth server exited (${code})`)));
		createInterface({ input: child.stdout! }).once('line', (line) => {
			clearTimeout(timer);
			const { mcp, stats } = JSON.parse(line) as { mcp: string; stats: string };
			resolve({ mcp, stats, process: child });
		});
	});
}

export function stopServer(server: OAuthServer | undefined): void {
	if (server?.process.pid !== undefined && server.process.exitCode === null) {
		try {
			process.kill(-server.process.pid, 'SIGTERM');
		} catch {
			// Already gone.
		}
	}
}

export const serverStats = async (server: OAuthServer) =>
	(await (await fetch(server.stats)).json()) as Record<string, number>;

/** The credential's stored data as n8n gives it to its owner (secrets included). */
async function credentialData(n8n: RunningN8n, id: string): Promise<Loose> {
	const reply = await rest(n8n, 'GET', `/rest/credentials/${id}?includeData=true`);
	return reply.json?.data?.data;
}

/**
 * n8n's Connect button without the browser: n8n discovers the authorization server, registers
 * itself and returns the authorization URL; our authorization server approves at once and sends the
 * browser to n8n's callback, which exchanges the code (PKCE) and stores the tokens.
 */
async function connect(n8n: RunningN8n, credentialId: string): Promise<true | string> {
	const start = await rest(n8n, 'GET', `/rest/oauth2-credential/auth?id=${credentialId}`);
	const authorizationUrl = start.json?.data;
	if (start.status !== 200 || typeof authorizationUrl !== 'string') {
		return `auth: HTTP ${start.status} ${start.text.slice(0, 300)}`;
	}
	const approval = await fetch(authorizationUrl, { redirect: 'manual' });
	const callback = approval.headers.get('location');
	if (!callback?.startsWith(`${n8n.baseUrl}/rest/oauth2-credential/callback`)) {
		return `authorize: HTTP ${approval.status}, sent to ${callback}`;
	}
	const done = await rest(
		n8n,
		'GET',
		callback.slice(n8n.baseUrl.length),
		undefined,
		cookiesOf(start),
	);
	if (done.status !== 200 || /error/i.test(done.text.replace(/<script[\s\S]*?<\/script>/g, ''))) {
		return `callback: HTTP ${done.status} ${done.text.replace(/\s+/g, ' ').slice(0, 300)}`;
	}
	return true;
}

/** Starts an OAuth server of ours (kept in `servers` to be stopped), and connects a credential for it through n8n. */
async function connectedServer(
	run: PhaseRun,
	n8n: RunningN8n,
	servers: OAuthServer[],
	name: string,
	args: string[],
) {
	const server = await startOAuthServer(run, args);
	servers.push(server);
	const credential = {
		type: OAUTH_CREDENTIAL,
		id: await createCredential(n8n, name, OAUTH_CREDENTIAL, {
			serverUrl: server.mcp,
			transport: 'auto',
			useDynamicClientRegistration: true,
		}),
	};
	return { server, credential, connected: await connect(n8n, credential.id) };
}

const webhook = (path: string, responseData = 'firstEntryJson', binaryProperty?: string) => ({
	name: 'Webhook',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	position: [0, 0],
	webhookId: path,
	parameters: {
		httpMethod: 'POST',
		path,
		responseMode: 'lastNode',
		responseData,
		...(binaryProperty ? { responseBinaryPropertyName: binaryProperty } : {}),
		options: {},
	},
});

function mcpNode(
	name: string,
	at: number,
	credential: { type: string; id: string },
	parameters: Record<string, unknown>,
	settings: Record<string, unknown> = {},
) {
	return {
		name,
		type: MCP_CLIENT,
		typeVersion: 1,
		position: [at * 220, 0],
		parameters: {
			connectionType: credential.type === OAUTH_CREDENTIAL ? 'oauth2' : 'stdio',
			...parameters,
		},
		credentials: { [credential.type]: { id: credential.id, name: credential.id } },
		...settings,
	};
}

/** A chain of nodes, each feeding the next. */
export function chain(name: string, nodes: Array<{ name: string; [key: string]: unknown }>) {
	const connections: Record<string, unknown> = {};
	nodes.slice(1).forEach((node, at) => {
		connections[nodes[at].name] = { main: [[{ node: node.name, type: 'main', index: 0 }]] };
	});
	return { name, nodes, connections };
}

const byUri = (value: string) => ({ __rl: true, mode: 'uri', value });
const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

/** A conversation whose model asked for one `echo` call: what the Tool Calling Model would leave. */
function pendingEcho(text: string): Loose {
	const rawArguments = JSON.stringify({ text });
	return {
		messages: [
			{ role: 'user', content: `Say ${text}` },
			{
				role: 'assistant',
				content: null,
				tool_calls: [
					{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: rawArguments } },
				],
			},
		],
		toolCalls: [{ id: 'call_1', name: 'echo', arguments: { text }, rawArguments }],
	};
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const lastToolMessage = (json: Loose) =>
	(json?.messages ?? []).filter((message: Loose) => message.role === 'tool').at(-1);
const brief = (value: unknown) => JSON.stringify(value)?.slice(0, 400);

export async function oauthPhase(run: PhaseRun, n8n: RunningN8n): Promise<void> {
	const servers: OAuthServer[] = [];
	const timeout = 60_000 * run.timeoutScale;
	try {
		const { server, credential, connected } = await connectedServer(
			run,
			n8n,
			servers,
			'MCP behind OAuth (e2e)',
			['--token-seconds', String(TOKEN_SECONDS)],
		);
		const stored = await credentialData(n8n, credential.id);
		const stats = await serverStats(server);
		run.check(
			"oauth: n8n's Connect flow signs in to the MCP server (discovery, client registration, PKCE) and stores the tokens",
			connected === true &&
				stats.registrations === 1 &&
				stats.tokens === 1 &&
				Boolean(stored?.oauthTokenData),
			connected === true
				? `server saw ${brief(stats)}; stored token data: ${brief(stored?.oauthTokenData)}`
				: connected,
		);

		await publishWorkflow(
			n8n,
			chain('OAuth tools (e2e)', [
				webhook('e2e-oauth-tools'),
				{
					name: 'Conversation',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [220, 0],
					parameters: { mode: 'raw', jsonOutput: '={{ JSON.stringify($json.body) }}', options: {} },
				},
				mcpNode('List Tools', 2, credential, { operation: 'listTools' }),
				mcpNode('Execute Tool Calls', 3, credential, { operation: 'executeToolCalls' }),
			]),
		);
		const first = await callWebhook(n8n, 'e2e-oauth-tools', pendingEcho('first'), timeout);
		run.check(
			'oauth: List Tools and Execute Tool Calls run with the signed-in credential',
			first.status === 200 && lastToolMessage(first.json)?.content === 'first',
			`HTTP ${first.status} ${brief(first.json ?? first.text)}`,
		);

		// A refresh token works once on our server: the second renewal succeeds only if n8n stored
		// the tokens the first one returned.
		const renewals: string[] = [];
		for (const [index, text] of ['second', 'third'].entries()) {
			await sleep((TOKEN_SECONDS + 1) * 1000);
			const reply = await callWebhook(n8n, 'e2e-oauth-tools', pendingEcho(text), timeout);
			const { refreshes } = await serverStats(server);
			if (reply.status !== 200 || lastToolMessage(reply.json)?.content !== text) {
				renewals.push(`${text}: HTTP ${reply.status} ${brief(reply.json ?? reply.text)}`);
			}
			if (refreshes !== index + 1) {
				renewals.push(`${text}: the server saw ${refreshes} renewals`);
			}
		}
		run.check(
			'oauth: an expired token is renewed through n8n without the user, twice (n8n stored the renewed tokens)',
			renewals.length === 0,
			renewals.join('; '),
		);

		await publishWorkflow(
			n8n,
			chain('OAuth resources and prompts (e2e)', [
				webhook('e2e-oauth-resources'),
				mcpNode('List Resources', 1, credential, { operation: 'listResources' }),
				mcpNode('Read Resource', 2, credential, {
					operation: 'readResource',
					resource: byUri('={{ $json.resources.at(-1).uri }}'),
				}),
				mcpNode('List Prompts', 3, credential, { operation: 'listPrompts' }),
				mcpNode('Get Prompt', 4, credential, {
					operation: 'getPrompt',
					prompt: fromList('prompt-1'),
					promptArguments: { mappingMode: 'defineBelow', value: { topic: 'tides' } },
				}),
			]),
		);
		const listed = await callWebhook(n8n, 'e2e-oauth-resources', {}, timeout);
		const json = listed.json ?? {};
		run.check(
			'oauth: resources (every page) and prompts of the server in n8n: List Resources, Read Resource, List Prompts, Get Prompt',
			listed.status === 200 &&
				json.resources?.length === 5 &&
				json.resource?.uri === 'memo://notes/5' &&
				json.resource?.contents?.[0]?.text === 'contents of memo://notes/5' &&
				json.prompts?.length === 3 &&
				json.messages?.length > 0 &&
				json.trace?.map((entry: Loose) => entry.step).join(',') ===
					'resources.list,resources.read,prompts.list,prompts.get',
			`HTTP ${listed.status} ${brief(json)}`,
		);
		await blobAsBinary(run, n8n, timeout);
		await refusedRenewal(run, n8n, servers, timeout);
	} finally {
		for (const server of servers) stopServer(server);
	}
}

/** server-everything's blob resource comes out of Read Resource as n8n binary data. */
async function blobAsBinary(run: PhaseRun, n8n: RunningN8n, timeout: number): Promise<void> {
	const everything = createRequire(join(run.projectRoot, 'package.json')).resolve(
		'@modelcontextprotocol/server-everything/package.json',
	);
	const { bin } = (await import(everything, { with: { type: 'json' } })).default as {
		bin: string | Record<string, string>;
	};
	const entry = join(dirname(everything), typeof bin === 'string' ? bin : Object.values(bin)[0]);
	const credential = {
		type: 'mcpStdioServerApi',
		id: await createCredential(n8n, 'MCP everything (e2e resources)', 'mcpStdioServerApi', {
			command: process.execPath,
			arguments: { argument: [{ value: entry }, { value: 'stdio' }] },
			environment: {
				variable: [
					{ name: 'PATH', value: process.env.PATH ?? '' },
					{ name: 'E2E_RUN_ID', value: run.runId },
				],
			},
			cwd: '',
		}),
	};
	await publishWorkflow(
		n8n,
		chain('Blob resource (e2e)', [
			webhook('e2e-blob', 'firstEntryBinary', 'resource'),
			mcpNode('Read Resource', 1, credential, {
				operation: 'readResource',
				resource: byUri('demo://resource/dynamic/blob/1'),
			}),
		]),
	);
	const reply = await callWebhook(n8n, 'e2e-blob', {}, timeout);
	run.check(
		"oauth: a blob resource (server-everything) is the item's binary data in n8n",
		reply.status === 200 && reply.text.startsWith('Resource 1: This is a base64 blob'),
		`HTTP ${reply.status} ${reply.headers.get('content-type')} ${reply.text.slice(0, 200)}`,
	);
}

/**
 * A server whose token endpoint refuses renewals: once the token expired, the call ends in an error
 * that names the renewal and what to do, never a token.
 */
async function refusedRenewal(
	run: PhaseRun,
	n8n: RunningN8n,
	servers: OAuthServer[],
	timeout: number,
): Promise<void> {
	const { credential, connected } = await connectedServer(
		run,
		n8n,
		servers,
		'MCP refusing renewals (e2e)',
		['--token-seconds', '1', '--break', 'refresh'],
	);
	const workflowId = await publishWorkflow(
		n8n,
		chain('OAuth renewal refused (e2e)', [
			webhook('e2e-oauth-refused'),
			mcpNode('List Tools', 1, credential, { operation: 'listTools' }),
		]),
	);
	await sleep(2000);
	const reply = await callWebhook(n8n, 'e2e-oauth-refused', {}, timeout);
	const execution = await lastExecution(n8n, workflowId);
	const error = execution?.resultData?.runData?.['List Tools']?.[0]?.error;
	const stored = JSON.stringify(execution ?? null);
	run.check(
		'oauth: a refused renewal ends in an execution error naming the step, with no token in the stored execution',
		connected === true &&
			reply.status >= 400 &&
			/renew|refresh/i.test(`${error?.message} ${error?.description}`) &&
			!TOKEN.test(stored),
		connected === true
			? `HTTP ${reply.status}; error ${brief({ message: error?.message, description: error?.description })}; token in execution: ${TOKEN.test(stored)}`
			: connected,
	);
}

/** The tokens our authorization server issues. */
const TOKEN = /\b(at|rt)-[0-9a-f]{24}\b/;
