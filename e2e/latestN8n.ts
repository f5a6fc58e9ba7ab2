/**
 * The newest n8n release that installs from the npm registry, beside the pinned one: n8n ships
 * weekly, and a node that breaks on the next release breaks its users. The candidates are the
 * stable releases from the `latest` dist-tag down, within the newest minor lines (a handful at
 * most); each is resolved with `npm install --package-lock-only` in a scratch folder, and one whose
 * dependencies are not all on the registry is skipped and named. The first that resolves is
 * installed with `npm ci` into e2e/.n8n-latest (one version at a time, cached by version).
 * Resolving and installing are network work: they run in the background while the pinned n8n's
 * phases run; only the native rebuild (CPU work) waits for them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunContext } from './context.ts';
import { PROJECT_ROOT, rebuildNative, reportedVersion } from './n8n.ts';
import { exitOf, showLogTail, startInGroup } from './processes.ts';

export const LATEST_HOME = join(PROJECT_ROOT, 'e2e/.n8n-latest');
const INSTALL_DIR = join(LATEST_HOME, 'n8n');
export const LATEST_BIN = join(INSTALL_DIR, 'node_modules/.bin/n8n');
const MARKER = join(INSTALL_DIR, '.installed-version');
/** What each resolution found out; a release that did not resolve is tried again after a day. */
const VERDICTS = join(LATEST_HOME, 'resolutions.json');
const RETRY_AFTER_MS = 24 * 3600 * 1000;
const MINOR_LINES = 2;
const MAX_CANDIDATES = 5;

export interface Skipped {
	version: string;
	why: string;
}

export interface LatestN8n {
	/** The newest release that resolved, installed (its native modules not yet rebuilt); undefined when none. */
	version?: string;
	/** Releases newer than it that were passed over, and why. */
	skipped: Skipped[];
	/** Why there is nothing to run when `version` is undefined. */
	reason?: string;
	/** Seconds the background work took. */
	seconds: number;
}

type Triple = [number, number, number];
const parse = (version: string): Triple | undefined => {
	const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
	return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
};
const compare = (a: Triple, b: Triple) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * The releases to try, newest first: stable versions no newer than `latest`, in its minor line and
 * the one before, at most MAX_CANDIDATES, and none older than the pinned one (which is tested anyway).
 */
export function candidates(versions: string[], latest: string, pinned: string): string[] {
	const top = parse(latest);
	const floor = parse(pinned);
	if (!top || !floor) return [];
	const minors = new Set<string>();
	return versions
		.map((version) => ({ version, triple: parse(version) }))
		.filter((entry): entry is { version: string; triple: Triple } => entry.triple !== undefined)
		.filter(({ triple }) => compare(triple, top) <= 0 && compare(triple, floor) >= 0)
		.sort((a, b) => compare(b.triple, a.triple))
		.filter(({ triple }) => {
			minors.add(`${triple[0]}.${triple[1]}`);
			return minors.size <= MINOR_LINES;
		})
		.slice(0, MAX_CANDIDATES)
		.map(({ version }) => version);
}

/** Why npm could not resolve a tree, from its log: a missing version or package; undefined otherwise. */
export function unresolvedDependency(npmLog: string): string | undefined {
	const missing =
		/No matching version found for (\S+?)\.?\s*$/m.exec(npmLog) ??
		/'(\S+)' is not in this registry/m.exec(npmLog);
	return missing ? `its dependency ${missing[1]} is not on the registry` : undefined;
}

type Verdicts = Record<string, { resolves: boolean; why?: string; checkedAt: string }>;
const readVerdicts = (): Verdicts => {
	try {
		return JSON.parse(readFileSync(VERDICTS, 'utf8')) as Verdicts;
	} catch {
		return {};
	}
};

const installedVersion = () =>
	existsSync(LATEST_BIN) && existsSync(MARKER) ? readFileSync(MARKER, 'utf8').trim() : undefined;
const markerFor = (version: string) => `${version} node-abi-${process.versions.modules}`;

const QUIET = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];

/** Runs npm in the background (its own process group, stopped with the run's), output to `log`. */
async function npm(args: string[], cwd: string, log: string, limitS: number): Promise<boolean> {
	const child = startInGroup(log, 'npm', args, { cwd });
	return (await exitOf(child, limitS * 1000)) === 0;
}

function manifest(version: string): string {
	return JSON.stringify(
		{
			name: 'n8n-nodes-tool-calling-e2e-n8n-latest',
			version: '0.0.0',
			private: true,
			dependencies: { n8n: version },
		},
		null,
		2,
	);
}

