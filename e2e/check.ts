/**
 * Checks what the real n8n produced in scripts/e2e.sh. One line per check on stdout:
 * `PASS<TAB>name` or `FAIL<TAB>name<TAB>why`; exits 1 when any check failed.
 *
 *   node e2e/check.ts nodes   --export FILE
 *   node e2e/check.ts loop    --output FILE --standin FILE --api-key KEY
 *   node e2e/check.ts vendorLoop --output FILE --standin FILE --api-key KEY --dialect ID --path PATH
 *   node e2e/check.ts webhook --response FILE --status CODE --standin FILE --api-key KEY
 *   node e2e/check.ts editor  --base URL --credentials FILE --types DIR
 *
 * `--output` is what `n8n execute --rawOutput` printed (log lines around the JSON are skipped),
 * `--standin` the state file e2e/standin.ts wrote when it stopped (requests it received).
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { executeResult, standInState, type StandInState } from './executeOutput.ts';
import { send } from './n8nRest.ts';
import { TOOL_LOOP_ORDER } from '../test/support/toolLoopOrder.ts';

// n8n's run data and REST replies are read as loose JSON and checked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const PACKAGE = 'n8n-nodes-tool-calling';
const NODE_TYPES = [
	`${PACKAGE}.mcpClient`,
	`${PACKAGE}.toolCallingModel`,
	`${PACKAGE}.toolCallTrace`,
];
/** The nodes that call out (an MCP server, a model API) and so take credentials. */
const NODES_WITH_CREDENTIALS = NODE_TYPES.slice(0, 2);
const CREDENTIAL_TYPES = [
	'mcpStdioServerApi',
	'mcpHttpServerApi',
	'openAiCompatibleApi',
	'anthropicMessagesApi',
	'geminiApi',
	'ollamaNativeApi',
];

let failures = 0;
function check(name: string, test: () => true | string): void {
	let verdict: true | string;
	try {
		verdict = test();
	} catch (error) {
		verdict = `threw ${error instanceof Error ? error.message : String(error)}`;
	}
	if (verdict === true) {
		console.log(`PASS\t${name}`);
	} else {
		failures++;
		console.log(`FAIL\t${name}\t${verdict.replace(/\s+/g, ' ').slice(0, 600)}`);
	}
}

const show = (value: unknown) => JSON.stringify(value);

function expectEqual(actual: unknown, expected: unknown): true | string {
	return isDeepStrictEqual(actual, expected)
		? true
		: `expected ${show(expected)}, got ${show(actual)}`;
}

function completions(state: StandInState) {
	return (state.requests ?? []).filter(
		(r) => r.method === 'POST' && r.path.startsWith('/v1/chat/completions'),
	);
}

/** Every task of every node, in the order n8n ran them. */
function runOrder(runData: Record<string, Loose[]>): Array<{ node: string; task: Loose }> {
	return Object.entries(runData)
		.flatMap(([node, tasks]) => tasks.map((task) => ({ node, task })))
		.sort(
			(a, b) =>
				(a.task.executionIndex ?? a.task.startTime) - (b.task.executionIndex ?? b.task.startTime),
		);
}

const toolMessages = (item: Loose) =>
	((item?.json?.messages ?? []) as Loose[]).filter((m) => m?.role === 'tool');

function checkNodes(values: Record<string, string | undefined>): void {
	const exported = JSON.parse(readFileSync(values.export!, 'utf8')) as Array<Record<string, Loose>>;
	for (const type of NODE_TYPES) {
		check(`n8n lists node type ${type}`, () => {
			const found = exported.find((node) => node.name === type);
			if (!found) return `not among the ${exported.length} node types n8n exported`;
			const credentials = (found.credentials ?? []).map((c: Loose) => c.name);
			if (!NODES_WITH_CREDENTIALS.includes(type))
				return credentials.length === 0 ? true : `listed with credentials ${show(credentials)}`;
			return credentials.length > 0 ? true : 'listed without credentials';
		});
	}
}

