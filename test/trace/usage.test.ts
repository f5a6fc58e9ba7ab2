import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatUsage } from '../../lib/trace/format';
import { readTrace } from '../../lib/trace/read';
import { usageOfTrace, usageRow } from '../../lib/trace/usage';
import { addThenAnswer, traceOf } from './traces';

const example = () =>
	readTrace(
		readFileSync(path.resolve(__dirname, '../../examples/mcp-tool-loop.trace.json'), 'utf8'),
	);

describe('usageOfTrace', () => {
	it('adds up each round as the nodes do on the item, with the price table named', () => {
		const usage = usageOfTrace(example());
		expect(usage.totals).toEqual({
			modelCalls: 3,
			toolCalls: 2,
			tokens: { input: 63, output: 27, cacheRead: 0, cacheWrite: null, reasoning: 0 },
			unreportedCalls: 0,
			cost: 0.0000684,
		});
		expect(usage.priceSources).toEqual(['genai-prices 0.1.8']);
		expect(usage.rounds.map((call) => [call.round, call.model, call.cost.cost])).toEqual([
			[1, 'gpt-4.1-mini', 0.0000228],
			[2, 'gpt-4.1-mini', 0.0000228],
			[3, 'gpt-4.1-mini', 0.0000228],
		]);
		expect(usage.modelMs).toBeGreaterThan(0);
		expect(usage.elapsedMs).toBeGreaterThanOrEqual(usage.modelMs);
	});

	it('reads the counts of a trace written before they were kept from each response, its cost unknown', () => {
		// traceOf writes the vendor's usage only: 21 input and 10 output tokens, then 21 and 10.
		const usage = usageOfTrace(traceOf(addThenAnswer));
		expect(usage.totals).toMatchObject({
			modelCalls: 2,
			toolCalls: 1,
			tokens: { input: 42, output: 20, cacheRead: null },
			cost: null,
			costUnknown: 'model call 1: the trace does not record its cost',
		});
		const anthropic = usageOfTrace(traceOf({ ...addThenAnswer, dialect: 'anthropic' }));
		expect(anthropic.totals.tokens).toMatchObject({ input: 42, output: 20 });
	});

	it('counts a response it cannot read as unreported, and an empty trace as nothing', () => {
		const usage = usageOfTrace([
			{ step: 'model.response', node: 'M', round: 1, at: 'not a time', dialect: 'nobody' },
		]);
		expect(usage.totals).toMatchObject({ modelCalls: 1, unreportedCalls: 1 });
		expect(usage.elapsedMs).toBe(0);
		expect(usageRow(usageOfTrace([]))).toEqual({
			rounds: 0,
			modelCalls: 0,
			toolCalls: 0,
			inputTokens: null,
			outputTokens: null,
			cacheReadTokens: null,
			cacheWriteTokens: null,
			reasoningTokens: null,
			unreportedCalls: 0,
			cost: 0,
			priceSources: [],
			elapsedMs: 0,
			modelMs: 0,
			toolMs: 0,
		});
	});
});

describe('formatUsage', () => {
	it('gives a line per model call and the totals, with what could not be priced and why', () => {
		const text = formatUsage(usageOfTrace(traceOf(addThenAnswer)));
		expect(text.split('\n')).toEqual([
			'round 1  usage  model: gpt-test; input: 21; output: 10; cost: unknown (the trace does not record its cost)',
			'round 2  usage  model: gpt-test; input: 21; output: 10; cost: unknown (the trace does not record its cost)',
			expect.stringMatching(
				/^total {4}usage {2}2 model calls, 1 tool call, 42 input and 20 output tokens, cost unknown \(model call 1: the trace does not record its cost\); time: [\d.]+ s \(model 0\.02 s, tools 0\.01 s\)$/,
			),
			'',
		]);
		expect(formatUsage(usageOfTrace([]))).toBe('');
	});
});
