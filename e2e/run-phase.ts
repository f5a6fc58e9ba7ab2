/**
 * Runs one phase of the end-to-end test against a running n8n, for scripts/e2e.sh. One line per
 * check on stdout: `PASS<TAB>name` or `FAIL<TAB>name<TAB>why`; exits 1 when a check failed.
 *
 *   node e2e/run-phase.ts oauth --base URL --user-folder DIR --run-dir DIR --run-id ID [--scale N]
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { signIn } from './n8nRest.ts';
import type { PhaseRun, RunningN8n } from './phase.ts';
import { oauthPhase } from './phases/oauth.ts';

const PHASES: Record<string, (run: PhaseRun, n8n: RunningN8n) => Promise<void>> = {
	oauth: oauthPhase,
};

const { positionals, values } = parseArgs({
	allowPositionals: true,
	options: {
		base: { type: 'string' },
		'user-folder': { type: 'string' },
		'run-dir': { type: 'string' },
		'run-id': { type: 'string' },
		scale: { type: 'string', default: '1' },
	},
});
const name = positionals[0] ?? '';
const phase = PHASES[name];
if (!phase || !values.base || !values['run-dir'] || !values['run-id']) {
	console.error(
		`usage: node e2e/run-phase.ts ${Object.keys(PHASES).join('|')} --base URL --user-folder DIR --run-dir DIR --run-id ID`,
	);
	process.exit(2);
}

let failures = 0;
const runDir = join(values['run-dir'], name);
mkdirSync(runDir, { recursive: true });
const run: PhaseRun = {
	projectRoot: join(dirname(fileURLToPath(import.meta.url)), '..'),
	runDir,
	timeoutScale: Math.max(1, Number(values.scale) || 1),
	runId: values['run-id'],
	check(check, passed, why) {
		if (passed) {
			console.log(`PASS\t${check}`);
		} else {
			failures++;
			console.log(`FAIL\t${check}\t${(why ?? '').replace(/\s+/g, ' ').slice(0, 600)}`);
		}
	},
};
try {
	const n8n: RunningN8n = {
		baseUrl: values.base,
		cookie: await signIn(values.base),
		userFolder: values['user-folder'] ?? '',
	};
	await phase(run, n8n);
} catch (error) {
	run.check(
		`${name}: the phase ran to its end`,
		false,
		error instanceof Error ? error.stack : String(error),
	);
}
process.exitCode = failures > 0 ? 1 : 0;
