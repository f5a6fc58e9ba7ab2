/**
 * The redaction canary: one secret placed in the model credential (its API key) and in the stdio
 * server's environment, which a hostile server passes on in every form it can (raw, base64,
 * URL-encoded, hex, JSON-escaped, split across parts, inside binary data, in a JSON-RPC error, on
 * stderr before crashing, in a tools/list error, at start-up), and which the model repeats. It must
 * appear, in no form and not in part, in any byte that leaves: output items and their traces,
 * binary data, the saved run data and errors, the errors n8n's error reporter is given (with their
 * causes and stacks), and n8n's own log output at debug level.
 */
import { sharedPool } from '../../lib/mcp';
import { leaksOf } from '../support/leaks';
import {
	callToolLeak,
	leakingLoop,
	mcpNodeFailing,
	refusedKey,
	stderrBeforeCrash,
} from '../support/leakScenarios';
import { everythingWritten, type Observed } from '../support/observe';
import { stopAllServers } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

// n8n's logger takes its level when first made: debug, so every line n8n would print is read.
process.env.N8N_LOG_LEVEL = 'debug';

const CANARY = 'canary-5e1f0c9a7b';
const api = standInForEachTest({ apiKey: CANARY });
const setting = { secret: CANARY, api };
afterEach(() => sharedPool.closeAll());
afterAll(stopAllServers);

function expectNoLeak(observation: Observed): void {
	expect(leaksOf(everythingWritten(observation), CANARY)).toEqual([]);
}

describe('the redaction canary', () => {
	it('leaves no trace of the secret, in any form, anywhere a whole loop writes', async () => {
		const observation = await leakingLoop(setting);
		const { run, log } = observation;

		expect(run.status).toBe('success');
		// The secret went everywhere it could: the key sent it, the server and the model said it.
		expect(api.requests[0].headers.authorization).toBe(`Bearer ${CANARY}`);
		const final = run.nodes.Export[0].outputs[0][0];
		const messages = JSON.stringify(final.json.messages);
		expect(messages).toContain('CANARY_SECRET=[redacted]');
		expect(messages).toContain('raw [redacted]');
		expect(messages).toContain('split [redacted]\\n[redacted] across parts');
		expect(messages).toContain(
			'[image image/png withheld: it holds a secret of the credential in use]',
		);
		expect(messages).toContain(
			'[blob application/octet-stream fault://leak.bin withheld: it holds a secret of the credential in use]',
		);
		expect(messages).toContain('Upstream refused the key [redacted] (JSON-RPC error -32000)');
		expect(messages).toContain('Your secret is [redacted], or [redacted]');
		expect(log.some((line) => line.includes('ended invalidArguments'))).toBe(true);
		// Text-like binaries stay, redacted; the trace export is one more binary.
		const binaries = Object.values(final.binary!);
		expect(binaries.map((binary) => binary.mimeType).sort()).toEqual([
			'application/csv',
			'application/json',
			'application/x-ndjson',
			'text/plain',
		]);
		const csv = binaries.find((binary) => binary.mimeType === 'application/csv')!;
		expect(Buffer.from(csv.data, 'base64').toString()).toBe('name,value\nkey,[redacted]\n');
		// ...and none of it was written, in any form.
		expectNoLeak(observation);
	});

	it('leaves no trace of it in a vendor error that repeats the key, failed or continued', async () => {
		const failed = await refusedKey(setting, false);
		expect(failed.run.status).toBe('error');
		expect(failed.run.error?.message).toContain('Incorrect API key provided: [redacted].');
		expect(failed.reported.length).toBeGreaterThan(0);

		const continued = await refusedKey(setting, true);
		expect(JSON.stringify(continued.run.nodes.Model[0].outputs)).toContain(
			'Incorrect API key provided: [redacted].',
		);
		for (const observation of [failed, continued]) expectNoLeak(observation);
	});

	it('leaves no trace of it in node errors, their causes and stacks, failed or continued', async () => {
		const observations: Observed[] = [];
		for (const continueOnFail of [false, true]) {
			for (const how of ['list refused', 'tool error fails the node', 'start fails'] as const)
				observations.push(await mcpNodeFailing(setting, how, continueOnFail));
		}
		const [listFailed, toolFailed, startFailed] = observations;
		expect(listFailed.run.error?.message).toContain(
			'Listing refused: key [redacted] is not allowed',
		);
		// n8n's reporter got the error with its cause (the server's JSON-RPC error), and printed both.
		const cause = (listFailed.reported[0] as Error).cause as Error;
		expect(cause.message).toContain('[redacted]');
		expect(cause.stack).toContain('[redacted]');
		expect(toolFailed.run.error?.description).toContain('Upstream refused the key [redacted]');
		expect(startFailed.run.error?.message).toMatch(/^Could not connect to the MCP server/);
		expect(startFailed.run.error?.description).toContain('key [redacted]');
		for (const observation of observations) {
			expect(observation.log.length).toBeGreaterThan(0);
			expectNoLeak(observation);
		}
	});

	it('leaves no part of it in the stderr tail of a server that prints it just before crashing', async () => {
		const observation = await stderrBeforeCrash(setting);
		const [item] = observation.run.nodes.Execute[0].outputs[0];
		const [message] = (item.json.messages as Array<{ content: string }>).slice(-1);
		expect(message.content).toContain("The server's last output on stderr:\n");
		expectNoLeak(observation);
	});

	it('leaves no trace of it in what Call Tool writes, binaries included', async () => {
		const observation = await callToolLeak(setting);
		const [item] = observation.run.nodes['Call Tool'][0].outputs[0];
		expect(item.json.status).toBe('ok');
		expect(Object.values(item.binary!).map((binary) => binary.mimeType)).toEqual([
			'application/csv',
			'application/json',
		]);
		expectNoLeak(observation);
	});
});
