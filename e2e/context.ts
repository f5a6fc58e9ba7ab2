/**
 * What the phases of the end-to-end run share: the run's folder and marker, its verdicts, the n8n
 * commands it runs (bounded, each with its log), the model stand-ins it starts, and the credentials
 * and workflows it writes for n8n's import.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { N8N_BIN, PROJECT_ROOT } from './n8n.ts';
import type { PhaseRun } from './phase.ts';
import { runBounded, showLogTail, startInGroup, stopGroup, waitForFile } from './processes.ts';
import type { Results } from './results.ts';

// Workflows and stand-in states are read as loose JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const NODE_FLAGS = ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON'];

export interface StandIn {
	process: ChildProcess;
	/** The file it writes its state to (and, when stopped, the requests it received). */
	state: string;
	baseUrl: string;
}

export class RunContext {
	readonly logs: string;
	/** n8n's logs, in the order written; `logsLookedAt` of them already checked. */
	readonly n8nLogs: string[] = [];
	logsLookedAt = 0;
	lastN8nLog = '';
	/** Commands that left a process running after they exited. */
	readonly leftRunning: string[] = [];
	private commands = 0;

	readonly results: Results;
	readonly runDir: string;
	readonly runId: string;
	readonly scale: number;
	readonly apiKey: string;
	/** The environment of every n8n command. */
	n8nEnv: NodeJS.ProcessEnv;
	/** The n8n the phases run: the pinned one, or the newest release in a second run. */
	n8nBin = N8N_BIN;

	constructor(
		results: Results,
		runDir: string,
		runId: string,
		scale: number,
		apiKey: string,
		n8nEnv: NodeJS.ProcessEnv,
	) {
		this.results = results;
		this.runDir = runDir;
		this.runId = runId;
		this.scale = scale;
		this.apiKey = apiKey;
		this.n8nEnv = n8nEnv;
		this.logs = join(runDir, 'logs');
	}

	/** Marks a process as this run's, so the leak check finds what it leaves. */
	marked(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
		return { ...env, E2E_RUN_ID: this.runId };
	}

	/** A PhaseRun for a phase written against e2e/phase.ts. */
	phaseRun(name: string): PhaseRun {
		return {
			projectRoot: PROJECT_ROOT,
			runDir: join(this.runDir, name),
			timeoutScale: this.scale,
			runId: this.runId,
			check: (check, passed, why) => this.results.check(check, passed, why),
		};
	}

	/** An n8n CLI command, bounded, with its own log; a failure fails the check named. */
	async n8n(check: string, limitS: number, args: string[], env = this.n8nEnv): Promise<boolean> {
		const log = join(this.logs, `n8n-${++this.commands}-${args[0].replace(/[:/]/g, '-')}.log`);
		this.n8nLogs.push(log);
		this.lastN8nLog = log;
		const { status, leftRunning } = await runBounded(limitS * this.scale, log, this.n8nBin, args, {
			cwd: this.runDir,
			env: this.marked(env),
		});
		if (leftRunning.length > 0) {
			console.error(`    still running 3 s after n8n ${args[0]} exited:`);
			for (const line of leftRunning) console.error(`      ${line}`);
			this.leftRunning.push(`n8n ${args[0]}`);
		}
		if (status === 0) return true;
		this.results.fail(
			check,
			`n8n ${args[0]} exited with status ${status} (log: ${log.split('/').pop()})`,
		);
		showLogTail(log, 40);
		return false;
	}

	/** Imports a file of credentials or a workflow; `what` names it in the check. */
	importFile(kind: 'credentials' | 'workflow', what: string, file: string): Promise<boolean> {
		return this.n8n(`import ${what}`, 120, [`import:${kind}`, `--input=${file}`]);
	}

	/** Publishes an imported workflow, so that `n8n start` runs it. */
	publish(what: string, id: string): Promise<boolean> {
		return this.n8n(`publish ${what}`, 120, ['publish:workflow', `--id=${id}`]);
	}

