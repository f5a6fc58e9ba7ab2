/**
 * n8n's queue mode, as deployments that outgrow one n8n process run it: PostgreSQL and Redis (the
 * machine's own, from Debian's packages, started on loopback ports for this phase and stopped after
 * it), an `n8n start` main and two `n8n worker`s, each with a user folder of its own and the package
 * installed there the way Settings → Community Nodes installs it, one encryption key for all.
 * The webhook example (the real MCP everything server over stdio; the labelled local stand-in for
 * the model API, answering each request by what it holds) is published and called 20 times, 10 of
 * them at once: the main only enqueues, the workers run every execution, each worker starts its own
 * pooled MCP server and keeps it from its first execution to its last, and after SIGTERM to each
 * n8n process (to its pid alone, as `docker stop` signals) no MCP server process is left.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import {
	chmodSync,
	chownSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunContext, StandIn } from '../context.ts';
import { freePort, n8nEnvironment, PROJECT_ROOT, randomHex } from '../n8n.ts';
import { callWebhook, type Loose, type Reply } from '../n8nRest.ts';
import {
	exitOf,
	groupMembers,
	processTable,
	runBounded,
	runProcesses,
	serversUnder,
	showLogTail,
	startInGroup,
	stopGroup,
} from '../processes.ts';
import { chatInQueue } from './chat.ts';
import {
	checkLogs,
	everythingCredential,
	openAiCredential,
	type McpServers,
} from './credentials.ts';

export interface QueueOptions {
	servers: McpServers;
	/** The packed package, installed into each n8n's user folder. */
	tarball: string;
	/** E2E_INSTALL_MODE: '' (n8n 2.40's steps) or 'npm'. */
	installMode: string;
	/** Run the chat example's session on the workers too (e2e/phases/chat.ts). */
	chat: boolean;
}

const WORKERS = 2;
/** Jobs each worker runs at once (`n8n worker --concurrency`): 10 at once need both workers. */
const CONCURRENCY = 5;
const AT_ONCE = 10;
const ONE_BY_ONE = 10;
const WORKFLOW_ID = 'e2eQueueWebhook';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ANSI = /\x1b\[[0-9;]*m/g;

/** Redis's and PostgreSQL's programs, or why they cannot be used. */
interface Services {
	redisServer: string;
	/** PostgreSQL's bin folder: initdb, postgres, pg_isready, createdb, psql. */
	pgBin: string;
	/** The command prefix that runs PostgreSQL's programs (as the postgres user when we are root). */
	asPostgres: string[];
	postgresUid?: number;
	postgresGid?: number;
}

function findServices(): Services | string {
	const onPath = (name: string) =>
		spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
	const redisServer = onPath('redis-server') || ['/usr/bin/redis-server'].find(existsSync);
	const pgRoot = '/usr/lib/postgresql';
	const versions = existsSync(pgRoot)
		? readdirSync(pgRoot)
				.filter((name) => existsSync(join(pgRoot, name, 'bin/postgres')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	const pgBin = versions.length > 0 ? join(pgRoot, versions[0], 'bin') : undefined;
	const missing = [!redisServer && 'redis-server', !pgBin && `${pgRoot}/<version>/bin/postgres`];
	if (!redisServer || !pgBin) {
		return `no ${missing.filter(Boolean).join(' and no ')}: apt-get install -y redis-server postgresql (scripts/test.sh does), or E2E_SKIP_QUEUE=1 to leave queue mode out`;
	}
	if (process.getuid?.() !== 0) return { redisServer, pgBin, asPostgres: [] };
	// PostgreSQL refuses to run as root: its programs run as the postgres user Debian's package made.
	const id = (flag: string) =>
		Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim() || NaN);
	const [postgresUid, postgresGid] = [id('-u'), id('-g')];
	if (Number.isNaN(postgresUid) || Number.isNaN(postgresGid))
		return 'running as root, and there is no postgres user to run PostgreSQL as (Debian: apt-get install -y postgresql)';
	const runuser = onPath('runuser');
	if (!runuser) return 'running as root, and there is no runuser to run PostgreSQL as postgres';
	return {
		redisServer,
		pgBin,
		asPostgres: [runuser, '-u', 'postgres', '--'],
		postgresUid,
		postgresGid,
	};
}

/** Polls `ready` once a second for `limitS` seconds; the seconds it took, or undefined. */
async function until(
	limitS: number,
	ready: () => Promise<boolean> | boolean,
	alive: () => boolean = () => true,
): Promise<number | undefined> {
	const started = Date.now();
	while (Date.now() - started < limitS * 1000 && alive()) {
		if (await ready()) return Math.round((Date.now() - started) / 1000);
		await sleep(1_000);
	}
	return undefined;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Whether Redis answers PING on a port. */
function redisPing(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect(port, '127.0.0.1');
		let said = '';
		const done = (ok: boolean) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(2_000, () => done(false));
		socket.on('error', () => done(false));
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (data) => {
			said += data.toString();
			if (said.includes('\r\n')) done(said.startsWith('+PONG'));
		});
	});
}