/** Resolves one release's tree in a scratch folder: its lock, or why it does not resolve. */
async function resolve(
	version: string,
	logs: string,
): Promise<{ lock: string } | { why: string; resolvable: false | undefined }> {
	const scratch = mkdtempSync(join(tmpdir(), 'n8n-resolve-'));
	const log = join(logs, `n8n-latest-resolve-${version}.log`);
	try {
		writeFileSync(join(scratch, 'package.json'), manifest(version));
		if (await npm(['install', '--package-lock-only', ...QUIET], scratch, log, 1200))
			return { lock: readFileSync(join(scratch, 'package-lock.json'), 'utf8') };
		const output = readFileSync(log, 'utf8');
		const missing = unresolvedDependency(output);
		if (missing) return { why: missing, resolvable: false };
		const last = output.trim().split('\n').slice(-2).join(' ');
		return { why: `npm could not resolve it (${last || 'no output'})`, resolvable: undefined };
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

/**
 * Finds the newest release that resolves and installs it into e2e/.n8n-latest (unless it is there
 * already), scripts off. Meant to run in the background: every npm command runs asynchronously.
 */
export function prepareLatestN8n(pinned: string, logs: string): Promise<LatestN8n> {
	return findAndInstall(pinned, logs).catch((error: Error) => ({
		skipped: [],
		reason: `preparing it failed: ${error.message}`,
		seconds: 0,
	}));
}

async function findAndInstall(pinned: string, logs: string): Promise<LatestN8n> {
	const started = performance.now();
	const seconds = () => Math.round((performance.now() - started) / 1000);
	const view = spawnSync('npm', ['view', 'n8n', 'dist-tags.latest', 'versions', '--json'], {
		encoding: 'utf8',
		timeout: 120_000,
	});
	let latest: string;
	let versions: string[];
	try {
		const info = JSON.parse(view.stdout) as { 'dist-tags.latest': string; versions: string[] };
		[latest, versions] = [info['dist-tags.latest'], info.versions];
	} catch {
		return { skipped: [], reason: `npm view n8n failed: ${view.stderr.trim()}`, seconds: 0 };
	}
	mkdirSync(LATEST_HOME, { recursive: true });
	const verdicts = readVerdicts();
	const skipped: Skipped[] = [];
	for (const version of candidates(versions, latest, pinned)) {
		if (version === pinned) {
			const reason = `the newest release that resolves is the pinned ${pinned}`;
			return { skipped, reason, seconds: seconds() };
		}
		if (installedVersion() === markerFor(version)) return { version, skipped, seconds: seconds() };
		const known = verdicts[version];
		if (known && !known.resolves && Date.now() - Date.parse(known.checkedAt) < RETRY_AFTER_MS) {
			skipped.push({ version, why: `${known.why} (found ${known.checkedAt})` });
			continue;
		}
		const resolved = await resolve(version, logs);
		if ('why' in resolved) {
			skipped.push({ version, why: resolved.why });
			if (resolved.resolvable === false)
				verdicts[version] = {
					resolves: false,
					why: resolved.why,
					checkedAt: new Date().toISOString(),
				};
			writeFileSync(VERDICTS, `${JSON.stringify(verdicts, null, 2)}\n`);
			continue;
		}
		rmSync(INSTALL_DIR, { recursive: true, force: true });
		mkdirSync(INSTALL_DIR, { recursive: true });
		writeFileSync(join(INSTALL_DIR, 'package.json'), manifest(version));
		writeFileSync(join(INSTALL_DIR, 'package-lock.json'), resolved.lock);
		const log = join(logs, `n8n-latest-install-${version}.log`);
		if (!(await npm(['ci', ...QUIET], INSTALL_DIR, log, 1800))) {
			const last = readFileSync(log, 'utf8').trim().split('\n').slice(-2).join(' ');
			return { skipped, reason: `npm ci of n8n ${version} failed: ${last}`, seconds: seconds() };
		}
		return { version, skipped, seconds: seconds() };
	}
	return {
		skipped,
		reason: `no release from ${latest} down resolves (${skipped.length} tried)`,
		seconds: seconds(),
	};
}

/** Builds the native modules of the installed release (once) and marks it installed. */
export function finishLatestInstall(version: string, log: string): boolean {
	if (installedVersion() === markerFor(version)) return true;
	if (!rebuildNative(INSTALL_DIR, log)) return false;
	writeFileSync(MARKER, `${markerFor(version)}\n`);
	return true;
}

/**
 * The phases again on the newest release that installs, in a folder and context of their own, the
 * checks and phases labelled with its version; says which releases were skipped and why.
 */
export async function onLatestN8n(
	ctx: RunContext,
	preparing: Promise<LatestN8n>,
	phases: (onLatest: RunContext) => Promise<void>,
): Promise<void> {
	const { results } = ctx;
	results.phase('the newest n8n release: wait for its install');
	const latest = await preparing;
	for (const { version, why } of latest.skipped) results.note(`n8n ${version} skipped: ${why}`);
	if (!latest.version) {
		results.note(`no run on a newer n8n: ${latest.reason}`);
		return;
	}
	const { version } = latest;
	console.log(`    resolved and installed in the background in ${latest.seconds} s`);
	const log = join(ctx.logs, 'n8n-latest-rebuild.log');
	const name = `n8n ${version}, the newest release that installs, is installed (e2e/.n8n-latest)`;
	if (!finishLatestInstall(version, log)) {
		showLogTail(log, 40);
		results.fail(name, 'its native modules did not build');
		return;
	}
	const onLatest = new RunContext(
		results,
		join(ctx.runDir, `n8n-${version}`),
		ctx.runId,
		ctx.scale,
		ctx.apiKey,
		ctx.n8nEnv,
	);
	onLatest.n8nBin = LATEST_BIN;
	mkdirSync(onLatest.logs, { recursive: true });
	const said = reportedVersion(LATEST_BIN, onLatest.runDir);
	results.check(name, said === version, `n8n --version said '${said}'`);
	if (said !== version) return;
	results.note(
		`n8n ${version} tested too (the headless and served phases; queue mode and the browser only on the pinned n8n, to keep the run short)`,
	);
	results.label = `[n8n ${version}] `;
	try {
		await phases(onLatest);
	} finally {
		results.label = '';
	}
}
