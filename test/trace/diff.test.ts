import { diffTraces } from '../../lib/trace/diff';
import { addThenAnswer, addTool, traceOf, type Script } from './traces';

const expected = traceOf(addThenAnswer);
const withRounds = (...rounds: Script['rounds']) => traceOf({ rounds, run: 2 });
const addCall = (args: Record<string, unknown>, result = 'The sum of 2 and 3 is 5.') => ({
	name: 'add',
	arguments: args,
	result,
});

describe('diffTraces', () => {
	it('finds two runs of the same story equal, whatever their ids, times and usage', () => {
		const diff = diffTraces(traceOf({ ...addThenAnswer, run: 2 }), expected);
		expect(diff.equal).toBe(true);
		expect(diff).not.toHaveProperty('firstDivergence');
		expect(diff.rows).toHaveLength(7);
		expect(diff.rows.every((row) => row.same && row.left !== null && row.right !== null)).toBe(
			true,
		);
	});

	it('names a different tool chosen, and sets the calls of each tool apart', () => {
		const diff = diffTraces(
			withRounds(
				{ calls: [{ name: 'echo', arguments: { message: '2 + 3' }, result: '2 + 3' }] },
				{ answer: 'Five.' },
			),
			expected,
		);
		expect(diff.equal).toBe(false);
		expect(diff.firstDivergence).toEqual({
			index: 2,
			step: 'model.choice',
			round: 1,
			what: 'model choice: tools',
			left: 'echo',
			right: 'add',
		});
		expect(
			diff.rows.slice(3, 7).map((row) => [row.label, row.left !== null, row.right !== null]),
		).toEqual([
			['call 1 add arguments', false, true],
			['call 1 add result', false, true],
			['call 1 echo arguments', true, false],
			['call 1 echo result', true, false],
		]);
		expect(diff.rows.at(-1)).toMatchObject({ label: 'model choice', same: true });
	});

	it('names different arguments', () => {
		const diff = diffTraces(
			withRounds({ calls: [addCall({ a: 2, b: 4 })] }, { answer: 'Five.' }),
			expected,
		);
		expect(diff.firstDivergence).toEqual({
			index: 2,
			step: 'model.choice',
			round: 1,
			what: 'model choice: arguments',
			left: '[{"a":2,"b":4}]',
			right: '[{"a":2,"b":3}]',
		});
		expect(diff.rows[3]).toMatchObject({ label: 'call 1 add arguments', same: false });
	});

	it('finds arguments equal whatever the order of their keys', () => {
		const diff = diffTraces(
			withRounds({ calls: [addCall({ b: 3, a: 2 })] }, { answer: 'Five.' }),
			expected,
		);
		expect(diff.equal).toBe(true);
	});

	it('names a different result', () => {
		const diff = diffTraces(
			withRounds({ calls: [addCall({ a: 2, b: 3 }, 'The sum is 6.')] }, { answer: 'Five.' }),
			expected,
		);
		expect(diff.firstDivergence).toEqual({
			index: 4,
			step: 'call.result',
			round: 1,
			what: 'call 1 add result: content',
			left: 'The sum is 6.',
			right: 'The sum of 2 and 3 is 5.',
		});
		expect(diff.rows.filter((row) => !row.same)).toHaveLength(1);
	});

	it('names a different final answer', () => {
		const diff = diffTraces(
			withRounds({ calls: [addCall({ a: 2, b: 3 })] }, { answer: '5' }),
			expected,
		);
		expect(diff.firstDivergence).toEqual({
			index: 6,
			step: 'model.choice',
			round: 2,
			what: 'model choice: answer',
			left: '5',
			right: 'Five.',
		});
	});

	it('shows a choice of another kind whole, and an extra round as steps of one side only', () => {
		const diff = diffTraces(
			withRounds(
				{ calls: [addCall({ a: 2, b: 3 })] },
				{ calls: [addCall({ a: 5, b: 0 }, '5')] },
				{ answer: 'Five.' },
			),
			expected,
		);
		expect(diff.firstDivergence).toEqual({
			index: 6,
			step: 'model.choice',
			round: 2,
			what: 'model choice',
			left: 'tools: add; arguments: [{"a":5,"b":0}]',
			right: 'answer: Five.',
		});
		expect(diff.rows.slice(7).map((row) => [row.round, row.label, row.right])).toEqual([
			[2, 'call 1 add arguments', null],
			[2, 'call 1 add result', null],
			[3, 'tools offered', null],
			[3, 'model choice', null],
		]);
	});

	it('names a step only one trace has', () => {
		const diff = diffTraces(
			expected.filter((entry) => entry.round !== 2),
			expected,
		);
		expect(diff.firstDivergence).toEqual({
			index: 5,
			step: 'tools.offered',
			round: 2,
			what: 'tools offered: only in the right trace',
			left: null,
			right: expect.stringMatching(/^tools: add, echo; schemas: sha256:/),
		});
	});

	it('names different tools offered', () => {
		const diff = diffTraces(traceOf({ ...addThenAnswer, tools: [addTool], run: 2 }), expected);
		expect(diff.firstDivergence).toEqual({
			index: 0,
			step: 'tools.list',
			round: 0,
			what: 'tools listed by everything: tools',
			left: 'add',
			right: 'add, echo',
		});
		expect(diff.rows.filter((row) => !row.same).map((row) => row.label)).toEqual([
			'tools listed by everything',
			'tools offered',
			'tools offered',
		]);
	});

	it('tells apart steps whose payloads were left out by their sizes: different arguments of another size differ', () => {
		// As Trace Payloads "Metadata Only" writes them: the payload's size kept.
		const metadataOnly = (trace: typeof expected) =>
			trace.map(({ payload, ...entry }) => ({
				...entry,
				bytes: Buffer.byteLength(JSON.stringify(payload ?? null)),
				payloadOmitted: 'Trace Payloads is set to Metadata Only',
			}));
		const other = traceOf({
			rounds: [{ calls: [addCall({ a: 2, b: 30000 })] }, { answer: 'Five.' }],
		});
		const diff = diffTraces(metadataOnly(other), metadataOnly(expected));
		expect(diff.equal).toBe(false);
		expect(diff.firstDivergence?.what).toBe('model choice: bytes');
		expect(diff.rows.find((row) => row.label === 'call 1 add arguments')?.same).toBe(false);
		expect(diffTraces(metadataOnly(expected), metadataOnly(expected)).withoutPayloads).toBe(7);
	});
});