const answersHttp = (url: string) =>
	fetch(url, { signal: AbortSignal.timeout(2_000) })
		.then((response) => response.ok)
		.catch(() => false);

interface N8nProcess {
	name: string;
	child: ChildProcess;
	log: string;
}

/** What the phase started, stopped at its end whatever happened. */
interface Started {
	/** PostgreSQL's and Redis's process groups. */
	stores: ChildProcess[];
	n8n: N8nProcess[];
	standIn?: StandIn;
}

/** Where PostgreSQL and Redis listen. */
interface Stores {
	pgPort: number;
	redisPort: number;
	/** The password of PostgreSQL's user n8n. */
	password: string;
}

/** The n8n processes once all three are ready. */
interface Cluster {
	main: N8nProcess;
	workers: N8nProcess[];
	baseUrl: string;
}

export async function queuePhase(ctx: RunContext, options: QueueOptions): Promise<void> {
	const { results } = ctx;
	results.phase('queue mode: main + 2 workers');
	const programs = findServices();
	if (typeof programs === 'string') {
		results.fail('queue mode: Redis and PostgreSQL are installed', programs);
		return;
	}
	const folder = join(ctx.runDir, 'queue');
	mkdirSync(folder, { recursive: true });
	// PostgreSQL's folder is one the postgres user may reach when we are root: the run folder is
	// root's alone, and so may be a TMPDIR under /root.
	const pgParent = programs.asPostgres.length > 0 ? '/tmp' : tmpdir();
	const pgFolder = mkdtempSync(join(pgParent, 'n8n-e2e-pg.'));
	const started: Started = { stores: [], n8n: [] };
	try {
		await queueMode(ctx, options, programs, folder, pgFolder, started);
	} finally {
		for (const { child } of started.n8n) await stopGroup(child.pid, 10);
		await ctx.stopStandIn(started.standIn);
		for (const child of started.stores) await stopGroup(child.pid, 15);
		rmSync(pgFolder, { recursive: true, force: true });
	}
}

