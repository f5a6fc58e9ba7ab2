/**
 * End-to-end test in a REAL n8n: installs the pinned n8n of e2e/n8n/ (once; cached by the lock's
 * hash), packs this package and installs the tarball into a fresh N8N_USER_FOLDER the way
 * Settings → Community Nodes installs a package, then runs the examples in n8n against real MCP
 * servers and local stand-ins for the model APIs:
 *   1. examples/mcp-tool-loop.json headless, with `n8n execute`: through Chat Completions, then
 *      through Anthropic's Messages API, streamed (e2e/phases/headless.ts);
 *   2. in `n8n start` (e2e/phases/served.ts): examples/webhook-agent.json published and called over
 *      HTTP, then what the editor asks of the package there; examples/scheduled-inbox-summary.json
 *      published (its imported copy runs every 10 seconds, on the real MCP filesystem server);
 *      the approval example, two calls of one run approved and one declined
 *      (e2e/phases/approval.ts); the editor in Chromium (e2e/browser.ts); a remote MCP server
 *      behind OAuth 2.1 (e2e/phases/oauth.ts); examples/chat-agent.json, a chat whose answers
 *      stream, with memory in a Data table, and its hosted page in Chromium (e2e/phases/chat.ts);
 *   3. n8n's queue mode (e2e/phases/queue.ts): PostgreSQL and Redis (Debian's packages) started on
 *      loopback ports, an `n8n start` main and two `n8n worker`s, the package installed into each
 *      one's user folder; examples/webhook-agent.json answers 20 calls, 10 of them at once, all run
 *      by the workers, each worker on its own pooled MCP server; after SIGTERM no server is left;
 *      a chat session whose messages run on the workers, streamed through the main.
 * Then phases 1 and 2 again, without the browser, on the newest n8n release that installs from the
 * registry (e2e/latestN8n.ts: resolved and installed into e2e/.n8n-latest in the background while
 * the pinned n8n is tested), unless that is the pinned one.
 * Prints PASS/FAIL per check and the time of each phase; exits non-zero on any failure.
 *
 * Settings (environment):
 *   E2E_SKIP_BUILD=1       pack dist/ as it is instead of running `npm run build` first
 *   E2E_SKIP_WEBHOOK=1     leave out the `n8n start` part (webhook, schedule, browser, OAuth)
 *   E2E_SKIP_BROWSER=1     leave out the browser
 *   E2E_SKIP_QUEUE=1       leave out queue mode (PostgreSQL, Redis, a main and two workers)
 *   E2E_SKIP_LATEST=1      leave out the second run, on the newest n8n release
 *   E2E_SKIP_CHAT=1        leave out the chat example (in `n8n start` and in queue mode)
 *   E2E_CHROMIUM=PATH      the Chromium to drive (default: chromium on PATH)
 *   E2E_UPDATE_DOCS=1      copy the screenshots the README shows to docs/ after a passing browser phase
 *   E2E_INSTALL_MODE=npm   install with a plain `npm install <tarball>` in .n8n/nodes (n8n 1.x's way)
 *                          instead of the steps n8n 2.40's community-package service takes
 *   E2E_KEEP=1             keep the run folder (n8n user folder, logs) after the run
 *   E2E_TIMEOUT_SCALE=N    multiply every time limit by N (slow machines)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunContext, serverEntry } from './context.ts';
import {
	freePort,
	installN8n,
	installPackage,
	N8N_BIN,
	n8nEnvironment,
	PACKAGE,
	type Packed,
	packPackage,
	pinnedVersion,
	PROJECT_ROOT,
	randomHex,
	reportedVersion,
} from './n8n.ts';
import { onLatestN8n, prepareLatestN8n } from './latestN8n.ts';
import { headlessPhases } from './phases/headless.ts';
import { queuePhase } from './phases/queue.ts';
import { servedPhases } from './phases/served.ts';
import { killProcesses, runProcesses, showLogTail, stopAllGroups } from './processes.ts';
import { Results } from './results.ts';

const env = process.env;
const results = new Results();
const runDir = mkdtempSync(join(env.TMPDIR ?? tmpdir(), 'n8n-e2e.'));
// Every process the run starts carries this marker (the MCP servers get it through their
// credential), so the end of the run can find any that outlived it.
const runId = `n8n-e2e-${process.pid}-${randomHex(4)}`;
const scale = Math.max(1, Number(env.E2E_TIMEOUT_SCALE) || 1);
env.NO_PROXY = ['127.0.0.1', 'localhost', env.NO_PROXY].filter(Boolean).join(',');
env.no_proxy = ['127.0.0.1', 'localhost', env.no_proxy].filter(Boolean).join(',');

/** The run ends early: what is missing makes the rest meaningless. */
class Stop extends Error {}

function stop(name: string, why: string, log?: string): never {
	showLogTail(log, 40);
	results.fail(name, why);
	throw new Stop();
}

