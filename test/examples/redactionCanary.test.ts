/**
 * The redaction canary: one secret placed in the model credential (its API key), in the stdio
 * server's environment, in a tool's output (text and a text file), in the model's output (its
 * arguments and its answer) and in a vendor error. It must appear in no output item, trace,
 * binary, error or log line.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { INodeExecutionData } from 'n8n-workflow';
import { sharedPool } from '../../lib/mcp';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { ToolCallTrace } from '../../nodes/ToolCallTrace/ToolCallTrace.node';
import { reply } from '../support/chatCompletionsStandIn';
import { nodeTypesFrom, runWorkflow, type EngineRun } from '../support/engine';
import { chain, mcpClientNode, stdioCredential } from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { childEnv, faultStdio, stopAllServers } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

const CANARY = 'canary-5e1f0c9a7b';
const api = standInForEachTest({ apiKey: CANARY });
afterEach(() => sharedPool.closeAll());
afterAll(stopAllServers);

const nodeTypes = () => ({
	...modelNodeTypes(),
	...nodeTypesFrom(new McpClient(), new ToolCallTrace()),
});
const credentials = () => ({
	mcpStdioServerApi: stdioCredential({ ...faultStdio(), env: childEnv({ CANARY_SECRET: CANARY }) }),
	openai: standInCredential(api, { apiKey: CANARY }).openAiCompatibleApi,
});
/** List → Model → Execute → Model, whose Final Answer goes to the JSON Lines export. */
function loop(extra: { continueOnFail?: boolean } = {}) {
	const workflow = chain(
		mcpClientNode('List Tools', {
			operation: 'listTools',
			toolFilter: 'only',
			includeTools: ['env_file', 'echo'],
		}),
		modelNode('Model', { userMessage: 'What is in your environment?' }, extra),
		mcpClientNode('Execute', { operation: 'executeToolCalls' }),
		modelNode('Model Again', {}, extra),
		{
			id: 'export',
			name: 'Export',
			type: 'n8n-nodes-tool-calling.toolCallTrace',
			typeVersion: 1,
			position: [0, 0],
			parameters: { operation: 'exportJsonLines' },
		},
	);
	workflow.connections['Model Again'] = {
		main: [[], [{ node: 'Export', type: 'main', index: 0 }]],
	};
	return workflow;
}

/** Every line n8n's logger wrote while `work` ran, at any level: its output is swapped for a recorder. */
async function logged(
	work: () => Promise<EngineRun>,
): Promise<{ run: EngineRun; lines: string[] }> {
	// Every level method ends in internalLogger.log (n8n's Logger wraps winston); the test reads it there.
	type Output = { log(level: string, message: string, meta?: object): void; child(): Output };
	const logger = Container.get(Logger) as unknown as { internalLogger: Output };
	const lines: string[] = [];
	const output = logger.internalLogger;
	const recorder: Output = {
		log: (level, message, meta) => lines.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`),
		child: () => recorder,
	};
	logger.internalLogger = recorder;
	try {
		return { run: await work(), lines };
	} finally {
		logger.internalLogger = output;
	}
}

/** Everything a run wrote: items, binaries (decoded), errors. */
function written(run: EngineRun): string {
	const items: INodeExecutionData[] = Object.values(run.nodes).flatMap((runs) =>
		runs.flatMap((nodeRun) => nodeRun.outputs.flat()),
	);
	const binaries = items.flatMap((item) =>
		Object.values(item.binary ?? {}).map((binary) =>
			Buffer.from(binary.data, 'base64').toString('utf8'),
		),
	);
	const errors = Object.values(run.nodes)
		.flatMap((runs) => runs.map((nodeRun) => nodeRun.error))
		.filter(Boolean);
	return [
		JSON.stringify(items),
		...binaries,
		JSON.stringify(errors, Object.getOwnPropertyNames(errors[0] ?? {})),
		JSON.stringify(run.error ?? null),
	].join('\n');
}

describe('the redaction canary', () => {
	it('leaves no trace of the secret in items, traces, binaries or log lines of a whole loop', async () => {
		api.script(
			reply.toolCalls([
				{ name: 'env_file', arguments: '{}' },
				// The model repeats the secret in a call the schema refuses: that failure is logged.
				{ name: 'echo', arguments: JSON.stringify({ text: CANARY, extra: CANARY }) },
			]),
			reply.text(`Your secret is ${CANARY}.`),
		);
		const { run, lines } = await logged(() =>
			runWorkflow(loop(), { nodeTypes: nodeTypes(), credentials: credentials() }),
		);

		expect(run.status).toBe('success');
		const output = written(run);
		// The secret went everywhere it could: the server printed it, the model said it, the key sent it.
		expect(api.requests[0].headers.authorization).toBe(`Bearer ${CANARY}`);
		expect(output).toContain('CANARY_SECRET=[redacted]');
		expect(output).toContain('Your secret is [redacted].');
		expect(lines.some((line) => line.includes('ended invalidArguments'))).toBe(true);
		// The tool's text file and the trace export are binaries of the final item; written() reads both.
		const binaries = run.nodes.Export[0].outputs[0][0].binary!;
		expect(
			Object.values(binaries)
				.map((binary) => binary.mimeType)
				.sort(),
		).toEqual(['application/x-ndjson', 'text/plain']);
		// ...and none of it was written.
		expect(output).not.toContain(CANARY);
		expect(lines.join('\n')).not.toContain(CANARY);
	});

	it('leaves no trace of it in a vendor error that repeats the key, failed or continued', async () => {
		const refusal = reply.error(401, {
			message: `Incorrect API key provided: ${CANARY}.`,
			code: 'invalid_api_key',
		});
		api.script(refusal);
		const failed = await logged(() =>
			runWorkflow(loop(), { nodeTypes: nodeTypes(), credentials: credentials() }),
		);
		expect(failed.run.status).toBe('error');
		expect(failed.run.error?.message).toContain('Incorrect API key provided: [redacted].');

		api.script(refusal);
		const continued = await logged(() =>
			runWorkflow(loop({ continueOnFail: true }), {
				nodeTypes: nodeTypes(),
				credentials: credentials(),
			}),
		);
		expect(JSON.stringify(continued.run.nodes.Model[0].outputs)).toContain(
			'Incorrect API key provided: [redacted].',
		);

		for (const { run, lines } of [failed, continued]) {
			expect(written(run)).not.toContain(CANARY);
			expect(lines.join('\n')).not.toContain(CANARY);
		}
	});
});