async function queueMode(
	ctx: RunContext,
	options: QueueOptions,
	programs: Services,
	folder: string,
	pgFolder: string,
	started: Started,
): Promise<void> {
	const { results } = ctx;
	const names = ['main', ...Array.from({ length: WORKERS }, (_, n) => `worker-${n + 1}`)];
	// The package goes into each n8n's own user folder, the Community-Nodes way, all three at once,
	// while PostgreSQL and Redis come up.
	const [stores, installed] = await Promise.all([
		startStores(ctx, programs, folder, pgFolder, started),
		Promise.all(names.map((name) => install(ctx, options, join(folder, name), name))),
	]);
	const notInstalled = names.filter((_, n) => !installed[n]);
	results.check(
		`queue mode: the package installed the Community-Nodes way into the user folder of ${names.join(', ')}`,
		notInstalled.length === 0,
		`failed for ${notInstalled.join(', ')}`,
	);
	if (!stores || notInstalled.length > 0) return;

	// One set-up for the three: queue mode, the same PostgreSQL, Redis and encryption key; each has
	// its own user folder and ports (a worker's health check, every process's task runner broker).
	const shared = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(stores.redisPort),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(stores.pgPort),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'n8n',
		DB_POSTGRESDB_PASSWORD: stores.password,
		N8N_LOG_LEVEL: 'info',
	};
	const envOf = async (name: string, own: Record<string, string>) => {
		const env = n8nEnvironment(join(folder, name), `${ctx.runId}-queue-key`, {
			...shared,
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			...own,
		});
		delete env.OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS;
		return env;
	};
	const envs = [await envOf('main', { N8N_PORT: String(await freePort()) })];
	for (const name of names.slice(1)) {
		envs.push(
			await envOf(name, {
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(await freePort()),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			}),
		);
	}

	started.standIn = await ctx.standIn('sums', 'queue');
	if (!started.standIn) {
		results.fail('queue mode: the model stand-in starts', 'no state file after 20 s');
		return;
	}
	const credentials = ctx.writeCredentials('queue', [
		everythingCredential(ctx, options.servers),
		openAiCredential(ctx, 'openAi', 'OpenAI', started.standIn.baseUrl),
	]);
	const workflow = ctx.writeWorkflow('webhook-agent.json', WORKFLOW_ID);
	const cli = (what: string, args: string[]) => ctx.n8n(`queue mode: ${what}`, 180, args, envs[0]);
	const published =
		(await cli('import the credentials', ['import:credentials', `--input=${credentials}`])) &&
		(await cli('import the webhook example', ['import:workflow', `--input=${workflow}`])) &&
		(await cli('publish the webhook example', ['publish:workflow', `--id=${WORKFLOW_ID}`]));
	if (!published) return;

	const cluster = await startN8n(ctx, folder, names, envs, started);
	if (!cluster) return;
	const entry = options.servers.everything;
	const servers = await callTheWebhook(ctx, cluster, entry);
	await checkWhoRan(ctx, cluster, programs, stores);
	checkServers(ctx, servers);
	if (options.chat) await chatInQueue(ctx, cluster.baseUrl, cluster.workers, options.servers);
	await stopAndCheck(ctx, started, entry);
}

/** PostgreSQL (a fresh cluster with a database n8n) and Redis on free loopback ports. */
async function startStores(
	ctx: RunContext,
	programs: Services,
	folder: string,
	pgFolder: string,
	started: Started,
): Promise<Stores | undefined> {
	const { results } = ctx;
	const [pgPort, redisPort] = [await freePort(), await freePort()];
	const password = randomHex(12);
	const initLog = join(ctx.logs, 'queue-initdb.log');
	const initialised = initPostgres(programs, pgFolder, password, initLog);
	if (initialised !== true) {
		showLogTail(initLog, 30);
		results.fail('queue mode: PostgreSQL starts on a loopback port', initialised);
		return undefined;
	}
	const pgLog = join(ctx.logs, 'queue-postgres.log');
	const [command, ...args] = [
		...programs.asPostgres,
		join(programs.pgBin, 'postgres'),
		...['-D', join(pgFolder, 'data'), '-p', String(pgPort), '-k', pgFolder],
		...['-c', 'listen_addresses=127.0.0.1'],
	];
	const postgres = startInGroup(pgLog, command, args, { env: ctx.marked() });
	started.stores.push(postgres);
	const redisLog = join(ctx.logs, 'queue-redis.log');
	const redis = startInGroup(
		redisLog,
		programs.redisServer,
		[
			...['--port', String(redisPort), '--bind', '127.0.0.1'],
			...['--save', '', '--appendonly', 'no', '--dir', folder],
		],
		{ env: ctx.marked() },
	);
	started.stores.push(redis);

	const pgReady = await until(
		60 * ctx.scale,
		() =>
			spawnSync(join(programs.pgBin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(pgPort)])
				.status === 0,
		() => running(postgres),
	);
	const created =
		pgReady !== undefined &&
		spawnSync(
			join(programs.pgBin, 'createdb'),
			['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'n8n', 'n8n'],
			{ env: { ...process.env, PGPASSWORD: password }, encoding: 'utf8' },
		).status === 0;
	const redisReady = await until(
		30 * ctx.scale,
		() => redisPing(redisPort),
		() => running(redis),
	);
	if (!created || redisReady === undefined) {
		showLogTail(created ? redisLog : pgLog, 30);
		results.fail(
			'queue mode: PostgreSQL and Redis start on loopback ports',
			!created
				? `PostgreSQL ${pgReady === undefined ? 'not ready' : 'ready, but createdb n8n failed'}`
				: 'Redis does not answer PING',
		);
		return undefined;
	}
	const versionOf = (command: string) =>
		spawnSync(command, ['--version'], { encoding: 'utf8' })
			.stdout.trim()
			.match(/v=([\d.]+)|\) ([\d.]+)/)
			?.slice(1)
			.find(Boolean);
	results.pass(
		`queue mode: PostgreSQL ${versionOf(join(programs.pgBin, 'postgres'))} on 127.0.0.1:${pgPort} and Redis ${versionOf(programs.redisServer)} on 127.0.0.1:${redisPort}, fresh, started by the test`,
	);
	return { pgPort, redisPort, password };
}

