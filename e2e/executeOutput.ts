/** Reading what a headless run left: `n8n execute --rawOutput`'s output and a stand-in's state file. */
import { readFileSync } from 'node:fs';

// n8n's run data and the stand-in's requests are read as loose JSON and checked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/** `n8n execute --rawOutput` prints the run as indented JSON between log lines: `{` … `}` at column 0. */
export function executeResult(text: string): Loose {
	const lines = text.split(/\r?\n/);
	const start = lines.findIndex((line) => line === '{');
	if (start < 0) throw new Error('no JSON object in the output of n8n execute');
	const end = lines.findIndex((line, at) => at > start && line === '}');
	if (end < 0) throw new Error('the JSON object in the output of n8n execute does not end');
	return JSON.parse(lines.slice(start, end + 1).join('\n'));
}

export interface StandInState {
	baseURL: string;
	answer: string;
	remaining?: number;
	requests?: Array<{ method: string; path: string; headers: Record<string, string>; body: Loose }>;
}

/** The state file e2e/standin.ts wrote when it stopped: the requests it received. */
export function standInState(file: string): StandInState {
	const state = JSON.parse(readFileSync(file, 'utf8')) as StandInState;
	if (!state.requests)
		throw new Error('the stand-in did not record its requests (did it stop cleanly?)');
	return state;
}
