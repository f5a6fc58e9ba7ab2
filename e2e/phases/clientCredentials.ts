/**
 * An MCP server reached with nobody present, in the real n8n: a scheduled workflow calls a tool of
 * test/servers/oauth-server.mjs with the MCP Server (OAuth2 Client Credentials) credential. Nobody
 * signs in, ever: the node gets a token with the client's secret, and a new one when the short-lived
 * token expired between runs. The stored executions hold neither the secret nor a token.
 */
import {
	createCredential,
	executionData,
	executionsOf,
	publishWorkflow,
	rest,
	type Loose,
} from '../n8nRest.ts';
import type { PhaseRun, RunningN8n } from '../phase.ts';
import { chain, serverStats, startOAuthServer, stopServer, type OAuthServer } from './oauth.ts';

const CREDENTIAL = 'mcpServerClientCredentialsOAuth2Api';
const CLIENT_ID = 'e2e-scheduler';
/** Shorter than the schedule's interval: every run after the first meets an expired token. */
const TOKEN_SECONDS = 3;
const EVERY_SECONDS = 5;
const RUNS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const brief = (value: unknown) => JSON.stringify(value)?.slice(0, 400);

export async function clientCredentialsPhase(run: PhaseRun, n8n: RunningN8n): Promise<void> {
	const secret = `cs-e2e-${run.runId.slice(-8)}-${Date.now().toString(36)}`;
	let server: OAuthServer | undefined;
	let workflowId: string | undefined;
	try {
		server = await startOAuthServer(run, [
			'--client-credentials',
			`${CLIENT_ID}:${secret}`,
			'--token-seconds',
			String(TOKEN_SECONDS),
		]);
		const credentialId = await createCredential(n8n, 'MCP service account (e2e)', CREDENTIAL, {
			serverUrl: server.mcp,
			transport: 'auto',
			clientId: CLIENT_ID,
			clientAuthentication: 'clientSecret',
			clientSecret: secret,
		});
		const pending = {
			messages: [{ role: 'user', content: 'Who am I?' }],
			toolCalls: [{ id: 'call_1', name: 'whoami', arguments: {}, rawArguments: '{}' }],
		};
		workflowId = await publishWorkflow(
			n8n,
			chain('Scheduled call with client credentials (e2e)', [
				{
					name: 'Schedule',
					type: 'n8n-nodes-base.scheduleTrigger',
					typeVersion: 1.2,
					position: [0, 0],
					parameters: {
						rule: { interval: [{ field: 'seconds', secondsInterval: EVERY_SECONDS }] },
					},
				},
				{
					name: 'Conversation',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [220, 0],
					parameters: { mode: 'raw', jsonOutput: JSON.stringify(pending), options: {} },
				},
				{
					name: 'Execute Tool Calls',
					type: 'n8n-nodes-tool-calling.mcpClient',
					typeVersion: 1,
					position: [440, 0],
					parameters: { connectionType: 'clientCredentials', operation: 'executeToolCalls' },
					credentials: { [CREDENTIAL]: { id: credentialId, name: 'MCP service account (e2e)' } },
				},
			]),
		);
		const deadline = Date.now() + (RUNS + 3) * EVERY_SECONDS * 1000 * run.timeoutScale;
		let finished: Loose[] = [];
		while (Date.now() < deadline) {
			finished = (await executionsOf(n8n, workflowId)).filter(
				(execution: Loose) => execution.status !== 'running' && execution.status !== 'new',
			);
			if (finished.length >= RUNS) break;
			await sleep(1000);
		}
		const answers: string[] = [];
		const problems: string[] = [];
		for (const execution of finished.slice(0, RUNS)) {
			const data = await executionData(n8n, execution.id);
			const stored = JSON.stringify(data ?? null);
			const json =
				data?.resultData?.runData?.['Execute Tool Calls']?.[0]?.data?.main?.[0]?.[0]?.json;
			const tool = (json?.messages ?? [])
				.filter((message: Loose) => message.role === 'tool')
				.at(-1);
			answers.push(tool?.content ?? '');
			if (execution.status !== 'success' || !tool?.content?.includes(`"clientId":"${CLIENT_ID}"`))
				problems.push(
					`execution ${execution.id} ${execution.status}: ${brief(tool ?? data?.resultData?.error)}`,
				);
			if (stored.includes(secret) || /\bat-[0-9a-f]{24}\b/.test(stored))
				problems.push(`execution ${execution.id} holds the client secret or a token`);
		}
		const stats = await serverStats(server);
		run.check(
			`client credentials: a scheduled workflow calls an OAuth-protected MCP server ${RUNS} times with nobody signing in`,
			finished.length >= RUNS &&
				problems.length === 0 &&
				stats.authorizations === 0 &&
				stats.registrations === 0,
			`${finished.length} runs; ${problems.join('; ') || brief(answers)}; server saw ${brief(stats)}`,
		);
		run.check(
			'client credentials: the node asked for a new token when the old one had expired between runs',
			stats.clientCredentials >= 2,
			`the server granted ${stats.clientCredentials} token(s) for ${finished.length} runs of ${TOKEN_SECONDS}-second tokens`,
		);
	} catch (error) {
		run.check('client credentials: the phase ran to its end', false, (error as Error).message);
	} finally {
		if (workflowId)
			await rest(n8n, 'POST', `/rest/workflows/${workflowId}/deactivate`).catch(() => undefined);
		stopServer(server);
	}
}