/** `n8n start` and the workers, started at once; undefined when one did not get ready. */
async function startN8n(
	ctx: RunContext,
	folder: string,
	names: string[],
	envs: NodeJS.ProcessEnv[],
	started: Started,
): Promise<Cluster | undefined> {
	const [main, ...workers] = names.map((name, n) => {
		const log = join(ctx.logs, `queue-${name}.log`);
		ctx.n8nLogs.push(log);
		const args = n === 0 ? ['start'] : ['worker', `--concurrency=${CONCURRENCY}`];
		const child = startInGroup(log, ctx.n8nBin, args, { cwd: folder, env: ctx.marked(envs[n]) });
		const n8nProcess = { name, child, log };
		started.n8n.push(n8nProcess);
		return n8nProcess;
	});
	const baseUrl = `http://127.0.0.1:${envs[0].N8N_PORT}`;
	const limitS = 240 * ctx.scale;
	const [mainReady, ...workersReady] = await Promise.all([
		until(
			limitS,
			async () =>
				(await answersHttp(`${baseUrl}/healthz`)) &&
				readFileSync(main.log, 'utf8').includes('Editor is now accessible'),
			() => running(main.child),
		),
		...workers.map((worker, n) =>
			until(
				limitS,
				() =>
					answersHttp(`http://127.0.0.1:${envs[n + 1].QUEUE_HEALTH_CHECK_PORT}/healthz/readiness`),
				() => running(worker.child),
			),
		),
	]);
	const notReady = [main, ...workers].filter(
		(_, n) => [mainReady, ...workersReady][n] === undefined,
	);
	if (notReady.length > 0) {
		for (const { log } of notReady) showLogTail(log, 40);
		ctx.results.fail(
			'queue mode: n8n main and both workers start',
			`not ready within ${limitS}s: ${notReady.map(({ name, child }) => `${name}${running(child) ? '' : ' (exited)'}`).join(', ')}`,
		);
		return undefined;
	}
	ctx.results.pass(
		`queue mode: n8n main (/healthz after ${mainReady}s) and ${WORKERS} workers (n8n worker --concurrency=${CONCURRENCY}, /healthz/readiness after ${workersReady.join('s, ')}s) up on one PostgreSQL and Redis`,
	);
	return { main, workers, baseUrl };
}

/** The MCP server processes under the main and under each worker. */
interface ServerSnapshot {
	main: number[];
	workers: number[][];
}

/**
 * The webhook called with 20 questions ("What is N + 0.25?"), 10 at once, then 10 one after
 * another; each reply must be its own question's sum. The MCP servers under each n8n process,
 * after the concurrent calls and after the last.
 */
