/**
 * What a long conversation costs n8n: examples/mcp-tool-loop.json in n8n's real engine with all 13
 * tools of server-everything (over stdio) and a local stand-in for the Chat Completions API that
 * asks for one echo call a round, then answers. For 2, 5, 10 and 20 rounds it prints the final
 * item's size and the execution data n8n stores (flatted, as n8n's execution repository writes
 * it), with the default compact trace and with every request kept whole. Run it with `npm run probe`.
 */
import { stringify } from 'flatted';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { reply } from '../support/chatCompletionsStandIn';
import { nodeTypesFrom, runsOf, runWorkflow } from '../support/engine';
import { loadExample } from '../support/examples';
import { stdioCredential, stopServersAfterAll } from '../support/mcpWorkflow';
import { modelNodeTypes } from '../support/modelWorkflow';
import { everythingStdio } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest();
stopServersAfterAll();

const kb = (text: string) => Buffer.byteLength(text) / 1024;

async function runRounds(rounds: number, payloads: 'full' | 'verbatim') {
	api.script(
		...Array.from({ length: rounds - 1 }, (_, index) =>
			reply.toolCalls([
				{ id: `call_${index}`, name: 'echo', arguments: `{"message":"round ${index + 1}"}` },
			]),
		),
		reply.text('Done.'),
	);
	const traceOptions = { payloads };
	const workflow = loadExample('mcp-tool-loop.json', {
		'List Tools': { toolFilter: 'all', includeTools: [], traceOptions },
		Model: { options: { maxRounds: 30 }, traceOptions },
		'Execute Tool Calls': { traceOptions },
	});
	const run = await runWorkflow(workflow, {
		nodeTypes: { ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) },
		credentials: {
			mcpEverything: stdioCredential(everythingStdio()),
			openAi: { baseUrl: api.baseURL, apiKey: 'sk-probe-key', organization: '', headers: {} },
		},
	});
	expect(run.status).toBe('success');
	const final = runsOf(run, 'Model').at(-1)!.outputs[1][0].json;
	return { item: kb(JSON.stringify(final)), stored: kb(stringify(run.raw.data)) };
}

it('keeps the execution data of a 20-round loop within 800 KB, and its item under half its whole size', async () => {
	const lines = ['rounds  final item (compact / whole)  execution data (compact / whole)'];
	let twenty = { compact: { item: 0, stored: 0 }, whole: { item: 0, stored: 0 } };
	for (const rounds of [2, 5, 10, 20]) {
		const compact = await runRounds(rounds, 'full');
		const whole = await runRounds(rounds, 'verbatim');
		const pair = (a: number, b: number) => `${a.toFixed(1)} KB / ${b.toFixed(1)} KB`;
		lines.push(
			`${String(rounds).padStart(6)}  ${pair(compact.item, whole.item).padEnd(28)}  ${pair(compact.stored, whole.stored)}`,
		);
		twenty = { compact, whole };
	}
	process.stdout.write(`\nExecution data of the tool loop\n${lines.join('\n')}\n\n`);
	expect(twenty.compact.stored).toBeLessThanOrEqual(800);
	expect(twenty.compact.item).toBeLessThan(twenty.whole.item / 2);
}, 300_000);
