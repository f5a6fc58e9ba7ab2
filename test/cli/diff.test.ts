import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXIT, main, USAGE, type CliIo } from '../../cli/main';
import { toJsonLines } from '../../lib/trace/jsonl';
import { addThenAnswer, traceOf } from '../trace/traces';

const folder = mkdtempSync(path.join(tmpdir(), 'trace-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Writes a file into the test's folder and returns its path. */
function file(name: string, text: string): string {
	const filePath = path.join(folder, name);
	writeFileSync(filePath, text);
	return filePath;
}

const expected = traceOf(addThenAnswer);
const files = {
	expectedItem: file('expected.json', JSON.stringify({ messages: [], trace: expected }, null, 2)),
	sameRun: file('same.jsonl', toJsonLines(traceOf({ ...addThenAnswer, run: 2 }))),
	otherAnswer: file(
		'other.json',
		JSON.stringify(
			traceOf({ ...addThenAnswer, rounds: [addThenAnswer.rounds[0], { answer: 'Six.' }] }),
		),
	),
	broken: file('broken.json', '{ "trace": [ '),
	unknownDialect: file(
		'cohere.json',
		JSON.stringify(expected.map((entry) => ({ ...entry, dialect: 'cohere' }))),
	),
};

function run(...argv: string[]) {
	const output = { stdout: '', stderr: '' };
	const io: CliIo = {
		stdout: (text) => (output.stdout += text),
		stderr: (text) => (output.stderr += text),
		readFile: (filePath) => readFileSync(filePath, 'utf8'),
	};
	return { code: main(argv, io), ...output };
}

describe('n8n-nodes-tool-calling diff and export', () => {
	it('prints its usage on --help, and exits 0', () => {
		expect(run('--help')).toEqual({ code: EXIT.ok, stdout: USAGE, stderr: '' });
		expect(USAGE).toContain('n8n-nodes-tool-calling diff <a> <b>');
		expect(USAGE).toContain('n8n-nodes-tool-calling export <trace>');
	});

	it.each([[[]], [['diff', files.expectedItem]], [['export']], [['compare', 'a', 'b']]])(
		'refuses %j with the usage on stderr, exit 2',
		(argv) => {
			const result = run(...argv);
			expect(result.code).toBe(EXIT.badInput);
			expect(result.stdout).toBe('');
			expect(result.stderr).toContain(USAGE);
		},
	);

	it('exits 0 with a table of agreeing steps when two traces, in any form, tell the same story', () => {
		const result = run('diff', files.sameRun, files.expectedItem);
		expect(result.code).toBe(EXIT.ok);
		expect(result.stderr).toBe('');
		expect(result.stdout).toContain('Equal: the traces agree on all 7 steps.');
	});

	it('exits 1 on a divergence, calling it out', () => {
		const result = run('diff', files.otherAnswer, files.expectedItem);
		expect(result.code).toBe(EXIT.diverged);
		expect(result.stdout).toMatch(/^>\s+7\s+2\s+model choice\s+answer: Six\.\s+answer: Five\.$/m);
		expect(result.stdout).toContain(
			'Diverged at row 7 (round 2): model choice: answer\n  left:  Six.\n  right: Five.\n',
		);
	});

	it('exits 2 on a file that is missing, not a trace, or not readable as one, naming it on stderr', () => {
		const missing = path.join(folder, 'missing.json');
		for (const [bad, message] of [
			[missing, `${missing}: ENOENT`],
			[files.broken, `${files.broken}: Not JSON: `],
			[
				files.unknownDialect,
				`${files.unknownDialect}: Trace entry 3 (model.response) has dialect "cohere"`,
			],
		]) {
			const result = run('diff', files.expectedItem, bad);
			expect(result).toMatchObject({ code: EXIT.badInput, stdout: '' });
			expect(result.stderr).toContain(message);
		}
	});

	it('writes the control characters of a file it refuses as escapes, and a file nested past the stack as a clear refusal', () => {
		const escapes = file(
			'escapes.json',
			JSON.stringify([{ step: '\u001b[2J\u001b[31mEVIL', round: 1.5 }]),
		);
		const refused = run('show', escapes);
		expect(refused).toMatchObject({ code: EXIT.badInput, stdout: '' });
		expect(refused.stderr).not.toMatch(/\u001b/);
		expect(refused.stderr).toContain('\\u001b[2J\\u001b[31mEVIL');
		const deep = file(
			'deep.json',
			`[{"step":"tools.list","round":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`,
		);
		const tooDeep = run('show', deep);
		expect(tooDeep).toMatchObject({ code: EXIT.badInput, stdout: '' });
		expect(tooDeep.stderr).toContain('has a "round" that is not a whole number: [[[');
	});

	it('exports a trace as JSON Lines on stdout', () => {
		const result = run('export', files.expectedItem);
		expect(result).toEqual({ code: EXIT.ok, stdout: toJsonLines(expected), stderr: '' });
		expect(run('export', files.broken)).toMatchObject({ code: EXIT.badInput, stdout: '' });
	});

	it('shows the recorded example loop round by round: tools offered, call chosen, arguments, result, answer, then its usage', () => {
		const result = run('show', path.resolve(__dirname, '../../examples/mcp-tool-loop.trace.json'));
		expect(result.code).toBe(EXIT.ok);
		const [story, usage] = result.stdout.split('\n\n');
		expect(story.split('\n').map((line) => line.replace(/\s+/g, ' ').trim())).toEqual([
			'round 0 tools listed by everything tools: echo, get-sum, get-tiny-image',
			'round 1 tools offered tools: echo, get-sum, get-tiny-image',
			'round 1 model choice tools: get-sum; arguments: [{"a":17,"b":25}]',
			'round 1 call 1 get-sum arguments validation: valid; arguments: {"a":17,"b":25}',
			'round 1 call 1 get-sum result status: ok; content: The sum of 17 and 25 is 42.',
			'round 2 tools offered tools: echo, get-sum, get-tiny-image',
			'round 2 model choice tools: echo; arguments: [{"message":"42"}]',
			'round 2 call 1 echo arguments validation: valid; arguments: {"message":"42"}',
			'round 2 call 1 echo result status: ok; content: Echo: 42',
			'round 3 tools offered tools: echo, get-sum, get-tiny-image',
			'round 3 model choice answer: 17 + 25 = 42, and the echo said: 42.',
		]);
		const perRound =
			'usage model: gpt-4.1-mini; input: 21; cache read: 0; output: 9; reasoning: 0; cost: $0.0000228';
		expect(usage.split('\n').map((line) => line.replace(/\s+/g, ' ').trim())).toEqual([
			`round 1 ${perRound}`,
			`round 2 ${perRound}`,
			`round 3 ${perRound}`,
			expect.stringMatching(
				/^total usage 3 model calls, 2 tool calls, 63 input and 27 output tokens, \$0\.0000684; priced by genai-prices 0\.1\.8; time: [\d.]+ s \(model [\d.]+ s, tools [\d.]+ s\)$/,
			),
			'',
		]);
	});
});

describe('the built command (dist/cli/main.js, as npx runs it)', () => {
	const built = path.resolve(__dirname, '../../dist/cli/main.js');
	const node = (...argv: string[]) =>
		spawnSync(process.execPath, [built, ...argv], { encoding: 'utf8' });

	beforeAll(() => {
		if (!existsSync(built))
			throw new Error('dist/cli/main.js is missing: run `npm run build` (scripts/test.sh does)');
	});

	it('starts with the line that makes it runnable as a command', () => {
		expect(readFileSync(built, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
	});

	it('prints the table and exits with the verdict', () => {
		const equal = node('diff', files.sameRun, files.expectedItem);
		expect(equal.status).toBe(EXIT.ok);
		expect(equal.stdout).toContain('Equal: the traces agree on all 7 steps.');
		const diverged = node('diff', files.otherAnswer, files.expectedItem);
		expect(diverged.status).toBe(EXIT.diverged);
		expect(diverged.stdout).toContain('Diverged at row 7 (round 2): model choice: answer');
		const bad = node('diff', files.broken, files.expectedItem);
		expect(bad.status).toBe(EXIT.badInput);
		expect(bad.stderr).toContain(`${files.broken}: Not JSON: `);
	});

	it('exports JSON Lines', () => {
		const exported = node('export', files.expectedItem);
		expect(exported.status).toBe(EXIT.ok);
		expect(exported.stdout).toBe(toJsonLines(expected));
	});

	it('ends as it would have when its reader stops early (`| head`), without a stack trace', async () => {
		const long = path.join(folder, 'long.jsonl');
		writeFileSync(long, toJsonLines(Array.from({ length: 400 }, () => expected).flat()));
		for (const [argv, status] of [
			[['export', long], EXIT.ok],
			[['diff', long, files.expectedItem], EXIT.diverged],
		] as const) {
			const child = spawn(process.execPath, [built, ...argv]);
			let stderr = '';
			child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
			child.stdout.once('data', () => child.stdout.destroy());
			const [code] = await once(child, 'close');
			expect({ code, stderr }).toEqual({ code: status, stderr: '' });
		}
	});

	it('reads a trace saved as UTF-16 with its byte order mark, as Windows PowerShell 5 writes `export > file`', () => {
		const text = `\uFEFF${toJsonLines(expected)}`;
		const littleEndian = path.join(folder, 'utf16le.jsonl');
		writeFileSync(littleEndian, Buffer.from(text, 'utf16le'));
		const bigEndian = path.join(folder, 'utf16be.jsonl');
		writeFileSync(bigEndian, Buffer.from(text, 'utf16le').swap16());
		for (const saved of [littleEndian, bigEndian]) {
			const compared = node('diff', saved, files.expectedItem);
			expect(compared.stderr).toBe('');
			expect(compared.stdout).toContain('Equal: the traces agree on all 7 steps.');
		}
	});
});