/**
 * The loop example with another provider, streamed: the same answer through the vendor's own wire
 * format (each request to its path, streamed), told as such by the trace.
 */
function checkVendorLoop(values: Record<string, string | undefined>): void {
	const { dialect, path } = values;
	const label = `loop (${dialect}, streamed)`;
	const state = standInState(values.standin!);
	const run = executeResult(readFileSync(values.output!, 'utf8'));
	const runData: Record<string, Loose[]> = run.data?.resultData?.runData ?? {};
	check(`${label}: the workflow succeeded with the scripted answer after 3 rounds`, () => {
		const error = run.data?.resultData?.error;
		if (error)
			return `error in ${error.node?.name ?? 'the workflow'}: ${error.message} ${error.description ?? ''}`;
		const item = runData.Answer?.[0]?.data?.main?.[0]?.[0]?.json;
		return expectEqual([item?.answer, item?.rounds], [state.answer, 3]);
	});
	check(`${label}: every model request went to ${path}, streamed`, () => {
		const calls = (state.requests ?? []).filter((r) => r.method === 'POST');
		return expectEqual(
			calls.map((r) => [r.path.split('?')[0], r.body?.stream ?? r.path.includes('alt=sse')]),
			[
				[path, true],
				[path, true],
				[path, true],
			],
		);
	});
	check(`${label}: the trace names the dialect and the streamed chunks of every turn`, () => {
		const trace: Loose[] = runData.Model?.at(-1)?.data?.main?.[1]?.[0]?.json?.trace ?? [];
		const responses = trace.filter((entry) => entry.step === 'model.response');
		return expectEqual(
			responses.map((entry) => [entry.dialect, entry.streamedChunks > 0]),
			[
				[dialect, true],
				[dialect, true],
				[dialect, true],
			],
		);
	});
	check(`${label}: every scripted turn was used, and the key appears in no output`, () => {
		if (state.remaining !== 0) return `${state.remaining} turns left`;
		return readFileSync(values.output!, 'utf8').includes(values['api-key']!)
			? "the key is in n8n execute's output"
			: true;
	});
}

function checkLoop(values: Record<string, string | undefined>): void {
	const text = readFileSync(values.output!, 'utf8');
	const state = standInState(values.standin!);
	let run: Loose;
	check('loop: n8n execute printed the run as JSON', () => {
		run = executeResult(text);
		return true;
	});
	if (!run) return;
	const runData: Record<string, Loose[]> = run.data?.resultData?.runData ?? {};
	check('loop: the workflow succeeded', () => {
		const error = run.data?.resultData?.error;
		if (error)
			return `error in ${error.node?.name ?? 'the workflow'}: ${error.message} ${error.description ?? ''}`;
		return run.status === 'success'
			? true
			: `status ${show(run.status)}, finished ${show(run.finished)}`;
	});
	check('loop: nodes ran in the expected order', () =>
		expectEqual(
			runOrder(runData).map((entry) => entry.node),
			TOOL_LOOP_ORDER,
		),
	);
	check('loop: "Answer" has the scripted answer after 3 rounds', () => {
		const item = runData.Answer?.[0]?.data?.main?.[0]?.[0]?.json;
		if (!item) return 'the Answer node has no output';
		if (item.answer !== state.answer)
			return `answer ${show(item.answer)}, expected ${show(state.answer)}`;
		return item.rounds === 3 ? true : `rounds ${show(item.rounds)}, expected 3`;
	});
	check('loop: "Execute Tool Calls" got the real MCP server\'s answers', () => {
		const results = (runData['Execute Tool Calls'] ?? []).map((task) =>
			toolMessages(task.data?.main?.[0]?.[0]).at(-1),
		);
		return expectEqual(
			results.map((m) => m && { name: m.name, content: m.content }),
			[
				{ name: 'get-sum', content: 'The sum of 17 and 25 is 42.' },
				{ name: 'echo', content: 'Echo: 42' },
			],
		);
	});
	const requests = completions(state);
	check('loop: the model endpoint saw 3 requests, each with the history so far', () =>
		expectEqual(
			requests.map((r) => r.body?.messages?.length),
			[2, 4, 6],
		),
	);
	check('loop: the model was offered the listed MCP tools', () =>
		expectEqual(
			(requests[0]?.body?.tools ?? []).map((t: Loose) => t.function?.name),
			['echo', 'get-sum', 'get-tiny-image'],
		),
	);
	check("loop: the credential's API key was sent as a bearer token", () =>
		expectEqual(
			[...new Set(requests.map((r) => r.headers.authorization))],
			[`Bearer ${values['api-key']}`],
		),
	);
	check('loop: every scripted model turn was used', () => expectEqual(state.remaining, 0));
	check('loop: the API key does not appear in the run data', () =>
		text.includes(values['api-key']!) ? 'found in the output of n8n execute' : true,
	);
}

