import { readFileSync } from 'node:fs';
import { McpConnection, sharedPool } from '../../lib/mcp';
import { outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { isProcessAlive } from '../support/servers';

mcp.stopServersAfterAll();

const credentials = mcp.faultCredentials();
const listTools = mcp.mcpClientNode('List Tools', { operation: 'listTools' });
const execute = (concurrency: number) =>
	mcp.mcpClientNode('Execute', { operation: 'executeToolCalls', options: { concurrency } });

const call = (id: string, name: string, args: Record<string, unknown> = {}) =>
	mcp.pendingCall(name, args, id);
/** The item's tools.call.result entries, one per answered call, in call order. */
const callResults = (json: Parameters<typeof mcp.conversationOf>[0]) =>
	mcp.conversationOf(json).trace.filter((entry) => entry.step === 'tools.call.result');

/** One item calling `counter` then `pid`: the count so far and the server process that answered. */
async function countAndPid(): Promise<{ count: number; pid: number }> {
	const run = await mcp.runMcpChain([listTools, execute(1)], {
		credentials,
		inputItems: [{ json: { toolCalls: [call('count', 'counter'), call('pid', 'pid')] } }],
	});
	const [count, pid] = mcp.toolMessages(outputOf(run, 'Execute')[0].json);
	expect([count.isError, pid.isError]).toEqual([undefined, undefined]);
	return {
		count: count.structuredContent?.count as number,
		pid: pid.structuredContent?.pid as number,
	};
}

/** Counts the `tools/call` requests in flight at once, and lets a test act when one starts. */
function watchCalls(onStart: (name: string) => void = () => undefined) {
	const original = McpConnection.prototype.callTool;
	let inFlight = 0;
	const watch = { maxInFlight: 0, started: 0 };
	const spy = jest.spyOn(McpConnection.prototype, 'callTool').mockImplementation(function (
		this: McpConnection,
		...args
	) {
		inFlight++;
		watch.started++;
		watch.maxInFlight = Math.max(watch.maxInFlight, inFlight);
		onStart(args[0]);
		return original.apply(this, args).finally(() => inFlight--);
	});
	return { watch, restore: () => spy.mockRestore() };
}

/** Bytes the process has read so far: for a stdio server, what arrived on its stdin. */
const bytesRead = (pid: number) =>
	Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
		await new Promise((resolve) => setImmediate(resolve));
	}
}