async function callTheWebhook(
	ctx: RunContext,
	cluster: Cluster,
	entry: string,
): Promise<ServerSnapshot[]> {
	const snapshot = (): ServerSnapshot => {
		const table = processTable();
		return {
			main: serversUnder(table, cluster.main.child.pid!, entry),
			workers: cluster.workers.map((worker) => serversUnder(table, worker.child.pid!, entry)),
		};
	};
	const n8n = { baseUrl: cluster.baseUrl, cookie: '', userFolder: '' };
	const ask = (n: number) =>
		callWebhook(n8n, 'ask', { question: `What is ${n} + 0.25?` }, 120_000 * ctx.scale).catch(
			(error: Error) => ({ status: 0, text: error.message, json: undefined }) as Reply,
		);
	const wrongReplies = (replies: Reply[], first: number) =>
		replies
			.map((reply, n) => ({ reply, n: first + n }))
			.filter(
				({ reply, n }) =>
					reply.status !== 200 ||
					reply.json?.answer !== `${n} + 0.25 = ${n + 0.25}` ||
					reply.json?.rounds !== 2,
			)
			.map(({ reply, n }) => `question ${n}: HTTP ${reply.status} ${reply.text.slice(0, 160)}`);

	let at = Date.now();
	const together = await Promise.all(Array.from({ length: AT_ONCE }, (_, n) => ask(n + 1)));
	const togetherMs = Date.now() - at;
	const wrongTogether = wrongReplies(together, 1);
	ctx.results.check(
		`queue mode: ${AT_ONCE} concurrent POST /webhook/ask answered 200, each with the sum of its own question (${togetherMs} ms)`,
		wrongTogether.length === 0,
		wrongTogether.slice(0, 5).join('; '),
	);
	const afterTogether = snapshot();
	at = Date.now();
	const oneByOne: Reply[] = [];
	for (let n = AT_ONCE + 1; n <= AT_ONCE + ONE_BY_ONE; n++) oneByOne.push(await ask(n));
	const wrongOneByOne = wrongReplies(oneByOne, AT_ONCE + 1);
	ctx.results.check(
		`queue mode: ${ONE_BY_ONE} more, one after another, answered likewise (${Math.round((Date.now() - at) / ONE_BY_ONE)} ms each)`,
		wrongOneByOne.length === 0,
		wrongOneByOne.slice(0, 5).join('; '),
	);
	return [afterTogether, snapshot()];
}

/**
 * Who ran the executions: the main's log names each execution it enqueued, a worker's log each
 * one it ran; PostgreSQL holds them all.
 */
async function checkWhoRan(
	ctx: RunContext,
	cluster: Cluster,
	programs: Services,
	stores: Stores,
): Promise<void> {
	const idsIn = (log: string, pattern: RegExp) =>
		[...readFileSync(log, 'utf8').replace(ANSI, '').matchAll(pattern)].map((match) => match[1]);
	const total = AT_ONCE + ONE_BY_ONE;
	const observe = () => ({
		enqueued: idsIn(cluster.main.log, /Enqueued execution (\d+)/g),
		ranOnMain: idsIn(cluster.main.log, /Worker (?:started|finished) execution (\d+)/g),
		ranBy: cluster.workers.map((worker) => idsIn(worker.log, /Worker finished execution (\d+)/g)),
		stored: psql(
			programs,
			stores,
			`select id, status, mode from execution_entity where "workflowId" = '${WORKFLOW_ID}' order by id`,
		),
	});
	// A webhook answers from its Respond to Webhook node: the worker logs the execution's end, and
	// stores its status, a moment after the caller has its answer.
	const complete = (found: ReturnType<typeof observe>) =>
		found.ranBy.flat().length >= total && found.stored.length >= total;
	let seen = observe();
	if (!complete(seen)) await until(10, () => complete((seen = observe())));
	const { enqueued, ranOnMain, ranBy, stored } = seen;
	const rows = stored.map((line) => line.split('|'));
	const storedIds = rows.map(([id]) => id);
	const unsuccessful = rows.filter(
		([, status, mode]) => status !== 'success' || mode !== 'webhook',
	);
	const byWorkers = ranBy.flat();
	const sameSet = (a: string[], b: string[]) =>
		a.length === b.length && [...a].sort().join() === [...b].sort().join();
	const counts = ranBy.map((ids, n) => `${cluster.workers[n].name}: ${ids.length}`).join(', ');
	ctx.results.check(
		`queue mode: all ${total} executions are stored in PostgreSQL as successful webhook runs, each enqueued by the main and run by one worker (${counts})`,
		storedIds.length === total &&
			unsuccessful.length === 0 &&
			sameSet(enqueued, storedIds) &&
			sameSet(byWorkers, storedIds) &&
			new Set(byWorkers).size === byWorkers.length &&
			ranOnMain.length === 0,
		`stored: ${stored.join(' ') || 'none'}; enqueued by the main: ${enqueued.join(',')}; run by the workers: ${ranBy.map((ids) => `[${ids.join(',')}]`).join(' ')}${ranOnMain.length > 0 ? `; run by the main: ${ranOnMain.join(',')}` : ''}`,
	);
	ctx.results.check(
		`queue mode: both workers ran some of the ${total} executions`,
		ranBy.every((ids) => ids.length > 0),
		counts,
	);
}