	/**
	 * Runs a checker program (e2e/check.ts, e2e/browser.ts) and records its verdicts; its output
	 * goes to check-<name>.txt (name: its first argument, check.ts's command).
	 */
	async checker(
		script: string,
		args: string[],
		{ name = args[0], limitS = 300 } = {},
	): Promise<void> {
		const out = join(this.runDir, `check-${name}.txt`);
		const { status } = await runBounded(
			limitS * this.scale,
			out,
			process.execPath,
			[...NODE_FLAGS, script, ...args],
			{
				cwd: PROJECT_ROOT,
				env: this.marked(),
			},
		);
		const before = this.results.failed;
		const output = readFileSync(out, 'utf8');
		this.results.record(output);
		if (status !== 0 && this.results.failed === before) {
			this.results.fail(
				`${script} ${name} ran`,
				`exit status ${status}: ${output.split('\n').slice(-5).join(' ')}`,
			);
		}
	}

	/** Starts the model stand-in (e2e/standin.ts) for a scenario; undefined when it did not come up. */
	async standIn(
		scenario: string,
		name = scenario,
		extra: string[] = [],
	): Promise<StandIn | undefined> {
		const state = join(this.runDir, `standin-${name}.json`);
		const log = join(this.logs, `standin-${name}.log`);
		const child = startInGroup(
			log,
			process.execPath,
			[
				...NODE_FLAGS,
				'e2e/standin.ts',
				'--scenario',
				scenario,
				'--state',
				state,
				'--api-key',
				this.apiKey,
				...extra,
			],
			{ cwd: PROJECT_ROOT, env: this.marked() },
		);
		if (!(await waitForFile(state, 20 * this.scale))) {
			showLogTail(log, 20);
			await stopGroup(child.pid, 5);
			return undefined;
		}
		const baseUrl = JSON.parse(readFileSync(state, 'utf8')).baseURL as string;
		console.log(`    stand-in for '${name}' at ${baseUrl}`);
		return { process: child, state, baseUrl };
	}

	/** Stops a stand-in, which then writes the requests it received to its state file. */
	async stopStandIn(standIn: StandIn | undefined): Promise<void> {
		if (!standIn) return;
		await stopGroup(standIn.process.pid, 10);
		if (standIn.process.exitCode === null && standIn.process.signalCode === null) {
			await new Promise((resolve) => standIn.process.once('exit', resolve));
		}
	}

	/** Writes credentials for n8n's import:credentials; the file. */
	writeCredentials(name: string, credentials: unknown[]): string {
		const file = join(this.runDir, `credentials-${name}.json`);
		writeFileSync(file, JSON.stringify(credentials, null, 2));
		return file;
	}

	/**
	 * Writes a copy of examples/<example> with an id of at most 21 characters (n8n's import needs
	 * it), edited by `edit`; the committed example is never changed.
	 */
	writeWorkflow(example: string, id: string, edit?: (workflow: Workflow) => void): string {
		const workflow = new Workflow(
			JSON.parse(readFileSync(join(PROJECT_ROOT, 'examples', example), 'utf8')),
			example,
		);
		edit?.(workflow);
		const file = join(this.runDir, `workflow-${id}.json`);
		writeFileSync(file, JSON.stringify({ ...workflow.json, id, active: false }, null, 2));
		return file;
	}
}

/** An example workflow being edited for the run. */
export class Workflow {
	readonly json: Loose;
	private readonly example: string;

	constructor(json: Loose, example: string) {
		this.json = json;
		this.example = example;
	}

	/** The first node of a type. */
	node(type: string): Loose {
		const found = this.json.nodes.find((node: Loose) => node.type === type);
		if (!found) throw new Error(`${this.example} has no ${type} node`);
		return found;
	}

	/** Points every node that uses a credential type at another credential. */
	useCredential(type: string, id: string, name: string): void {
		for (const node of this.json.nodes)
			if (node.credentials?.[type]) node.credentials[type] = { id, name };
	}
}

/** The file an MCP server package's bin runs (the servers are started with this node, not npx). */
export function serverEntry(packageName: string): string | undefined {
	try {
		const manifest = createRequire(join(PROJECT_ROOT, 'package.json')).resolve(
			`${packageName}/package.json`,
		);
		const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as {
			bin: string | Record<string, string>;
		};
		return join(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]);
	} catch {
		return undefined;
	}
}
