/**
 * The demo, run by scripts/demo.sh once the package is built: installs the pinned n8n (once,
 * cached in e2e/.n8n) and the package into a fresh user folder (.demo/) the way Community Nodes
 * does, imports the examples, runs the tool loop end to end with `n8n execute`, prints each round
 * trip, then serves the editor with everything imported.
 *
 * The MCP side always runs for real (server-everything from npm). The model is live when a
 * provider is configured (see modelFromEnvironment), else the recorded example trace replays it.
 *
 *   node scripts/demo.ts [--no-serve]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
	freePort,
	installN8n,
	installPackage,
	N8N_BIN as n8n,
	n8nEnvironment,
	packPackage,
	pinnedVersion,
	randomHex,
} from '../e2e/n8n.ts';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { 'no-serve': { type: 'boolean' } } });
const folder = path.join(root, '.demo');
const OWNER = {
	email: 'demo@example.com',
	firstName: 'Demo',
	lastName: 'User',
	password: 'Demo-password-1',
};

interface Model {
	label: string;
	provider: string;
	model: string;
	credential: { type: string; data: Record<string, unknown> };
}

/** A live model when the environment names one; undefined means replay. */
function modelFromEnvironment(env: NodeJS.ProcessEnv): Model | undefined {
	const key = (name: string) => env[name] ?? '';
	if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
		const provider = env.OPENAI_API === 'responses' ? 'openaiResponses' : 'openaiChat';
		const data = {
			baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
			apiKey: key('OPENAI_API_KEY'),
			organization: '',
			headers: {},
		};
		return {
			label: `OpenAI-compatible at ${data.baseUrl}`,
			provider,
			model: env.OPENAI_MODEL ?? 'gpt-4.1-mini',
			credential: { type: 'openAiCompatibleApi', data },
		};
	}
	if (env.ANTHROPIC_API_KEY) {
		const data = {
			baseUrl: env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
			apiKey: key('ANTHROPIC_API_KEY'),
			version: '2023-06-01',
			headers: {},
		};
		return {
			label: 'Anthropic',
			provider: 'anthropic',
			model: env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5',
			credential: { type: 'anthropicMessagesApi', data },
		};
	}
	if (env.GEMINI_API_KEY) {
		const data = {
			baseUrl: env.GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com/v1beta',
			apiKey: key('GEMINI_API_KEY'),
			headers: {},
		};
		return {
			label: 'Google Gemini',
			provider: 'gemini',
			model: env.GEMINI_MODEL ?? 'gemini-2.5-flash',
			credential: { type: 'geminiApi', data },
		};
	}
	if (env.OLLAMA_HOST || env.OLLAMA_MODEL) {
		const data = {
			baseUrl: env.OLLAMA_HOST ?? 'http://localhost:11434',
			apiKey: key('OLLAMA_API_KEY'),
			headers: {},
		};
		return {
			label: `Ollama at ${data.baseUrl}`,
			provider: 'ollama',
			model: env.OLLAMA_MODEL ?? 'llama3.2',
			credential: { type: 'ollamaNativeApi', data },
		};
	}
	return undefined;
}

function n8nCli(...args: string[]): string {
	const result = spawnSync(n8n, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	if (result.status !== 0)
		throw new Error(
			`n8n ${args[0]} failed (${result.status}):\n${(result.stdout + result.stderr).slice(-3000)}`,
		);
	return result.stdout;
}

const example = (file: string) =>
	JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8'));
const write = (file: string, value: unknown) => {
	writeFileSync(path.join(folder, file), JSON.stringify(value, null, 2));
	return path.join(folder, file);
};

/** The credentials the examples name: the MCP everything server, and the model (a placeholder in a replay). */
function credentials(model: Model | undefined) {
	const require = createRequire(import.meta.url);
	const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
	const { bin } = require(manifest) as { bin: string | Record<string, string> };
	const entry = path.join(
		path.dirname(manifest),
		typeof bin === 'string' ? bin : Object.values(bin)[0],
	);
	const everything = {
		id: 'mcpEverything',
		name: 'MCP everything (stdio)',
		type: 'mcpStdioServerApi',
		data: {
			command: process.execPath,
			arguments: { argument: [{ value: entry }, { value: 'stdio' }] },
			environment: { variable: [{ name: 'PATH', value: process.env.PATH ?? '' }] },
			cwd: '',
		},
	};
	const placeholder = {
		type: 'openAiCompatibleApi',
		data: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: '', organization: '', headers: {} },
	};
	const { type, data } = model?.credential ?? placeholder;
	return [
		everything,
		{
			id: 'openAi',
			name: model ? `Demo model (${model.label})` : 'Demo model (unused: replay)',
			type,
			data,
		},
	];
}

/** The loop example, set to the live model, or to replay the recorded trace. */
function demoWorkflow(model: Model | undefined) {
	const workflow = example('mcp-tool-loop.json');
	const node = workflow.nodes.find((candidate: { name: string }) => candidate.name === 'Model');
	if (model) {
		node.parameters = {
			...node.parameters,
			provider: model.provider,
			model: { __rl: true, mode: 'id', value: model.model },
		};
		node.credentials = { [model.credential.type]: { id: 'openAi', name: 'Demo model' } };
	} else {
		node.parameters = {
			...node.parameters,
			replay: 'json',
			replayTrace: readFileSync(path.join(root, 'examples', 'mcp-tool-loop.trace.json'), 'utf8'),
		};
	}
	return {
		...workflow,
		id: 'demoToolLoop',
		name: `Demo: MCP tool loop (${model ? model.label : 'replay'})`,
		active: false,
	};
}