/** One pooled MCP server per worker, the same process from the concurrent calls to the last. */
function checkServers(ctx: RunContext, [afterTogether, afterAll]: ServerSnapshot[]): void {
	const show = (pids: number[][]) => pids.map((each) => `[${each.join(',')}]`).join(' ');
	const last = afterAll.workers.map((pids) => pids.join(','));
	ctx.results.check(
		`queue mode: each worker holds its own pooled MCP server, one process each, the same from the concurrent calls to the last (pids ${last.join(' and ')})`,
		afterAll.workers.every((pids) => pids.length === 1) &&
			new Set(last).size === WORKERS &&
			afterTogether.workers.every((pids, n) => pids.join(',') === last[n]),
		`MCP server processes under each worker after the concurrent calls: ${show(afterTogether.workers)}; after the last: ${show(afterAll.workers)}`,
	);
	ctx.results.check(
		'queue mode: the main process started no MCP server (it only enqueues)',
		afterTogether.main.length === 0 && afterAll.main.length === 0,
		`MCP server processes under the main: ${[...afterTogether.main, ...afterAll.main].join(',')}`,
	);
}

/**
 * SIGTERM to each n8n process's own pid (as `docker stop` or `kill PID` sends it, not to its
 * process group): each must exit, and take its MCP server along. Then the stand-in's record, and
 * PostgreSQL and Redis stopped.
 */
async function stopAndCheck(ctx: RunContext, started: Started, entry: string): Promise<void> {
	const { results } = ctx;
	const stoppingAt = Date.now();
	const statuses = await Promise.all(
		started.n8n.map(({ child }) => {
			try {
				process.kill(child.pid!, 'SIGTERM');
			} catch {
				// Exited already: exitOf tells.
			}
			return exitOf(child, 60_000 * ctx.scale);
		}),
	);
	const stoppedS = Math.round((Date.now() - stoppingAt) / 1000);
	await sleep(1_000);
	// A zombie has ended already (the container's init may be slow to reap it): only live ones count.
	const leftInGroups = started.n8n.flatMap(({ name, child }) =>
		groupMembers(child.pid!)
			.filter((line) => !line.split(/\s+/)[2]?.startsWith('Z'))
			.map((line) => `${name}: ${line}`),
	);
	results.check(
		`queue mode: main and workers exited on SIGTERM to their own pid (in ${stoppedS} s), leaving nothing of theirs running`,
		statuses.every((status) => status === 0) && leftInGroups.length === 0,
		`exit statuses ${statuses.join(', ')}; still running: ${leftInGroups.join('; ') || 'nothing'}`,
	);
	const leftServers = runProcesses(ctx.runId).filter((line) => line.includes(entry));
	results.check(
		'queue mode: no MCP server process outlived the workers',
		leftServers.length === 0,
		leftServers.join('; '),
	);
	checkLogs(ctx, 'queue mode');
	if (started.standIn) {
		await ctx.stopStandIn(started.standIn);
		checkStandIn(ctx, started.standIn, AT_ONCE + ONE_BY_ONE);
		started.standIn = undefined;
	}
	const storesStopped = (
		await Promise.all(started.stores.map((child) => stopGroup(child.pid, 30)))
	).every(Boolean);
	const left = runProcesses(ctx.runId).filter((line) => !line.includes('e2e/main.ts'));
	results.check(
		'queue mode: PostgreSQL and Redis stopped on SIGTERM; no process of the phase is left',
		storesStopped && left.length === 0,
		`${storesStopped ? '' : 'PostgreSQL or Redis had to be killed; '}${left.join('; ')}`,
	);
}

/**
 * Installs the package into a user folder with e2e/n8n.ts's installPackage, in a process of its
 * own so that the three installs run at once.
 */
