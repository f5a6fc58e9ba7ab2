/**
 * The adversarial probe: the nodes attacked as a hostile server and a careless or malicious model
 * would, in n8n's real engine with real server processes. Not part of `npm test` (it takes
 * minutes); run it with `npm run probe`. It prints its figures and fails on any leak, crash,
 * hang, wrong server call, lost item, leftover process or growing memory.
 *
 * - secrets: many secrets of different shapes, each passed on in every way leakScenarios knows,
 *   looked for in each of the 7 places a run writes to;
 * - bad inputs: hostile tool-call arguments, each in its own execution against a server that
 *   echoes what it receives;
 * - faults: every fault the hostile server can make, several items per execution;
 * - memory: 10,000 executions on one pooled server, heap, RSS and open files measured.
 */
import { readdirSync } from 'node:fs';
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { canonicalJson } from '../../lib/json/canonical';
import { sharedPool } from '../../lib/mcp';
import { startChatCompletionsStandIn } from '../support/chatCompletionsStandIn';
import { outputOf, type EngineRun } from '../support/engine';
import { leaksOf } from '../support/leaks';
import {
	callToolLeak,
	failingStart,
	hostileServer,
	leakingLoop,
	mcpNodeFailing,
	refusedKey,
	stderrBeforeCrash,
	type LeakSetting,
} from '../support/leakScenarios';
import * as mcp from '../support/mcpWorkflow';
import { bytesByPlace, PLACES, type Observed } from '../support/observe';
import {
	faultStdio,
	listTestServerProcesses,
	RUN_ID_VARIABLE,
	type FaultServerOptions,
} from '../support/servers';

process.env.N8N_LOG_LEVEL = 'debug';
jest.setTimeout(60 * 60_000);

