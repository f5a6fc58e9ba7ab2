import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '../support/servers';

/**
 * The MCP conformance suite's own CLI against test/conformance/client.ts (lib/mcp as the node
 * drives it): each suite in one run (its scenarios in parallel), the other scenarios one run
 * each. A scenario passes when its run ends well, its results exist and none of its checks failed.
 */
const SINGLE_SCENARIOS = [
	'initialize',
	'tools_call',
	'sse-retry',
	'elicitation-sep1034-client-defaults',
	// Servers of revision 2025-03-26 (the authorization server at the MCP server's origin).
	'auth/2025-03-26-oauth-metadata-backcompat',
	'auth/2025-03-26-oauth-endpoint-fallback',
];
/** The suite `auth`: every authorization scenario of revision 2025-11-25. */
const AUTH_SUITE = [
	'auth/metadata-default',
	'auth/metadata-var1',
	'auth/metadata-var2',
	'auth/metadata-var3',
	'auth/basic-cimd',
	'auth/scope-from-www-authenticate',
	'auth/scope-from-scopes-supported',
	'auth/scope-omitted-when-undefined',
	'auth/scope-step-up',
	'auth/scope-retry-limit',
	'auth/token-endpoint-auth-basic',
	'auth/token-endpoint-auth-post',
	'auth/token-endpoint-auth-none',
	'auth/pre-registration',
];
/**
 * The suite `extensions`: authorization with nobody present, client credentials (a secret, a
 * private key's JWT) and enterprise-managed (an identity token exchanged for an ID-JAG).
 */
const EXTENSIONS_SUITE = [
	'auth/client-credentials-jwt',
	'auth/client-credentials-basic',
	'auth/cross-app-access-complete-flow',
];
/** The suite `draft`: scenarios of the next revision. */
const DRAFT_SUITE = [
	'auth/resource-mismatch',
	'auth/offline-access-scope',
	'auth/offline-access-not-supported',
];
const SUITES = { auth: AUTH_SUITE, extensions: EXTENSIONS_SUITE, draft: DRAFT_SUITE };
/** CLI runs at once, each with its servers and client processes: two cores. */
const AT_ONCE = 3;

const CLI = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
const CLIENT = [
	process.execPath,
	'--no-experimental-strip-types',
	'--require',
	path.join(__dirname, 'register.cjs'),
	path.join(__dirname, 'client.ts'),
]
	.map(quote)
	.join(' ');

interface Run {
	exitCode: number;
	/** The CLI's report (it writes to stderr when not on a terminal). */
	output: string;
	ms: number;
}

let outputDir: string;
const runs = new Map<string, Run>();

async function runCli(name: string, selection: string[]): Promise<void> {
	const started = Date.now();
	const run = await promisify(execFile)(
		process.execPath,
		[CLI, 'client', '--command', CLIENT, ...selection, '--timeout', '60000', '-o', outputDir],
		{ env: childEnv({ HOME: os.tmpdir() }), timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
	).then(
		({ stdout, stderr }) => ({ exitCode: 0, output: `${stdout}${stderr}` }),
		(error: { code?: number; stdout?: string; stderr?: string }) => ({
			exitCode: error.code ?? -1,
			output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
		}),
	);
	runs.set(name, { ...run, ms: Date.now() - started });
}

/**
 * Warnings a loaded machine causes: a reconnect the suite finds late but within twice the server's
 * retry interval (more is a failure). The CLI exits non-zero on any warning.
 */
const TIMING_WARNINGS = ['client-sse-retry-timing'];

/** The checks of a scenario that failed, or warned of something other than timing. */
function failedChecks(scenario: string): string[] {
	const folder = path.join(outputDir, path.dirname(scenario));
	const results = readdirSync(folder).filter((entry) =>
		entry.startsWith(`${path.basename(scenario)}-`),
	);
	if (results.length !== 1) return [`expected one results folder, found ${results.length}`];
	const checks = JSON.parse(
		readFileSync(path.join(folder, results[0], 'checks.json'), 'utf8'),
	) as Array<{ id: string; status: string; description?: string }>;
	return checks
		.filter(
			(check) =>
				check.status === 'FAILURE' ||
				(check.status === 'WARNING' && !TIMING_WARNINGS.includes(check.id)),
		)
		.map((check) => `${check.id} (${check.status}): ${check.description ?? ''}`);
}

beforeAll(async () => {
	outputDir = await mkdtemp(path.join(os.tmpdir(), 'mcp-conformance-'));
	// One load first, so the client processes the suite starts find the code transpiled.
	await promisify(execFile)('sh', ['-c', CLIENT], { env: childEnv(), timeout: 120_000 });
	const jobs: Array<[string, string[]]> = [
		...Object.keys(SUITES).map((suite): [string, string[]] => [suite, ['--suite', suite]]),
		...SINGLE_SCENARIOS.map((scenario): [string, string[]] => [scenario, ['--scenario', scenario]]),
	];
	await Promise.all(
		Array.from({ length: AT_ONCE }, async () => {
			for (let job = jobs.shift(); job; job = jobs.shift()) await runCli(...job);
		}),
	);
}, 300_000);

afterAll(async () => {
	await rm(outputDir, { recursive: true, force: true });
	if (process.env.CONFORMANCE_TIMES) {
		for (const [name, { ms }] of runs) console.log(`${name}: ${ms} ms`);
	}
});

describe('the MCP conformance suite, client scenarios', () => {
	it.each(SINGLE_SCENARIOS)('%s', (scenario) => {
		const run = runs.get(scenario)!;
		expect({ scenario, failed: failedChecks(scenario) }).toEqual({ scenario, failed: [] });
		const onlyTimingWarned = /Warning Checks:/.test(run.output) && !/TIMED OUT/.test(run.output);
		if (run.exitCode !== 0 && !onlyTimingWarned) {
			throw new Error(`The suite failed ${scenario}:\n${run.output}`);
		}
	});

	// One run per suite: its summary speaks for each of its scenarios.
	describe.each(Object.entries(SUITES))('the suite %s', (suite, scenarios) => {
		it.each(scenarios)('%s', (scenario) => {
			const run = runs.get(suite)!;
			expect({ scenario, failed: failedChecks(scenario) }).toEqual({ scenario, failed: [] });
			expect(run.output).toContain(`✓ ${scenario}: `);
		});

		it('runs every scenario the suite has', () => {
			expect(runs.get(suite)!.output).toContain(
				`Running ${suite} suite (${scenarios.length} scenarios)`,
			);
		});
	});
});