function checkWebhook(values: Record<string, string | undefined>): void {
	const state = standInState(values.standin!);
	const body = readFileSync(values.response!, 'utf8');
	check('webhook: POST /webhook/ask answered 200 with JSON', () => {
		if (values.status !== '200') return `HTTP ${values.status}: ${body.slice(0, 300)}`;
		JSON.parse(body);
		return true;
	});
	check('webhook: the reply is {answer, rounds} from the scripted model', () => {
		const reply = JSON.parse(body);
		return expectEqual(
			{ answer: reply.answer, rounds: reply.rounds },
			{ answer: state.answer, rounds: 2 },
		);
	});
	// The stand-in reports 21 input and 9 output tokens a round; at a local address the price table
	// knows no provider, so the cost is null rather than a guess.
	check(
		"webhook: the reply has the answer's tokens, and its cost as null at a local stand-in",
		() => {
			const reply = JSON.parse(body);
			return expectEqual(
				{ cost: reply.cost, tokens: reply.tokens },
				{
					cost: null,
					tokens: { input: 42, output: 18, cacheRead: 0, cacheWrite: null, reasoning: 0 },
				},
			);
		},
	);
	const requests = completions(state);
	check('webhook: the question reached the model', () =>
		expectEqual(requests[0]?.body?.messages?.[1], { role: 'user', content: 'What is 1.5 + 2.25?' }),
	);
	check('webhook: the real MCP server added the numbers', () =>
		expectEqual(requests[1]?.body?.messages?.[3], {
			role: 'tool',
			tool_call_id: 'call_1',
			content: 'The sum of 1.5 and 2.25 is 3.75.',
		}),
	);
	check('webhook: tools left out in the workflow were not offered', () => {
		const offered = (requests[0]?.body?.tools ?? []).map((t: Loose) => t.function?.name);
		if (!offered.includes('get-sum')) return `get-sum not offered: ${show(offered)}`;
		return offered.includes('get-env') ? 'get-env offered' : true;
	});
	check('webhook: every scripted model turn was used', () => expectEqual(state.remaining, 0));
	check('webhook: the API key does not appear in the reply', () =>
		body.includes(values['api-key']!) ? 'found in the reply' : true,
	);
}

/**
 * What the editor does with the package, through n8n's REST API as the editor calls it: the
 * node and credential types n8n serves, the icons, credential tests, and the lists and forms the
 * nodes fill from a live MCP server and model endpoint.
 */