const figures: Array<[string, string]> = [];
mcp.stopServersAfterAll();
afterAll(() => {
	const width = Math.max(...figures.map(([name]) => name.length));
	process.stdout.write(
		`\nAdversarial probe\n${figures.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`).join('\n')}\n\n`,
	);
});

/** Runs `work` with n8n's console log silenced (debug level prints every engine step). */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
	const transports = (
		Container.get(Logger) as unknown as {
			internalLogger: { transports: Array<{ silent?: boolean }> };
		}
	).internalLogger.transports;
	transports.forEach((transport) => (transport.silent = true));
	try {
		return await work();
	} finally {
		transports.forEach((transport) => (transport.silent = false));
	}
}

function within<T>(ms: number, work: Promise<T>): Promise<T | 'hang'> {
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<'hang'>(
		(resolve) => (timer = setTimeout(() => resolve('hang'), ms)),
	);
	return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Our test servers still running, after a grace for the ones being ended. */
async function serversLeft(): Promise<number> {
	const ours = () =>
		listTestServerProcesses().filter(({ runId }) => runId === process.env[RUN_ID_VARIABLE]);
	for (let waited = 0; ours().length > 0 && waited < 8_000; waited += 100)
		await new Promise((resolve) => setTimeout(resolve, 100));
	return ours().length;
}

const SECRETS = [
	'canary-5e1f0c9a7b',
	'sk-proj-Zx8Qv2LmN4pR7tY1uW3eA5sD9fG0hJ6k',
	'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
	'xoxb-2048-4096-AbCdEfGhIjKlMnOp',
	'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk',
	'AKIAIOSFODNN7EXAMPLE',
	'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
	'a+b/c=d+e/f=g',
	'pass phrase with spaces 42',
	'quote"and\\backslash-secret',
	"it's-a-single-quote",
	'percent%20and%2Bplus+secret',
	'https://user:p%40ss@example.com/?token=abc123',
	'пароль-секрет-ключ',
	'🔑-emoji-key-🔒-2024',
	'日本語のひみつ鍵です',
	'Zq9!x2',
	'123456',
	'8675309123456789',
	'deadbeefcafebabe0123',
	'<script>alert(1)</script>',
	'line-one\nline-two-secret',
	'tab\tseparated\tsecret',
	'x'.repeat(7) + 'y'.repeat(7) + 'z'.repeat(7),
	'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu',
	'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_',
];

describe('adversarial probe', () => {
	it('leaks no secret, in any form, in any place a run writes to', async () => {
		const leaks: string[] = [];
		let checked = 0;
		for (const secret of SECRETS) {
			const api = await startChatCompletionsStandIn({ apiKey: secret });
			const setting: LeakSetting = { secret, api };
			const scenarios: Array<[string, () => Promise<Observed>]> = [
				['leaking loop', () => leakingLoop(setting)],
				['refused key', () => refusedKey(setting, false)],
				['refused key, continued', () => refusedKey(setting, true)],
				['tools/list refused', () => mcpNodeFailing(setting, 'list refused', false)],
				['start fails', () => mcpNodeFailing(setting, 'start fails', false)],
				['start fails, continued', () => mcpNodeFailing(setting, 'start fails', true)],
				[
					'tool error fails the node',
					() => mcpNodeFailing(setting, 'tool error fails the node', false),
				],
				['stderr before a crash', () => stderrBeforeCrash(setting)],
				['Call Tool', () => callToolLeak(setting)],
			];
			try {
				for (const [scenario, run] of scenarios) {
					const places = bytesByPlace(await run());
					for (const place of PLACES) {
						checked++;
						const forms = leaksOf(places[place], secret);
						if (forms.length > 0)
							leaks.push(`${JSON.stringify(secret)} · ${scenario} · ${place}: ${forms.join(', ')}`);
					}
				}
			} finally {
				await api.close();
				await sharedPool.closeAll();
			}
		}
		figures.push([
			'secrets',
			`${SECRETS.length} secrets × 9 runs × ${PLACES.length} places = ${checked} places checked, ${leaks.length} leaks`,
		]);
		expect(leaks).toEqual([]);
	});

	it('takes every bad tool-call argument without a crash, a hang or a wrong server call', async () => {
		const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
		const raw: string[] = [
			'{"a":1e400}',
			'{"a":-1e400}',
			'{"a":NaN}',
			'{"a":Infinity}',
			'{"id":12345678901234567890}',
			'{"id":-9007199254740993}',
			'{"a":1e-400}',
			'{"a":-0}',
			deep(1_001),
			deep(5_000),
			deep(200_000),
			'['.repeat(100_000) + ']'.repeat(100_000),
			'{"__proto__":{"polluted":"yes"}}',
			'{"constructor":{"prototype":{"polluted":"yes"}}}',
			'{"a":1,"a":2}',
			'{"a":"\\ud800"}',
			'{"a":"\\u0000\\u0001\\u001f"}',
			'\ufeff{"a":1}',
			'{"a":1}{"b":2}',
			'{"a":1} trailing',
			'{"a":1,}',
			"{'a':1}",
			'{a:1}',
			'```json\n{"a":1}\n```',
			'',
			'   ',
			'null',
			'[]',
			'[{"a":1}]',
			'"{\\"a\\":1}"',
			'42',
			'true',
			'{"a":',
			'{"a":"unterminated',
			'{"' + 'k'.repeat(100_000) + '":1}',
			JSON.stringify({ big: 'x'.repeat(5 * 1024 * 1024) }),
			JSON.stringify({ list: Array.from({ length: 200_000 }, (_, i) => i) }),
			JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))),
			JSON.stringify({ nested: JSON.stringify({ inner: JSON.stringify({ x: 1 }) }) }),
			JSON.stringify({ emoji: '🔑', rtl: '\u202e', zero: '\u200b' }),
			'{"a":1e308,"b":-1e308,"c":5e-324}',
			'\u0000',
			'{"a":"\\x41"}',
		];
		const objects: Array<Record<string, unknown>> = [
			{ a: Number.NaN },
			{ a: Number.POSITIVE_INFINITY },
			{ nested: { deeper: [1, Number.NEGATIVE_INFINITY] } },
			{ when: new Date(0) },
			{ gone: undefined, kept: 1 },
		];
		const inputs = [
			...raw.map((text) => ({
				label: text.slice(0, 40),
				call: mcp.pendingCall('received', text),
				text,
			})),
			...objects.map((value) => ({
				label: String(canonicalJson(value)).slice(0, 40),
				call: { ...mcp.pendingCall('received', {}), arguments: value, rawArguments: '' },
				text: undefined,
			})),
		];
		const credentials = { mcpStdioServerApi: hostileServer('unused-secret-value') };
		const crashes: string[] = [];
		const hangs: string[] = [];
		const wrongCalls: string[] = [];
		await quietly(async () => {
			for (const { label, call, text } of inputs) {
				const outcome = await within(
					60_000,
					mcp
						.runMcpChain([mcp.mcpClientNode('Execute', { operation: 'executeToolCalls' })], {
							credentials,
							inputItems: [{ json: { toolCalls: [call] } }],
						})
						.catch((error: Error) => error),
				);
				if (outcome === 'hang') {
					hangs.push(label);
					continue;
				}
				if (outcome instanceof Error || outcome.status !== 'success') {
					crashes.push(
						`${label}: ${outcome instanceof Error ? outcome.message : outcome.error?.message}`,
					);
					continue;
				}
				const wrong = wrongServerCall(outcome, text ?? call.arguments);
				if (wrong) wrongCalls.push(`${label}: ${wrong}`);
			}
		});
		const polluted = ['polluted', 'x'].filter((key) => key in Object.prototype);
		if (polluted.length > 0) crashes.push(`Object.prototype polluted: ${polluted.join(', ')}`);
		figures.push([
			'bad inputs',
			`${inputs.length} bad arguments: ${crashes.length} crashes, ${hangs.length} hangs, ${wrongCalls.length} wrong server calls`,
		]);
		expect({ crashes, hangs, wrongCalls }).toEqual({ crashes: [], hangs: [], wrongCalls: [] });
	});

	it('loses no item and leaves no process after any fault of a server', async () => {
		const fault = (
			name: string,
			server: FaultServerOptions | 'start fails',
			call: ReturnType<typeof mcp.pendingCall>,
			options: IDataObject = {},
		) => ({ name, server, call, options });
		const faults = [
			fault('crash', {}, mcp.pendingCall('crash')),
			fault('hang past the timeout', {}, mcp.pendingCall('hang'), { timeoutMs: 500 }),
			fault('garbage on stdout', {}, mcp.pendingCall('garbage')),
			fault('-32000 error', {}, mcp.pendingCall('server_error')),
			fault('-32602 error', {}, mcp.pendingCall('throws')),
			fault('output breaks its schema', {}, mcp.pendingCall('bad_output')),
			fault('progress forever', {}, mcp.pendingCall('progress_forever'), {
				timeoutMs: 300,
				maxTotalMs: 1_500,
			}),
			fault('stdout closed, process runs', {}, mcp.pendingCall('close_stdout')),
			fault('frozen process', {}, mcp.pendingCall('freeze'), { timeoutMs: 500 }),
			fault('notification flood', {}, mcp.pendingCall('flood', { count: 10_000 })),
			fault('50 MB result', {}, mcp.pendingCall('huge', { mb: 50 }), { maxResultMb: 1 }),
			fault('result nested 3,000 deep', {}, mcp.pendingCall('deep', { depth: 3_000 })),
			fault('invalid tools listed', { invalidTools: true }, mcp.pendingCall('string_schema')),
			fault('tools/list refused', { failingList: true }, mcp.pendingCall('not_listed')),
			fault('never answers initialize', { mute: true }, mcp.pendingCall('echo', { text: 'x' }), {
				timeoutMs: 1_000,
			}),
			fault('exits at start', 'start fails', mcp.pendingCall('echo', { text: 'x' })),
		];
		const ITEMS = 4;
		const lost: string[] = [];
		let left = 0;
		await quietly(async () => {
			for (const { name, server, call, options } of faults) {
				const credentials = {
					mcpStdioServerApi:
						server === 'start fails'
							? failingStart('unused-secret-value')
							: mcp.stdioCredential(faultStdio({ hostile: true, ...server })),
				};
				const inputItems: INodeExecutionData[] = Array.from({ length: ITEMS }, (_, index) => ({
					json: {
						toolCalls: [
							{ ...call, id: `${call.id}_${index}` },
							mcp.pendingCall('echo', { text: `item ${index}` }),
						],
					},
				}));
				const run = await within(
					120_000,
					mcp.runMcpChain(
						[
							{
								...mcp.mcpClientNode('Execute', { operation: 'executeToolCalls', options }),
								onError: 'continueRegularOutput',
							},
						],
						{ credentials, inputItems },
					),
				);
				if (run === 'hang') {
					lost.push(`${name}: the execution hung`);
				} else lost.push(...itemsLost(run, ITEMS).map((why) => `${name}: ${why}`));
				await sharedPool.closeAll();
				left += await serversLeft();
			}
		});
		figures.push([
			'faults',
			`${faults.length} server faults × ${ITEMS} items: ${lost.length} items lost, ${left} processes left`,
		]);
		expect({ lost, left }).toEqual({ lost: [], left: 0 });
	});

	it('keeps heap, RSS and open files flat over 10,000 pooled executions', async () => {
		const gc = (globalThis as { gc?: () => void }).gc;
		if (!gc) throw new Error('Run the probe with node --expose-gc (npm run probe does)');
		const credentials = { mcpStdioServerApi: mcp.stdioCredential(faultStdio({ name: 'memory' })) };
		const execution = (index: number) =>
			mcp.runMcpChain([mcp.mcpClientNode('Execute', { operation: 'executeToolCalls' })], {
				credentials,
				inputItems: [
					{ json: { toolCalls: [mcp.pendingCall('echo', { text: `execution ${index}` })] } },
				],
			});
		const sample = () => {
			gc();
			return {
				heap: process.memoryUsage().heapUsed,
				rss: process.memoryUsage().rss,
				files: readdirSync('/proc/self/fd').length,
			};
		};
		const samples: Array<ReturnType<typeof sample>> = [];
		const started = Date.now();
		await quietly(async () => {
			for (let index = 0; index < 500; index++) await execution(index);
			samples.push(sample());
			for (let index = 1; index <= 10_000; index++) {
				const run = await execution(index);
				if (mcp.toolMessages(outputOf(run, 'Execute')[0].json)[0]?.content !== `execution ${index}`)
					throw new Error(`Execution ${index} did not answer`);
				if (index % 1_000 === 0) samples.push(sample());
			}
		});
		const [first, last] = [samples[0], samples.at(-1)!];
		const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
		const most = (key: 'heap' | 'rss' | 'files') => Math.max(...samples.map((s) => s[key]));
		figures.push([
			'memory',
			`10,000 pooled executions in ${Math.round((Date.now() - started) / 1000)} s: heap ${mb(first.heap)} → ${mb(last.heap)} (most ${mb(most('heap'))}), RSS ${mb(first.rss)} → ${mb(last.rss)} (most ${mb(most('rss'))}), open files ${first.files} → ${last.files}`,
		]);
		expect(last.heap - first.heap).toBeLessThan(16 * 1024 * 1024);
		expect(last.files - first.files).toBeLessThanOrEqual(2);
	});
});

/**
 * What went wrong with a call the server got: it should have been refused (its arguments were
 * not what the model wrote, or not JSON that can be sent as written), or the server received
 * other arguments than the ones checked.
 */
function wrongServerCall(run: EngineRun, sent: unknown): string | undefined {
	const [item] = outputOf(run, 'Execute');
	const [result] = mcp.callTraces(item.json);
	const requested = (item.json.trace as IDataObject[]).some(
		(entry) => entry.step === 'tools.call.request',
	);
	if (!requested) return undefined;
	const expected = expectedArguments(sent);
	if (expected === undefined) return 'called with arguments it should have refused';
	// The server's own failure on what it got is the server's; what it got is compared when it says.
	if (result?.status !== 'ok') return undefined;
	const received = JSON.parse(mcp.toolMessages(item.json)[0].content) as unknown;
	return canonicalJson(received) === canonicalJson(expected)
		? undefined
		: `received ${canonicalJson(received).slice(0, 80)}`;
}

/** The arguments exactly as the model wrote them, when that is JSON that can be sent as written. */
function expectedArguments(sent: unknown): unknown {
	if (typeof sent !== 'string') {
		let finite = true;
		const text = JSON.stringify(sent, (_key, value: unknown) => {
			if (typeof value === 'number' && !Number.isFinite(value)) finite = false;
			return value;
		});
		return finite ? JSON.parse(text) : undefined;
	}
	try {
		let exact = true;
		// A number literal the parse changed would reach the server as another number.
		const value = JSON.parse(sent.trim() || '{}', ((
			_key: string,
			inner: unknown,
			context?: { source?: string },
		) => {
			const source = context?.source;
			if (typeof inner === 'number' && source !== undefined)
				if (!Number.isFinite(inner) || (/^-?\d+$/.test(source) && !Number.isSafeInteger(inner)))
					exact = false;
			return inner;
		}) as Parameters<typeof JSON.parse>[1]) as unknown;
		return exact ? value : undefined;
	} catch {
		return undefined;
	}
}

/** Items that did not come out answered: missing, or with a pending call of this server left unanswered. */
function itemsLost(run: EngineRun, expected: number): string[] {
	const output = outputOf(run, 'Execute');
	if (output.length !== expected) return [`${output.length} of ${expected} items came out`];
	return output.flatMap((item, index) => {
		if (item.json.error !== undefined) return [];
		const unanswered = (item.json.toolCalls as unknown[]).length;
		const answered = mcp.toolMessages(item.json).length;
		return unanswered === 0 && answered === 2
			? []
			: [`item ${index}: ${answered} of 2 calls answered`];
	});
}
