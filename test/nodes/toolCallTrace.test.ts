import {
	NodeHelpers,
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
} from 'n8n-workflow';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { toJsonLines } from '../../lib/trace/jsonl';
import type { RecordedEntry } from '../../lib/trace/read';
import { ToolCallTrace } from '../../nodes/ToolCallTrace/ToolCallTrace.node';
import { errorOf, nodeTypesFrom, outputOf, runWorkflow } from '../support/engine';
import { chain } from '../support/mcpWorkflow';
import { addThenAnswer, traceOf } from '../trace/traces';

const TRACE_TYPE = 'n8n-nodes-tool-calling.toolCallTrace';
const nodeType = new ToolCallTrace();

const expected = traceOf(addThenAnswer);
const sameRun = traceOf({ ...addThenAnswer, run: 2 });
const otherAnswer = traceOf({ rounds: [addThenAnswer.rounds[0], { answer: 'Six.' }], run: 3 });

/** A conversation item as the Tool Calling Model node leaves it after its final answer. */
const conversation = (trace: RecordedEntry[], extra: IDataObject = {}): INodeExecutionData => ({
	json: {
		messages: [{ role: 'user', content: 'What is 2 + 3?' }],
		tools: [],
		toolCalls: [],
		trace: trace as unknown as IDataObject[],
		...extra,
	},
});

function traceNode(parameters: INodeParameters, extra: Partial<INode> = {}): INode {
	return {
		id: 'Trace',
		name: 'Trace',
		type: TRACE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		...extra,
	};
}

function runTrace(
	parameters: INodeParameters,
	inputItems: INodeExecutionData[],
	extra: Partial<INode> = {},
) {
	return runWorkflow(chain(traceNode(parameters, extra)), {
		nodeTypes: nodeTypesFrom(nodeType),
		inputItems,
	});
}

const compareWithJson = {
	operation: 'compare',
	expectedSource: 'json',
	expectedTrace: JSON.stringify(expected),
};

