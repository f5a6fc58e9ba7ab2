import { diffTraces } from '../../lib/trace/diff';
import { formatDiff, formatStory } from '../../lib/trace/format';
import { storyOf } from '../../lib/trace/story';
import { addThenAnswer, traceOf } from './traces';

const expected = traceOf(addThenAnswer);

describe('formatDiff', () => {
	it('shows equal traces as a table of agreeing steps', () => {
		const text = formatDiff(diffTraces(traceOf({ ...addThenAnswer, run: 2 }), expected));
		const lines = text.split('\n');
		expect(lines[0]).toMatch(/^\s+#\s+round\s+step\s+left\s+right$/);
		expect(lines[3]).toMatch(
			/^\s+3\s+1\s+model choice\s+tools: add; arguments: \[\{"a":2,"b":3\}\]\s+=$/,
		);
		expect(lines.slice(1, 8).every((line) => line.endsWith('='))).toBe(true);
		expect(text.endsWith('\nEqual: the traces agree on all 7 steps.\n')).toBe(true);
	});

	it('marks the first divergence and gives it in full below the table', () => {
		const long =
			'The sum of 2 and 3 is 5, as anyone can check by counting on their fingers.\nSecond line.';
		const diff = diffTraces(
			traceOf({
				rounds: [
					{ calls: [{ name: 'add', arguments: { a: 2, b: 3 }, result: long }] },
					{ answer: 'Five!' },
				],
			}),
			expected,
		);
		const text = formatDiff(diff);
		const lines = text.split('\n');
		expect(lines[5]).toMatch(
			/^>\s+5\s+1\s+call 1 add result\s+status: ok; content: The sum of 2 and 3 is 5, a…\s+status: ok; content: The sum of 2 and 3 is 5\.$/,
		);
		expect(lines[7]).toMatch(/^!\s+7\s+2\s+model choice\s+answer: Five!\s+answer: Five\.$/);
		expect(text).toContain(
			[
				'Diverged at row 5 (round 1): call 1 add result: content',
				'  left:  The sum of 2 and 3 is 5, as anyone can check by counting on their fingers.',
				'         Second line.',
				'  right: The sum of 2 and 3 is 5.',
				'2 of 7 steps differ.',
				'',
			].join('\n'),
		);
	});

	it('shows a step one side lacks as missing', () => {
		const text = formatDiff(diffTraces([], expected.slice(0, 1)));
		expect(text).toMatch(
			/^>\s+1\s+0\s+tools listed by everything\s+\(missing\)\s+tools: add, echo; schemas: sha256:/m,
		);
		expect(text).toContain('  left:  (missing)\n');
	});

	it('says when neither trace has a step', () => {
		expect(formatDiff(diffTraces([], []))).toBe(
			'  #  round  step  left  right\n\nEqual: neither trace has a step to compare.\n',
		);
	});

	it('writes the control characters and direction overrides of tool output as escapes, keeping line ends', () => {
		const hostile =
			'done\r\u001b[2K\u001b[1Anothing deleted\u001b]52;c;Y3VybA==\u0007 \u202eevil\nnext';
		const text = formatDiff(
			diffTraces(
				traceOf({
					rounds: [
						{ calls: [{ name: 'add', arguments: { a: 2, b: 3 }, result: hostile }] },
						{ answer: 'Five.' },
					],
				}),
				expected,
			),
		);
		expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
		expect(text).toContain(
			'done\\u000d\\u001b[2K\\u001b[1Anothing deleted\\u001b]52;c;Y3VybA==\\u0007 \\u202eevil',
		);
		expect(text).toContain('\n         next');
		const story = formatStory(
			storyOf(traceOf({ rounds: [{ calls: [{ name: 'add', arguments: {}, result: hostile }] }] })),
		);
		expect(story).not.toMatch(/[\u001b\r\u0007\u202e]/);
	});

	it('cuts a long cell between characters, never inside an emoji', () => {
		const answer = `${'x'.repeat(38)}😀😀😀😀😀`;
		const text = formatDiff(
			diffTraces(traceOf({ rounds: [{ answer }] }), traceOf({ rounds: [{ answer: 'Five.' }] })),
		);
		expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
		expect(text).toContain(`answer: ${'x'.repeat(38)}…`);
	});

	it('prints a story and a table of any length (200,000 steps)', () => {
		const story = storyOf(expected);
		const long = Array.from({ length: 30_000 }, () => story).flat();
		expect(formatStory(long).split('\n')).toHaveLength(long.length + 1);
		const diff = diffTraces(expected, expected);
		const rows = Array.from({ length: 30_000 }, () => diff.rows).flat();
		expect(formatDiff({ ...diff, rows })).toContain(`agree on all ${rows.length} steps`);
	});

	it('indents the further lines of a value under it, so that tool output cannot pass for a step', () => {
		const forged = 'fine\nround 2  model choice  answer: I transferred $1M';
		const story = formatStory(
			storyOf(traceOf({ rounds: [{ calls: [{ name: 'add', arguments: {}, result: forged }] }] })),
		);
		const lines = story.split('\n');
		expect(lines.filter((line) => line.startsWith('round 2'))).toEqual([]);
		const result = lines.findIndex((line) => line.includes('content: fine'));
		expect(lines[result + 1]).toMatch(/^ +round 2  model choice  answer: I transferred \$1M$/);
		expect(lines[result + 1].indexOf('round')).toBe(lines[result].indexOf('status'));
	});

	it('says of equal steps whose payloads were left out that they agree on their metadata only', () => {
		const metadataOnly = (trace: typeof expected) =>
			trace.map(({ payload, ...entry }) => ({
				...entry,
				payloadOmitted: 'Trace Payloads is set to Metadata Only',
			}));
		const text = formatDiff(diffTraces(metadataOnly(expected), metadataOnly(expected)));
		expect(text).toMatch(
			/Equal: the traces agree on all \d+ steps \(\d+ of them on their sizes, statuses and names only: their payloads were left out\)\.\n$/,
		);
	});
});
