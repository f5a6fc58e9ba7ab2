#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { diffStories } from '../lib/trace/diff';
import { formatDiff, formatStory, formatUsage, printable } from '../lib/trace/format';
import { toJsonLines } from '../lib/trace/jsonl';
import { readTrace, traceFileText, type RecordedEntry } from '../lib/trace/read';
import { storyOf } from '../lib/trace/story';
import { usageOfTrace } from '../lib/trace/usage';

/** What the command line reads and writes, passed in so it runs the same in-process. */
export interface CliIo {
	stdout(text: string): void;
	stderr(text: string): void;
	readFile(path: string): string;
}

export const EXIT = { ok: 0, diverged: 1, badInput: 2 } as const;

export const USAGE = `Usage:
  n8n-nodes-tool-calling diff <a> <b>    compare two traces step by step
  n8n-nodes-tool-calling show <trace>    print a trace's story: tools offered, calls, results, answer,
                                         then the usage of each round and the total (tokens, cost, time)
  n8n-nodes-tool-calling export <trace>  write a trace as JSON Lines to stdout
  n8n-nodes-tool-calling --help          show this text

A trace file holds an item's json ({"trace": [...]}), a list of trace entries, or JSON Lines
(one entry per line, as export writes them).
diff prints one row per step (tools offered, model choice, call arguments and results), leaving
out what differs between any two runs (times, ids, usage), and exits 0 when the traces agree,
1 when they diverge, 2 on bad input.
`;

const processIo: CliIo = {
	stdout: (text) => process.stdout.write(text),
	stderr: (text) => process.stderr.write(text),
	readFile: (path) => traceFileText(readFileSync(path)),
};

export function main(argv: readonly string[], io: CliIo = processIo): number {
	const [command, ...files] = argv;
	if (command === '--help' || command === '-h') {
		io.stdout(USAGE);
		return EXIT.ok;
	}
	const usable =
		(command === 'diff' && files.length === 2) ||
		((command === 'export' || command === 'show') && files.length === 1);
	if (!usable) {
		io.stderr(
			`${command === undefined ? 'No command given.' : `Cannot run: ${argv.join(' ')}`}\n\n${USAGE}`,
		);
		return EXIT.badInput;
	}
	try {
		if (command === 'show') {
			const [story, usage] = fromFile(files[0], io, (trace) => [
				formatStory(storyOf(trace)),
				formatUsage(usageOfTrace(trace)),
			]);
			io.stdout(usage === '' ? story : `${story}\n${usage}`);
			return EXIT.ok;
		}
		if (command === 'export') {
			io.stdout(toJsonLines(fromFile(files[0], io, (trace) => trace)));
			return EXIT.ok;
		}
		const [left, right] = files.map((file) => fromFile(file, io, storyOf));
		const diff = diffStories(left, right);
		io.stdout(formatDiff(diff));
		return diff.equal ? EXIT.ok : EXIT.diverged;
	} catch (error) {
		// Messages quote the file's text: its control characters must not reach the terminal.
		io.stderr(`${printable((error as Error).message)}\n`);
		return EXIT.badInput;
	}
}

/** Reads a trace file and uses it, naming the file in whatever goes wrong. */
function fromFile<T>(file: string, io: CliIo, use: (trace: RecordedEntry[]) => T): T {
	try {
		return use(readTrace(io.readFile(file)));
	} catch (error) {
		throw new Error(`${file}: ${(error as Error).message}`);
	}
}

if (require.main === module) {
	// A reader that stops early (`show trace.jsonl | head`) closes the pipe: the run still ends as
	// it would have, a diff with its verdict.
	process.stdout.on('error', (error: NodeJS.ErrnoException) => {
		if (error.code !== 'EPIPE') throw error;
		process.exit();
	});
	process.exitCode = main(process.argv.slice(2));
}