describe('Tool Call Trace', () => {
	it("compares each item's trace with the expected one and puts the result on the item", async () => {
		const run = await runTrace(compareWithJson, [
			conversation(sameRun, { label: 'same' }),
			conversation(otherAnswer, { label: 'other' }),
		]);
		const [same, other] = outputOf(run, 'Trace');
		expect(same.json).toMatchObject({ label: 'same', traceDiff: { equal: true } });
		expect((same.json.traceDiff as any).rows).toHaveLength(7);
		expect(same.json.traceDiff).not.toHaveProperty('firstDivergence');
		expect(other.json).toMatchObject({
			label: 'other',
			traceDiff: {
				equal: false,
				firstDivergence: {
					index: 6,
					step: 'model.choice',
					round: 2,
					what: 'model choice: answer',
					left: 'Six.',
					right: 'Five.',
				},
			},
		});
		expect(other.json.trace).toEqual(otherAnswer);
		expect(other.pairedItem).toEqual({ item: 1 });
	});

	it('routes diverged items to a second output, Diverged, when asked', async () => {
		const run = await runTrace({ ...compareWithJson, routeDiverged: true }, [
			conversation(otherAnswer),
			conversation(sameRun),
		]);
		expect(outputOf(run, 'Trace', 0).map((item) => (item.json.traceDiff as any).equal)).toEqual([
			true,
		]);
		expect(outputOf(run, 'Trace', 1).map((item) => (item.json.traceDiff as any).equal)).toEqual([
			false,
		]);
	});

	it('has the Diverged output only while Compare routes there', () => {
		const outputsOf = (parameters: INodeParameters) => {
			const node = traceNode(parameters);
			const types = {
				getByName: () => nodeType,
				getByNameAndVersion: () => nodeType,
				getKnownTypes: () => ({}),
			};
			const workflow = new Workflow({
				nodes: [node],
				connections: {},
				active: false,
				nodeTypes: types,
			});
			return NodeHelpers.getNodeOutputs(workflow, workflow.getNode('Trace')!, nodeType.description);
		};
		expect(outputsOf({ operation: 'compare' })).toEqual(['main']);
		expect(outputsOf({ operation: 'compare', routeDiverged: true })).toEqual([
			{ type: 'main', displayName: 'Equal' },
			{ type: 'main', displayName: 'Diverged' },
		]);
		expect(outputsOf({ operation: 'exportJsonLines', routeDiverged: true })).toEqual(['main']);
		expect(outputsOf({ operation: 'usageSummary', routeDiverged: true })).toEqual(['main']);
	});

	it('reads the expected trace from a file in a binary property, or from a field', async () => {
		const file = {
			data: Buffer.from(toJsonLines(expected)).toString('base64'),
			mimeType: 'application/x-ndjson',
			fileName: 'expected.jsonl',
		};
		const fromFile = await runTrace(
			{ operation: 'compare', expectedSource: 'binary', expectedBinaryProperty: 'expected' },
			[{ ...conversation(sameRun), binary: { expected: file } }],
		);
		expect(outputOf(fromFile, 'Trace')[0].json.traceDiff).toMatchObject({ equal: true });
		expect(outputOf(fromFile, 'Trace')[0].binary?.expected).toMatchObject({
			fileName: 'expected.jsonl',
		});
		// As Windows PowerShell 5 writes `export > expected.jsonl`: UTF-16 with its byte order mark.
		const utf16 = Buffer.concat([
			Buffer.from([0xff, 0xfe]),
			Buffer.from(toJsonLines(expected), 'utf16le'),
		]);
		const fromUtf16 = await runTrace(
			{ operation: 'compare', expectedSource: 'binary', expectedBinaryProperty: 'expected' },
			[
				{
					...conversation(sameRun),
					binary: { expected: { ...file, data: utf16.toString('base64') } },
				},
			],
		);
		expect(outputOf(fromUtf16, 'Trace')[0].json.traceDiff).toMatchObject({ equal: true });

		const fromField = await runTrace(
			{ operation: 'compare', expectedSource: 'field', expectedField: 'baseline.run' },
			[conversation(otherAnswer, { baseline: { run: { trace: expected } } })],
		);
		expect(outputOf(fromField, 'Trace')[0].json.traceDiff).toMatchObject({
			equal: false,
			firstDivergence: { index: 6 },
		});
	});

	it("compares a trace from an expression instead of the item's own", async () => {
		const run = await runTrace({ ...compareWithJson, trace: '={{ $json.recorded }}' }, [
			conversation(otherAnswer, { recorded: toJsonLines(sameRun) }),
		]);
		expect(outputOf(run, 'Trace')[0].json.traceDiff).toMatchObject({ equal: true });
	});

	it('fails on an expected trace that is not one, naming it, or keeps the item with the error', async () => {
		const parameters = { ...compareWithJson, expectedTrace: '{ "trace": ' };
		const failed = await runTrace(parameters, [conversation(sameRun)]);
		expect(errorOf(failed, 'Trace')?.message).toMatch(/^The expected trace: Not JSON: /);

		const kept = await runTrace(parameters, [conversation(sameRun)], {
			onError: 'continueRegularOutput',
		});
		expect(outputOf(kept, 'Trace')[0].json.error).toMatch(/^The expected trace: Not JSON: /);

		const noField = await runTrace(
			{ operation: 'compare', expectedSource: 'field', expectedField: 'baseline' },
			[conversation(sameRun)],
		);
		expect(errorOf(noField, 'Trace')?.message).toBe('The item has no field "baseline"');
	});

	it('exports the trace as a JSON Lines file', async () => {
		const run = await runTrace({ operation: 'exportJsonLines', binaryPropertyName: 'traceFile' }, [
			conversation(expected, { label: 'kept' }),
		]);
		const [item] = outputOf(run, 'Trace');
		expect(item.json).toMatchObject({ label: 'kept', trace: expected });
		expect(item.binary?.traceFile).toMatchObject({
			fileName: 'trace.jsonl',
			mimeType: 'application/x-ndjson',
		});
		expect(Buffer.from(item.binary!.traceFile.data, 'base64').toString('utf8')).toBe(
			toJsonLines(expected),
		);
	});

	it('sums up what each conversation used, one row per item, ready for a sheet', async () => {
		const recorded = JSON.parse(
			readFileSync(path.resolve(__dirname, '../../examples/mcp-tool-loop.trace.json'), 'utf8'),
		).trace;
		const run = await runTrace({ operation: 'usageSummary' }, [
			conversation(recorded, { label: 'dropped' }),
			conversation(expected),
		]);
		const [priced, unpriced] = outputOf(run, 'Trace');
		expect(priced.json).toEqual({
			rounds: 3,
			modelCalls: 3,
			toolCalls: 2,
			inputTokens: 63,
			outputTokens: 27,
			cacheReadTokens: 0,
			cacheWriteTokens: null,
			reasoningTokens: 0,
			unreportedCalls: 0,
			cost: 0.0000684,
			priceSources: ['genai-prices 0.1.8'],
			startedAt: recorded[0].at,
			elapsedMs: expect.any(Number),
			modelMs: expect.any(Number),
			toolMs: expect.any(Number),
		});
		expect(priced.pairedItem).toEqual({ item: 0 });
		// A trace written before costs were kept: its counts read again, its cost unknown.
		expect(unpriced.json).toMatchObject({
			rounds: 2,
			inputTokens: 42,
			outputTokens: 20,
			cost: null,
			costUnknown: 'model call 1: the trace does not record its cost',
		});
	});

	it('refuses to sum up an item without a trace, naming it', async () => {
		const run = await runTrace({ operation: 'usageSummary' }, [{ json: { messages: [] } }]);
		expect(errorOf(run, 'Trace')?.message).toMatch(/^The trace: Not a trace: /);
	});

	it('refuses to export an item without a trace', async () => {
		const run = await runTrace({ operation: 'exportJsonLines' }, [{ json: { messages: [] } }]);
		expect(errorOf(run, 'Trace')?.message).toBe(
			'The trace: Not a trace: expected an item\'s json with a "trace" list, a list of trace entries, or JSON Lines with one entry per line, got undefined',
		);
	});
});
