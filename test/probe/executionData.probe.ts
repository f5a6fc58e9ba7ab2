/**
 * What a long conversation costs n8n: examples/mcp-tool-loop.json in n8n's real engine with all 13
 * tools of server-everything (over stdio) and a local stand-in for the Chat Completions API that
 * asks for one echo call a round, then answers (test/support/executionData.ts). For 2, 5, 10 and
 * 20 rounds it prints the final item's size and the execution data n8n stores (flatted, as n8n's
 * execution repository writes it), with the default compact trace and with every request kept
 * whole. Run it with `npm run probe`.
 */
import { EXECUTION_DATA_ROUNDS, measureExecutionData } from '../support/executionData';
import { stopServersAfterAll } from '../support/mcpWorkflow';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest();
stopServersAfterAll();

it('keeps the execution data of a 20-round loop within 800 KB, and its item under half its whole size', async () => {
	const lines = ['rounds  final item (compact / whole)  execution data (compact / whole)'];
	let twenty = { compact: { item: 0, flatted: 0 }, whole: { item: 0, flatted: 0 } };
	for (const rounds of EXECUTION_DATA_ROUNDS) {
		const compact = await measureExecutionData(api, rounds, 'full');
		const whole = await measureExecutionData(api, rounds, 'verbatim');
		const pair = (a: number, b: number) => `${a.toFixed(1)} KB / ${b.toFixed(1)} KB`;
		lines.push(
			`${String(rounds).padStart(6)}  ${pair(compact.item, whole.item).padEnd(28)}  ${pair(compact.flatted, whole.flatted)}`,
		);
		twenty = { compact, whole };
	}
	process.stdout.write(`\nExecution data of the tool loop\n${lines.join('\n')}\n\n`);
	expect(twenty.compact.flatted).toBeLessThanOrEqual(800);
	expect(twenty.compact.item).toBeLessThan(twenty.whole.item / 2);
}, 300_000);