async function install(
	ctx: RunContext,
	options: QueueOptions,
	userFolder: string,
	name: string,
): Promise<boolean> {
	const log = join(ctx.logs, `queue-community-install-${name}.log`);
	const script = `import { installPackage } from ${JSON.stringify(join(PROJECT_ROOT, 'e2e/n8n.ts'))};
process.exit(installPackage(${JSON.stringify(options.tarball)}, ${JSON.stringify(userFolder)}, ${JSON.stringify(options.installMode)}, ${JSON.stringify(`${log}.npm`)}) ? 0 : 1);`;
	const { status } = await runBounded(
		600 * ctx.scale,
		log,
		process.execPath,
		['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', '--input-type=module', '-e', script],
		{ cwd: PROJECT_ROOT, env: ctx.marked() },
	);
	if (status !== 0) {
		showLogTail(log, 20);
		showLogTail(`${log}.npm`, 30);
	}
	return status === 0;
}

/**
 * A fresh PostgreSQL cluster in `pgFolder` (owned by the postgres user when we are root) with a
 * superuser n8n whose password is `password`; an error message when it could not be made.
 */
function initPostgres(
	programs: Services,
	pgFolder: string,
	password: string,
	log: string,
): true | string {
	const passwordFile = join(pgFolder, 'password');
	writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
	if (programs.postgresUid !== undefined) {
		chownSync(pgFolder, programs.postgresUid, programs.postgresGid!);
		chownSync(passwordFile, programs.postgresUid, programs.postgresGid!);
	}
	chmodSync(pgFolder, 0o700);
	const [command, ...args] = [
		...programs.asPostgres,
		join(programs.pgBin, 'initdb'),
		'-D',
		join(pgFolder, 'data'),
		'-U',
		'n8n',
		`--pwfile=${passwordFile}`,
		'--auth-local=trust',
		'--auth-host=scram-sha-256',
		'-E',
		'UTF8',
		'--no-locale',
		'--no-sync',
	];
	const result = spawnSync(command, args, { cwd: pgFolder, encoding: 'utf8', timeout: 120_000 });
	writeFileSync(log, `${result.stdout ?? ''}${result.stderr ?? ''}`);
	return result.status === 0 ? true : `initdb failed (status ${result.status})`;
}

/** The rows a query gives, as psql's unaligned lines (`a|b|c`). */
function psql(programs: Services, stores: Stores, query: string): string[] {
	const result = spawnSync(
		join(programs.pgBin, 'psql'),
		['-h', '127.0.0.1', '-p', String(stores.pgPort), '-U', 'n8n', '-d', 'n8n', '-At', '-c', query],
		{ env: { ...process.env, PGPASSWORD: stores.password }, encoding: 'utf8', timeout: 30_000 },
	);
	if (result.status !== 0) return [`psql failed: ${result.stderr.trim()}`];
	return result.stdout.split('\n').filter(Boolean);
}

/** What the model stand-in saw: two calls per question, the second with the real server's sum. */
function checkStandIn(ctx: RunContext, standIn: StandIn, total: number): void {
	let state: Loose;
	try {
		state = JSON.parse(readFileSync(standIn.state, 'utf8'));
	} catch (error) {
		ctx.results.fail("queue mode: the stand-in's record could be read", (error as Error).message);
		return;
	}
	const calls: Loose[] = (state.requests ?? []).filter(
		(request: Loose) => request.method === 'POST' && request.path.endsWith('/chat/completions'),
	);
	const toolResults = calls
		.map((request) => request.body?.messages?.at(-1))
		.filter((message: Loose) => message?.role === 'tool')
		.map((message: Loose) => String(message.content));
	const expected = Array.from(
		{ length: total },
		(_, n) => `The sum of ${n + 1} and 0.25 is ${n + 1.25}.`,
	);
	const keys = new Set(calls.map((request) => request.headers?.authorization));
	ctx.results.check(
		`queue mode: the model stand-in got ${2 * total} calls with the credential's key, ${total} of them carrying the real MCP server's get-sum result for their own question`,
		calls.length === 2 * total &&
			toolResults.length === total &&
			[...toolResults].sort().join('\n') === [...expected].sort().join('\n') &&
			keys.size === 1 &&
			keys.has(`Bearer ${ctx.apiKey}`),
		`${calls.length} calls; tool results: ${JSON.stringify(toolResults).slice(0, 300)}; ${keys.size} authorization values`,
	);
}