describe('MCP Client: many items on one pooled server', () => {
	let baseline: { count: number; pid: number };
	let restartedPid: number;

	it('answers 100 items, 8 at a time, in input order, all on one server process', async () => {
		baseline = await countAndPid();
		const inputItems = Array.from({ length: 100 }, (_, index) => ({
			json: {
				ticket: index,
				toolCalls: [
					call(`count_${index}`, 'counter'),
					call(`echo_${index}`, 'echo', { text: `item ${index}` }),
					call(`pid_${index}`, 'pid'),
				],
			},
		}));
		const { watch, restore } = watchCalls();
		let items;
		try {
			items = outputOf(
				await mcp.runMcpChain([listTools, execute(8)], { credentials, inputItems }),
				'Execute',
			);
		} finally {
			restore();
		}

		expect(watch.started).toBe(300);
		// The first eight items start their first call together; the option caps how many run at once.
		expect(watch.maxInFlight).toBe(8);
		expect(items).toHaveLength(100);
		expect(items.map((item) => item.json.ticket)).toEqual(inputItems.map((_, index) => index));
		expect(items.map((item) => item.pairedItem)).toEqual(
			inputItems.map((_, index) => ({ item: index })),
		);

		const counts: number[] = [];
		for (const [index, item] of items.entries()) {
			mcp.expectConversationItem(item.json);
			const messages = mcp.toolMessages(item.json);
			expect(messages.map((message) => [message.tool_call_id, message.isError])).toEqual([
				[`count_${index}`, undefined],
				[`echo_${index}`, undefined],
				[`pid_${index}`, undefined],
			]);
			expect(messages[1].content).toBe(`item ${index}`);
			expect(messages[2].structuredContent).toEqual({ pid: baseline.pid });
			expect(callResults(item.json).map((entry) => [entry.callId, entry.status])).toEqual([
				[`count_${index}`, 'ok'],
				[`echo_${index}`, 'ok'],
				[`pid_${index}`, 'ok'],
			]);
			counts.push(messages[0].structuredContent?.count as number);
		}
		// Every call counted once, by the same process: exactly the next 100 numbers, none twice.
		expect([...counts].sort((a, b) => a - b)).toEqual(
			Array.from({ length: 100 }, (_, index) => baseline.count + 1 + index),
		);
	});

	it('keeps the server across executions: same process, the count goes on', async () => {
		expect(await countAndPid()).toEqual({ count: baseline.count + 101, pid: baseline.pid });
	});

	it('gives every item an answer when the server dies in the middle of a batch, and reconnects', async () => {
		const { pid } = baseline;
		let killed: Promise<void> | undefined;
		// Once the first `slow` call has reached the server (it read the request from its stdin), kill it.
		const { restore } = watchCalls((name) => {
			if (name !== 'slow' || killed) return;
			const readBefore = bytesRead(pid);
			killed = until(() => bytesRead(pid) > readBefore, 'the server read the first call').then(
				() => {
					process.kill(pid, 'SIGKILL');
				},
			);
			// Reported by the await after the run, not as an unhandled rejection during it.
			killed.catch(() => undefined);
		});
		const inputItems = Array.from({ length: 30 }, (_, index) => ({
			json: {
				ticket: index,
				toolCalls: [call(`slow_${index}`, 'slow', { ms: 300 }), call(`pid_${index}`, 'pid')],
			},
		}));
		let items;
		try {
			items = outputOf(
				await mcp.runMcpChain([listTools, execute(4)], { credentials, inputItems }),
				'Execute',
			);
		} finally {
			restore();
		}
		await killed;

		expect(items.map((item) => item.json.ticket)).toEqual(inputItems.map((_, index) => index));
		const lost: number[] = [];
		const answeredPids = new Set<number>();
		for (const [index, item] of items.entries()) {
			mcp.expectConversationItem(item.json);
			const [slow, pidMessage] = mcp.toolMessages(item.json);
			const [slowTrace, pidTrace] = callResults(item.json);
			expect([slowTrace.callId, pidTrace.callId]).toEqual([`slow_${index}`, `pid_${index}`]);
			expect([slow.tool_call_id, pidMessage.tool_call_id]).toEqual([
				`slow_${index}`,
				`pid_${index}`,
			]);
			if (slowTrace.status === 'ok') {
				expect(slow).toMatchObject({ content: 'waited 300 ms' });
				expect(slow.isError).toBeUndefined();
			} else {
				lost.push(index);
				expect({ index, status: slowTrace.status, isError: slow.isError }).toEqual({
					index,
					status: 'connectionLost',
					isError: true,
				});
				expect(slow.content).toMatch(
					/^The MCP server stopped while running tool 'slow' \(connection closed: it may have crashed\)/,
				);
			}
			// The call after a lost one runs on the restarted server, as the lost call's message says.
			expect({ index, status: pidTrace.status, isError: pidMessage.isError }).toEqual({
				index,
				status: 'ok',
				isError: undefined,
			});
			answeredPids.add(pidMessage.structuredContent?.pid as number);
		}
		// Only the items in flight when the server died (at most 4 at once) lost their call.
		expect(lost.length).toBeGreaterThanOrEqual(1);
		expect(lost.every((index) => index < 4)).toBe(true);
		expect(answeredPids.size).toBe(1);
		[restartedPid] = answeredPids;
		expect(restartedPid).not.toBe(pid);
		expect(isProcessAlive(pid)).toBe(false);

		// The next execution runs on the restarted server, whose count started again.
		const next = await countAndPid();
		expect(next.pid).toBe(restartedPid);
		expect(isProcessAlive(next.pid)).toBe(true);
		expect(next.count).toBe(1);
	});

	it('ends the server processes on closeAll, and the pool stays usable', async () => {
		expect(isProcessAlive(restartedPid)).toBe(true);
		await sharedPool.closeAll();
		expect(sharedPool.size).toBe(0);
		expect(isProcessAlive(restartedPid)).toBe(false);
		expect(isProcessAlive(baseline.pid)).toBe(false);

		const fresh = await countAndPid();
		expect(fresh.pid).not.toBe(restartedPid);
		expect(fresh.count).toBe(1);
	});
});