/** `n8n execute --rawOutput` prints the run as JSON between log lines: `{` … `}` at column 0. */
function runOf(output: string) {
	const lines = output.split('\n');
	const start = lines.findIndex((line) => line.startsWith('{'));
	const end = lines.findLastIndex((line) => line.startsWith('}'));
	if (start === -1 || end < start)
		throw new Error(`n8n execute printed no run:\n${output.slice(-2000)}`);
	return JSON.parse(lines.slice(start, end + 1).join('\n'));
}

async function serve(): Promise<void> {
	const port = process.env.N8N_PORT ?? '5678';
	const base = `http://${process.env.N8N_HOST ?? '127.0.0.1'}:${port}`;
	const log = path.join(folder, 'n8n.log');
	const server = spawn(n8n, ['start'], {
		env: { ...process.env, N8N_PORT: port },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const logLines: string[] = [];
	for (const stream of [server.stdout, server.stderr])
		stream.on('data', (chunk) => logLines.push(String(chunk)));
	const stop = () => server.kill('SIGTERM');
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	for (let waited = 0; ; waited++) {
		if (server.exitCode !== null)
			throw new Error(`n8n start exited:\n${logLines.join('').slice(-3000)}`);
		const healthy = await fetch(`${base}/healthz`).then(
			(response) => response.ok,
			() => false,
		);
		if (healthy && logLines.join('').includes('Editor is now accessible')) break;
		if (waited > 240)
			throw new Error(`n8n did not start within 240 s:\n${logLines.join('').slice(-3000)}`);
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
	const setup = await fetch(`${base}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(OWNER),
	});
	console.log(
		`\nThe editor: ${base}  (sign in as ${OWNER.email} / ${OWNER.password}${setup.ok ? '' : ', or the owner you set up before'})`,
	);
	console.log(
		'The examples are imported; "Demo: MCP tool loop" is the run above. Ctrl-C stops n8n.',
	);
	server.on('exit', () => writeFileSync(log, logLines.join('')));
	await new Promise((resolve) => server.on('exit', resolve));
}

/** Whether something listens on a local port. */
const portTaken = (port: number) =>
	new Promise<boolean>((resolve) => {
		const socket = createConnection({ host: '127.0.0.1', port });
		socket.once('connect', () => (socket.destroy(), resolve(true)));
		socket.once('error', () => resolve(false));
	});

/** n8n installed once, and the package installed into .demo/user as Community Nodes installs it. */
async function installN8nAndPackage(): Promise<void> {
	rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	console.log(`==> n8n ${pinnedVersion()}`);
	const installLog = path.join(folder, 'n8n-install.log');
	if (!installN8n(installLog)) throw new Error(`installing n8n failed; see ${installLog}`);
	console.log('==> the package, installed as a community package into .demo/user');
	const packageLog = path.join(folder, 'package-install.log');
	const packed = packPackage(folder, packageLog);
	if (!packed || !installPackage(packed.tarball, path.join(folder, 'user'), '', packageLog))
		throw new Error(`installing the package failed; see ${packageLog}`);
	// A port the editor can take: 5678 unless it is busy or N8N_PORT says otherwise.
	const port = process.env.N8N_PORT ?? String((await portTaken(5678)) ? await freePort() : 5678);
	Object.assign(
		process.env,
		n8nEnvironment(path.join(folder, 'user'), `demo-${randomHex(12)}`, {
			N8N_RUNNERS_BROKER_PORT: process.env.N8N_RUNNERS_BROKER_PORT ?? String(await freePort()),
			// `n8n execute --rawOutput` prints the run only at info level or above.
			N8N_LOG_LEVEL: 'info',
			N8N_PORT: port,
		}),
	);
}

async function main(): Promise<void> {
	await installN8nAndPackage();
	const model = modelFromEnvironment(process.env);
	console.log(
		model
			? `==> live model: ${model.label}, ${model.provider} ${model.model}`
			: '==> no model configured: REPLAY of examples/mcp-tool-loop.trace.json (recorded with a local stand-in model API, not a live model)',
	);

	// The file holds the model's key in plain text: n8n keeps it encrypted once imported.
	const credentialsFile = write('credentials.json', credentials(model));
	try {
		n8nCli('import:credentials', `--input=${credentialsFile}`);
	} finally {
		rmSync(credentialsFile);
	}
	for (const [file, id] of [
		['webhook-agent.json', 'demoWebhookAgent'],
		['scheduled-inbox-summary.json', 'demoScheduled'],
	]) {
		n8nCli('import:workflow', `--input=${write(file, { ...example(file), id, active: false })}`);
	}
	n8nCli('import:workflow', `--input=${write('demo-loop.json', demoWorkflow(model))}`);

	console.log('==> running "Demo: MCP tool loop" with n8n execute (the MCP server is real)');
	const run = runOf(n8nCli('execute', '--id=demoToolLoop', '--rawOutput'));
	const runData = run.data?.resultData?.runData ?? {};
	const final = runData.Model?.at(-1)?.data?.main?.[1]?.[0]?.json;
	if (!final)
		throw new Error(
			`The loop ended without a final answer: ${JSON.stringify(run.data?.resultData?.error ?? runData.Model?.at(-1)?.error ?? {}).slice(0, 2000)}`,
		);
	const traceFile = write('last-run.trace.json', { trace: final.trace });
	console.log("==> each round trip, from the run's trace:");
	spawnSync(process.execPath, [path.join(root, 'dist/cli/main.js'), 'show', traceFile], {
		stdio: 'inherit',
	});
	console.log(`==> answer after ${final.rounds} rounds: ${final.answer}`);
	console.log(`    the whole trace: ${traceFile}`);
	if (!values['no-serve']) await serve();
}

main().catch((error: Error) => {
	console.error(`demo failed: ${error.message}`);
	process.exitCode = 1;
});