/** The Chromium to drive, when the browser part runs. */
function chromiumToUse(): string | undefined {
	if (env.E2E_SKIP_WEBHOOK === '1' || env.E2E_SKIP_BROWSER === '1') return undefined;
	const onPath = (name: string) =>
		spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
	const chromium = env.E2E_CHROMIUM || onPath('chromium') || onPath('chromium-browser');
	if (!chromium || !existsSync(chromium)) {
		results.fail(
			'Chromium is installed (for the editor in a browser)',
			`no ${env.E2E_CHROMIUM || 'chromium on PATH'}: apt-get install -y chromium, or set E2E_CHROMIUM, or E2E_SKIP_BROWSER=1 to leave the browser out`,
		);
		return undefined;
	}
	try {
		createRequire(join(PROJECT_ROOT, 'package.json')).resolve('playwright-core');
	} catch {
		results.fail(
			'playwright-core is installed (for the editor in a browser)',
			'run: bash scripts/setup.sh',
		);
		return undefined;
	}
	return chromium;
}

async function main(ctx: RunContext): Promise<void> {
	const everything = serverEntry('@modelcontextprotocol/server-everything');
	const filesystem = serverEntry('@modelcontextprotocol/server-filesystem');
	if (!everything || !existsSync(everything) || !filesystem || !existsSync(filesystem)) {
		stop('the MCP everything and filesystem servers are installed', 'run: bash scripts/setup.sh');
	}
	const chromium = chromiumToUse();
	console.log(`node ${process.version} at ${process.execPath}; run folder ${runDir}`);
	const latest =
		env.E2E_SKIP_LATEST === '1' ? undefined : prepareLatestN8n(pinnedVersion(), ctx.logs);

	// ------------------------------------------------------------ the real n8n, installed once
	results.phase('install n8n');
	const installLog = join(ctx.logs, 'n8n-install.log');
	if (!installN8n(installLog)) stop('install n8n', 'see the log above', installLog);
	const version = reportedVersion(N8N_BIN, runDir);
	const pinned = pinnedVersion();
	if (version !== pinned)
		stop(`n8n ${pinned} is installed (e2e/.n8n)`, `n8n --version said '${version}'`);
	results.pass(`n8n ${pinned} is installed (e2e/.n8n)`);

	// ------------------------------------------------------------ pack, install as a community package
	results.phase('build + npm pack');
	if (env.E2E_SKIP_BUILD !== '1') {
		const build = spawnSync('npm', ['run', 'build'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
		if (build.status !== 0) {
			console.error(`${build.stdout}${build.stderr}`.split('\n').slice(-40).join('\n'));
			stop('the package builds', 'npm run build failed');
		}
	}
	const packed = packPackage(runDir, join(ctx.logs, 'pack.log'));
	if (!packed) stop('npm pack', 'failed', join(ctx.logs, 'pack.log'));
	console.log(
		`    ${packed.tarball.split('/').pop()}: ${packed.files.length} files, ${packed.sizeKb.toFixed(0)} kB packed`,
	);
	const missing = [...PACKAGE.n8n.nodes, ...PACKAGE.n8n.credentials].filter(
		(file) => !packed.files.includes(file),
	);
	results.check(
		'the tarball holds every file package.json declares to n8n',
		missing.length === 0,
		`missing: ${missing.join(', ')}`,
	);
	const stray = packed.files.filter((file) => /(^|\/)(test|e2e|src)\/|\.test\.|\.tgz$/.test(file));
	if (stray.length > 0)
		console.log(`    note: the tarball also holds ${stray.slice(0, 5).join(', ')}`);

	const prepared = { everything, filesystem, chromium, packed };
	await phases(ctx, prepared, env);
	if (!latest) {
		console.log('    E2E_SKIP_LATEST=1: the run on the newest n8n release is left out');
		return;
	}
	// Queue mode and the browser stay with the pinned n8n, to keep the second run short.
	await onLatestN8n(ctx, latest, (onLatest) =>
		phases(onLatest, { ...prepared, chromium: undefined }, { ...env, E2E_SKIP_QUEUE: '1' }),
	);
}

interface Prepared {
	everything: string;
	filesystem: string;
	/** The Chromium to drive, or undefined to leave the browser out. */
	chromium?: string;
	packed: Packed;
}

/**
 * Every phase on one n8n (ctx.n8nBin), from installing the packed package into a fresh user
 * folder; `env` holds the E2E_* settings.
 */
async function phases(
	ctx: RunContext,
	{ everything, filesystem, chromium, packed }: Prepared,
	env: NodeJS.ProcessEnv,
): Promise<void> {
	const runDir = ctx.runDir;
	results.phase('install as a community package');
	const mode = env.E2E_INSTALL_MODE ?? '';
	const userFolder = join(runDir, 'user');
	const communityLog = join(ctx.logs, 'community-install.log');
	if (!installPackage(packed.tarball, userFolder, mode, communityLog)) {
		stop(
			'the tarball installs into $N8N_USER_FOLDER/.n8n/nodes',
			'npm install failed',
			communityLog,
		);
	}
	results.pass(
		`the tarball installs into $N8N_USER_FOLDER/.n8n/nodes (${mode || 'n8n 2.40 steps'})`,
	);

	// n8n's settings for every command: info level (n8n execute prints its run there), and where the
	// Read/Write Files node may write (the scheduled example writes its summary there).
	ctx.n8nEnv = n8nEnvironment(userFolder, `${runId}-key`, {
		N8N_RUNNERS_BROKER_PORT: env.N8N_RUNNERS_BROKER_PORT ?? String(await freePort()),
		N8N_LOG_LEVEL: 'info',
		N8N_RESTRICT_FILE_ACCESS_TO: join(runDir, 'n8n-files'),
	});

	results.phase('n8n loads the package');
	// At debug level n8n's package loader says what it loaded from each package.
	const nodesFile = join(runDir, 'nodes.json');
	const exported = await ctx.n8n(
		"n8n loads the package's nodes",
		180,
		['export:nodes', `--output=${nodesFile}`],
		{
			...ctx.n8nEnv,
			N8N_LOG_LEVEL: 'debug',
		},
	);
	if (exported) {
		await ctx.checker('e2e/check.ts', ['nodes', '--export', nodesFile]);
		const declared = `"credentials": ${PACKAGE.n8n.credentials.length}, "nodes": ${PACKAGE.n8n.nodes.length}`;
		const loaded = readFileSync(ctx.lastN8nLog, 'utf8')
			.replace(/\x1b\[[0-9;]*m/g, '')
			.split('\n')
			.find((line) =>
				new RegExp(
					`(Loaded all credentials and nodes from|Lazy-loading nodes and credentials from) ${PACKAGE.name} `,
				).test(line),
			);
		results.check(
			`n8n's loader loaded every node and credential the package declares (${declared})`,
			loaded?.includes(declared) === true,
			`its log said: ${loaded ?? `nothing about ${PACKAGE.name}`}`,
		);
	}

	await headlessPhases(ctx, { everything, filesystem });
	if (env.E2E_SKIP_WEBHOOK === '1') {
		results.phaseEnd();
		console.log(
			'    E2E_SKIP_WEBHOOK=1: the webhook, scheduled, browser and OAuth parts are left out',
		);
	} else {
		await servedPhases(ctx, {
			servers: { everything, filesystem },
			chromium,
			updateDocs: env.E2E_UPDATE_DOCS === '1',
			chat: env.E2E_SKIP_CHAT !== '1',
		});
	}
	if (env.E2E_SKIP_QUEUE === '1') {
		results.phaseEnd();
		console.log(
			'    E2E_SKIP_QUEUE=1: queue mode (PostgreSQL, Redis, main + 2 workers) is left out',
		);
		return;
	}
	await queuePhase(ctx, {
		servers: { everything, filesystem },
		tarball: packed.tarball,
		installMode: mode,
		chat: env.E2E_SKIP_CHAT !== '1',
	});
}

/**
 * Whatever happened: every process of the run stopped, the summary, the run folder removed; exits
 * with `status` when given (a signal's), else 0 when every check passed.
 */
async function finish(ctx: RunContext, status?: number): Promise<never> {
	await stopAllGroups();
	// Anything of this run that escaped its process group (a detached MCP server, say).
	const leftovers = runProcesses(runId);
	if (leftovers.length > 0) {
		console.error(
			`processes of this run still running at the end (killing them):\n${leftovers.join('\n')}`,
		);
		killProcesses(leftovers);
	}
	if (results.failed > 0) showLogTail(ctx.lastN8nLog || undefined, 30);
	const passed = results.summary();
	if (env.E2E_KEEP === '1') console.log(`run folder kept: ${runDir}`);
	else rmSync(runDir, { recursive: true, force: true });
	process.exit(status ?? (passed ? 0 : 1));
}

const ctx = new RunContext(results, runDir, runId, scale, `sk-e2e-${randomHex(12)}`, env);
mkdirSync(ctx.logs, { recursive: true });
for (const [signal, status] of [
	['SIGINT', 130],
	['SIGTERM', 143],
] as const) {
	process.once(signal, () => {
		results.fail('the e2e run ran to its end', `stopped by ${signal}`);
		void finish(ctx, status);
	});
}
try {
	if (Number(process.versions.node.split('.')[0]) < 24)
		stop('Node.js 24 is on PATH', `node ${process.version}`);
	await main(ctx);
} catch (error) {
	if (!(error instanceof Stop)) {
		results.fail(
			'the e2e run ran to its end',
			error instanceof Error ? (error.stack ?? error.message) : String(error),
		);
	}
}
await finish(ctx);