async function checkEditor(values: Record<string, string | undefined>): Promise<void> {
	const base = values.base!;
	const credentials = JSON.parse(readFileSync(values.credentials!, 'utf8')) as Array<
		Record<string, Loose>
	>;
	const typesDir = values.types!;
	let cookie = '';
	const call = async (method: string, path: string, body?: unknown) => {
		const reply = await send(
			base + path,
			{
				method,
				headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
				body: body === undefined ? undefined : JSON.stringify(body),
			},
			60_000,
		);
		return { ...reply, cookies: reply.headers.getSetCookie() };
	};
	const results: Array<[string, true | string]> = [];
	const record = async (name: string, test: () => Promise<true | string>) => {
		try {
			results.push([name, await test()]);
		} catch (error) {
			results.push([name, `threw ${error instanceof Error ? error.message : String(error)}`]);
		}
	};

	// The type files n8n wrote for the editor (served only to signed-in users, so read from disk).
	const nodeTypes = JSON.parse(readFileSync(`${typesDir}/nodes.json`, 'utf8')) as Array<
		Record<string, Loose>
	>;
	const credentialTypes = JSON.parse(readFileSync(`${typesDir}/credentials.json`, 'utf8')) as Array<
		Record<string, Loose>
	>;
	const ours = nodeTypes.filter((node) => NODE_TYPES.includes(node.name));
	await record('editor: n8n serves the node types to the editor', async () =>
		expectEqual(ours.map((node) => node.name).sort(), [...NODE_TYPES].sort()),
	);
	await record(
		'editor: n8n serves every credential type of the package to the editor',
		async () => {
			const found = credentialTypes
				.filter((c) => CREDENTIAL_TYPES.includes(c.name))
				.map((c) => c.name);
			return expectEqual(found.sort(), [...CREDENTIAL_TYPES].sort());
		},
	);
	await record('editor: every node and credential icon is served as SVG', async () => {
		const urls = new Set<string>();
		for (const type of [
			...ours,
			...credentialTypes.filter((c) =>
				String(c.iconUrl?.light ?? c.iconUrl ?? '').includes(PACKAGE),
			),
		]) {
			const icon = type.iconUrl;
			if (!icon) return `${type.name} has no iconUrl`;
			for (const url of typeof icon === 'string' ? [icon] : Object.values(icon))
				urls.add(String(url));
		}
		for (const url of urls) {
			const response = await fetch(`${base}/${url}`, { signal: AbortSignal.timeout(10_000) });
			const body = await response.text();
			if (
				response.status !== 200 ||
				!response.headers.get('content-type')?.includes('svg') ||
				!body.includes('<svg')
			) {
				return `${url}: HTTP ${response.status} ${response.headers.get('content-type')}`;
			}
		}
		return urls.size > 0 ? true : 'no icon URLs';
	});

	// Sign in as the owner n8n asks for on first start.
	const setup = await call('POST', '/rest/owner/setup', {
		email: 'e2e@example.com',
		firstName: 'End',
		lastName: 'ToEnd',
		password: 'E2e-password-1',
	});
	cookie = setup.cookies.map((c) => c.split(';')[0]).join('; ');
	await record('editor: the owner account is set up and signed in', async () =>
		setup.status === 200 && cookie ? true : `HTTP ${setup.status}: ${setup.text.slice(0, 200)}`,
	);
	const project = (await call('GET', '/rest/credentials')).json?.data?.find(
		(c: Loose) => c.id === 'mcpEverything',
	)?.homeProject?.id;
	await record('editor: the imported credentials belong to the owner', async () =>
		project ? true : 'mcpEverything is not among the credentials the owner sees',
	);

	for (const credential of credentials) {
		await record(`editor: the ${credential.type} credential test passes`, async () => {
			const { status, json, text } = await call('POST', '/rest/credentials/test', {
				credentials: credential,
			});
			if (status !== 200) return `HTTP ${status}: ${text.slice(0, 300)}`;
			return json?.data?.status === 'OK' ? true : `${json?.data?.status}: ${json?.data?.message}`;
		});
	}

	const mcp = { mcpStdioServerApi: { id: 'mcpEverything', name: 'MCP everything (npx)' } };
	const model = { openAiCompatibleApi: { id: 'openAi', name: 'OpenAI' } };
	const request = (
		node: string,
		path: string,
		parameters: Record<string, unknown>,
		methodName: string,
		creds: object,
		extra = {},
	) => ({
		path,
		nodeTypeAndVersion: { name: node, version: 1 },
		currentNodeParameters: parameters,
		methodName,
		credentials: creds,
		projectId: project,
		...extra,
	});
	const [mcpClient, toolCallingModel] = NODE_TYPES;
	await record('editor: "Tools" lists the live server\'s tools (loadOptions)', async () => {
		const { status, json, text } = await call(
			'POST',
			'/rest/dynamic-node-parameters/options',
			request(
				mcpClient,
				'parameters.includeTools',
				{ connectionType: 'stdio', operation: 'listTools', toolFilter: 'only' },
				'getToolNames',
				mcp,
			),
		);
		if (status !== 200) return `HTTP ${status}: ${text.slice(0, 300)}`;
		const names = (json?.data ?? []).map((option: Loose) => option.value);
		return ['echo', 'get-sum', 'get-tiny-image'].every((name) => names.includes(name))
			? true
			: `got ${show(names)}`;
	});
	await record(
		'editor: the "Tool" picker searches the live server\'s tools (listSearch)',
		async () => {
			const { status, json, text } = await call(
				'POST',
				'/rest/dynamic-node-parameters/resource-locator-results',
				request(
					mcpClient,
					'parameters.tool',
					{ connectionType: 'stdio', operation: 'callTool' },
					'searchTools',
					mcp,
					{ filter: 'sum' },
				),
			);
			if (status !== 200) return `HTTP ${status}: ${text.slice(0, 300)}`;
			return expectEqual(
				(json?.data?.results ?? []).map((r: Loose) => r.value),
				['get-sum'],
			);
		},
	);
	await record(
		'editor: "Arguments" builds a form from the tool\'s input schema (resourceMapper)',
		async () => {
			const { status, json, text } = await call(
				'POST',
				'/rest/dynamic-node-parameters/resource-mapper-fields',
				request(
					mcpClient,
					'parameters.formArguments',
					{
						connectionType: 'stdio',
						operation: 'callTool',
						argumentsSource: 'form',
						tool: { __rl: true, mode: 'list', value: 'get-sum' },
					},
					'getToolArgumentFields',
					mcp,
				),
			);
			if (status !== 200) return `HTTP ${status}: ${text.slice(0, 300)}`;
			return expectEqual(
				(json?.data?.fields ?? []).map((f: Loose) => [f.id, f.type, f.required]),
				[
					['a', 'number', true],
					['b', 'number', true],
				],
			);
		},
	);
	await record('editor: the "Model" picker lists the endpoint\'s models (listSearch)', async () => {
		const { status, json, text } = await call(
			'POST',
			'/rest/dynamic-node-parameters/resource-locator-results',
			request(
				toolCallingModel,
				'parameters.model',
				{ provider: 'openaiChat' },
				'searchModels',
				model,
			),
		);
		if (status !== 200) return `HTTP ${status}: ${text.slice(0, 300)}`;
		const ids = (json?.data?.results ?? []).map((r: Loose) => r.value);
		return ids.length > 0 ? true : `no models: ${text.slice(0, 200)}`;
	});
	for (const [name, verdict] of results) check(name, () => verdict);
}

const { positionals, values } = parseArgs({
	allowPositionals: true,
	options: {
		export: { type: 'string' },
		output: { type: 'string' },
		standin: { type: 'string' },
		response: { type: 'string' },
		status: { type: 'string' },
		'api-key': { type: 'string', default: '' },
		base: { type: 'string' },
		credentials: { type: 'string' },
		types: { type: 'string' },
		dialect: { type: 'string' },
		path: { type: 'string' },
	},
});
const commands: Record<
	string,
	(values: Record<string, string | undefined>) => void | Promise<void>
> = {
	nodes: checkNodes,
	loop: checkLoop,
	vendorLoop: checkVendorLoop,
	webhook: checkWebhook,
	editor: checkEditor,
};
const command = commands[positionals[0] ?? ''];
if (!command) {
	console.error(`usage: node check.ts ${Object.keys(commands).join('|')} [options]`);
	process.exit(2);
}
try {
	await command(values as Record<string, string | undefined>);
} catch (error) {
	failures++;
	console.log(
		`FAIL\t${positionals[0]}: reading what n8n produced\t${error instanceof Error ? error.message : String(error)}`,
	);
}
process.exit(failures > 0 ? 1 : 0);
