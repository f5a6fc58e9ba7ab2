/**
 * The editor in a real browser, in scripts/e2e.sh while `n8n start` runs: Chromium, driven by
 * playwright-core, signs in as the owner through the sign-in form, opens the imported tool-loop
 * example, runs it with the editor's Execute workflow button and checks what the editor shows of
 * this package: the nodes' icons and subtitles on the canvas, each node's output items in its
 * panel, the live tool list of the MCP Client and the model list of the Tool Calling Model. Then
 * it opens the executions of the scheduled example and looks for one that succeeded.
 *
 *   node e2e/browser.ts --base URL --workflow ID --standin FILE --api-key KEY --artifacts DIR
 *                       [--scheduled ID] [--chromium PATH] [--scale N]
 *
 * `--standin` is the state file of the model stand-in the loop's credential points at (its URL,
 * the scripted answer). One line per check on stdout, as e2e/check.ts: `PASS<TAB>name` or
 * `FAIL<TAB>name<TAB>why`; exits 1 when any check failed. Screenshots go to DIR: the views worth
 * keeping under fixed names, and `failure-*.png` for every failed check.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, selectors, type Browser, type Locator, type Page } from 'playwright-core';

const PACKAGE = 'n8n-nodes-tool-calling';
const OWNER = { email: 'e2e@example.com', password: 'E2e-password-1' };
const VIEWPORT = { width: 1440, height: 900 };

/** The loop example's nodes of this package: the icon file each shows, and its parameters for the subtitle. */
const OUR_NODES = [
	{
		name: 'List Tools',
		icon: 'McpClient/mcp.svg',
		subtitle: 'List Tools',
		output: ['get-sum', 'get-tiny-image'],
	},
	{
		name: 'Model',
		icon: 'ToolCallingModel/model.svg',
		subtitle: 'gpt-4.1-mini',
		output: [] as string[],
	},
	{
		name: 'Execute Tool Calls',
		icon: 'McpClient/mcp.svg',
		subtitle: 'Execute Tool Calls',
		output: ['Echo: 42'],
	},
];
/** The MCP Client node's name in the node panel, distinct from n8n's built-in "MCP Client". */
const OUR_MCP_CLIENT = 'Tool Calling MCP Client';
const LOOP_NODES = ['Run', 'List Tools', 'Model', 'Execute Tool Calls', 'Answer'];
/** How often each node of the loop runs: the scripted model asks for tools twice, then answers. */
const RUNS: Record<string, number> = { Model: 3, 'Execute Tool Calls': 2 };

const { values } = parseArgs({
	options: {
		base: { type: 'string' },
		workflow: { type: 'string' },
		scheduled: { type: 'string' },
		approval: { type: 'string' },
		'workflow-tools': { type: 'string' },
		standin: { type: 'string' },
		'api-key': { type: 'string', default: '' },
		artifacts: { type: 'string' },
		chromium: { type: 'string' },
		scale: { type: 'string', default: '1' },
	},
});
if (!values.base || !values.workflow || !values.standin || !values.artifacts) {
	console.error(
		'usage: node browser.ts --base URL --workflow ID --standin FILE --api-key KEY --artifacts DIR [--scheduled ID] [--approval ID] [--chromium PATH] [--scale N]',
	);
	process.exit(2);
}
const base = values.base;
const artifacts = values.artifacts;
const scale = Math.max(1, Number(values.scale) || 1);
const standin = JSON.parse(readFileSync(values.standin, 'utf8')) as {
	baseURL: string;
	answer: string;
};
mkdirSync(artifacts, { recursive: true });

let failures = 0;
let page: Page | undefined;
const shown = (file: string) => relative(process.cwd(), file) || file;

function report(name: string, verdict: true | string): void {
	if (verdict === true) {
		console.log(`PASS\t${name}`);
	} else {
		failures++;
		console.log(`FAIL\t${name}\t${verdict.replace(/\s+/g, ' ').slice(0, 600)}`);
	}
}

/** Set when the editor went back to its sign-in page: the checks after it are not run. */
let signedOut = false;

/** Runs one check; a failed one leaves a screenshot of the page as it was. */
async function check(name: string, test: () => Promise<true | string>): Promise<boolean> {
	if (signedOut) {
		report(name, 'not checked: the editor had signed out');
		return false;
	}
	let verdict: true | string;
	try {
		verdict = await test();
	} catch (error) {
		verdict = error instanceof Error ? error.message.split('\n')[0]! : String(error);
	}
	if (
		verdict !== true &&
		page &&
		!page.isClosed() &&
		new URL(page.url()).pathname === '/signin' &&
		!name.includes('signs in')
	) {
		signedOut = true;
		verdict += ' (the editor is back at its sign-in page)';
	}
	if (verdict !== true && page && !page.isClosed()) {
		const file = join(
			artifacts,
			`failure-${name
				.replace(/[^a-z0-9]+/gi, '-')
				.replace(/^-|-$/g, '')
				.toLowerCase()
				.slice(0, 80)}.png`,
		);
		try {
			await page.screenshot({ path: file });
			verdict += ` (screenshot: ${shown(file)})`;
		} catch {
			// The page may be gone with the browser: the verdict says what happened.
		}
	}
	report(name, verdict);
	return verdict === true;
}

/** A screenshot worth keeping, without the toasts that come and go. */
async function keep(file: string): Promise<void> {
	await page!.addStyleTag({ content: '.el-notification { display: none !important; }' });
	await page!.screenshot({ path: join(artifacts, file), animations: 'disabled' });
}

const canvasNode = (name: string) =>
	page!.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
const compact = (text: string) => text.replace(/[\s_-]+/g, '').toLowerCase();

/** Another tab of this user may hold the workflow's write lock: take it, as a user would. */
async function takeEditing(): Promise<void> {
	const editHere = page!.getByRole('button', { name: 'Edit here' });
	if (await editHere.isVisible()) await editHere.click();
}

/**
 * A REST call as the editor makes it, from the page: the session cookie only counts with the
 * browser id the editor sends beside it (a call without it gets a 401 that signs the page out).
 */
async function restGet(path: string): Promise<{ status: number; json: unknown }> {
	return page!.evaluate(async (url) => {
		const response = await fetch(url, {
			headers: { 'browser-id': localStorage.getItem('n8n-browserId') ?? '' },
			credentials: 'include',
		});
		const text = await response.text();
		let json: unknown;
		try {
			json = JSON.parse(text);
		} catch {
			json = text.slice(0, 200);
		}
		return { status: response.status, json };
	}, path);
}

/**
 * Does `act` until `ready` shows: on a busy machine the editor may drop a click it was not ready
 * for (the canvas still settling), and the check must not fail for that.
 */
async function until(ready: Locator, act: () => Promise<void>, tries = 3): Promise<void> {
	for (let attempt = 1; ; attempt++) {
		await act();
		try {
			await ready.first().waitFor({ state: 'visible', timeout: 10_000 * scale });
			return;
		} catch (error) {
			if (attempt >= tries) throw error;
		}
	}
}

async function openNode(name: string): Promise<Locator> {
	const ndv = page!.getByTestId('ndv');
	await until(ndv, () => canvasNode(name).dblclick());
	return ndv;
}

async function closeNode(): Promise<void> {
	const ndv = page!.getByTestId('ndv');
	if (!(await ndv.isVisible())) return;
	const close = ndv.getByTestId('ndv-close-button');
	if (await close.isVisible()) await close.click();
	else await page!.keyboard.press('Escape');
	await ndv.waitFor({ state: 'hidden' });
}

/** The output panel's item count for the run it shows (the last), and the data it shows as text. */
async function outputOf(
	ndv: Locator,
): Promise<{ items: number | undefined; label: string; text: string }> {
	const output = ndv.getByTestId('output-panel');
	const data = output.getByTestId('ndv-data-container');
	await data.waitFor({ state: 'visible' });
	// One run: "N items" above the data; several: the run selector says "3 of 3 (N items)".
	const labels: string[] = [];
	const runSelector = output.getByTestId('run-selector');
	if (await runSelector.isVisible()) {
		labels.push(await runSelector.innerText());
		for (const input of await runSelector.locator('input').all())
			labels.push(await input.inputValue());
	}
	const count = output.getByTestId('ndv-items-count');
	if (await count.isVisible()) labels.push(await count.innerText());
	const label = labels.join(' ').replace(/\s+/g, ' ').trim();
	const match = /(\d+)\s+items?\b/.exec(label);
	return { items: match ? Number(match[1]) : undefined, label, text: await data.innerText() };
}

async function main(): Promise<void> {
	selectors.setTestIdAttribute('data-test-id');
	let browser: Browser | undefined;
	const failedRequests: string[] = [];
	const pageErrors: string[] = [];

	const launched = await check('browser: Chromium starts headless', async () => {
		browser = await chromium.launch({
			executablePath: values.chromium || undefined,
			headless: true,
			args: [
				'--no-sandbox',
				'--disable-dev-shm-usage',
				`--window-size=${VIEWPORT.width},${VIEWPORT.height}`,
			],
			timeout: 60_000 * scale,
		});
		console.log(`    Chromium ${browser.version()}`);
		return true;
	});
	if (!launched || !browser) return;
	try {
		const context = await browser.newContext({
			viewport: VIEWPORT,
			colorScheme: 'light',
			locale: 'en-US',
			timezoneId: 'UTC',
		});
		context.setDefaultTimeout(30_000 * scale);
		page = await context.newPage();
		page.on('pageerror', (error) => pageErrors.push(error.message));
		page.on('response', (response) => {
			// The editor asks for a static output schema of every node (/schemas/…): community nodes have none.
			if (
				response.status() >= 400 &&
				response.url().includes(PACKAGE) &&
				!new URL(response.url()).pathname.startsWith('/schemas/')
			) {
				failedRequests.push(`${response.status()} ${response.url()}`);
			}
		});
		await run();
		await check(
			"browser: no request for the package's files failed, no script error in the editor",
			async () => {
				const ours = pageErrors.filter((message) => /tool.?calling|mcp/i.test(message));
				if (failedRequests.length) return `failed: ${failedRequests.join(', ')}`;
				return ours.length ? `script errors: ${ours.join('; ')}` : true;
			},
		);
	} finally {
		await browser.close().catch(() => undefined);
	}
}

async function run(): Promise<void> {
	const p = page!;
	const signedIn = await check('browser: the owner signs in through the sign-in form', async () => {
		await p.goto(`${base}/signin`, { timeout: 60_000 * scale });
		const form = p.getByTestId('signin-form');
		await form.waitFor({ state: 'visible', timeout: 60_000 * scale });
		await form.locator('input[name="emailOrLdapLoginId"]').fill(OWNER.email);
		await form.locator('input[name="password"]').fill(OWNER.password);
		await form.getByRole('button', { name: 'Sign in' }).click();
		await p.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 * scale });
		return true;
	});
	if (!signedIn) return;

	const opened = await check(
		`browser: the loop example opens on the canvas with its ${LOOP_NODES.length} nodes`,
		async () => {
			await p.goto(`${base}/workflow/${values.workflow}`);
			await canvasNode('Answer').waitFor({ state: 'visible', timeout: 60_000 * scale });
			await takeEditing();
			const names = await p
				.getByTestId('canvas-node')
				.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-node-name')));
			const missing = LOOP_NODES.filter((name) => !names.includes(name));
			return missing.length
				? `missing ${missing.join(', ')}; on the canvas: ${names.join(', ')}`
				: true;
		},
	);
	if (!opened) return;

	for (const node of OUR_NODES) {
		await check(`canvas: "${node.name}" shows the package's icon (${node.icon})`, async () => {
			const image = canvasNode(node.name).locator('img').first();
			await image.waitFor({ state: 'visible' });
			const src = (await image.getAttribute('src')) ?? '';
			if (!src.includes(`/icons/${PACKAGE}/`) || !src.endsWith(node.icon))
				return `the node's image is ${src || 'missing'}`;
			// Loaded and drawn, not a broken image.
			await p.waitForFunction((img) => img.complete, await image.elementHandle(), {
				timeout: 10_000 * scale,
			});
			const width = await image.evaluate((img: HTMLImageElement) => img.naturalWidth);
			return width > 0 ? true : `${src} did not load`;
		});
		await check(`canvas: "${node.name}" shows its subtitle (${node.subtitle})`, async () => {
			const subtitle = canvasNode(node.name).locator('[class*="subtitle"]');
			if ((await subtitle.count()) === 0) return 'no subtitle under the node';
			const text = (await subtitle.first().innerText()).trim();
			return compact(text) === compact(node.subtitle)
				? true
				: `the subtitle reads ${JSON.stringify(text)}`;
		});
	}

	// ------------------------------------------------------------------ the run, from the editor
	const ran = await check(
		'editor: "Execute workflow" runs the loop to its end, every node succeeds',
		async () => {
			const stale = await p.locator('[data-test-id="canvas-node-status-success"]').count();
			if (stale > 0) return `${stale} nodes show a run before the click`;
			const started = Date.now();
			await p.getByTestId('execute-workflow-button').click();
			const limit = 120_000 * scale;
			const stop = p.getByTestId('stop-execution-button');
			let sawRunning = false;
			let succeeded: string[] = [];
			for (;;) {
				succeeded = await p
					.locator('[data-test-id="canvas-node"]:has([data-test-id="canvas-node-status-success"])')
					.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-node-name') ?? ''));
				const running = await stop.isVisible();
				sawRunning ||= running;
				if (LOOP_NODES.every((name) => succeeded.includes(name)) && !running) break;
				const elapsed = Date.now() - started;
				if (
					(sawRunning && !running && elapsed > 3_000) ||
					(!sawRunning && elapsed > 20_000 * scale) ||
					elapsed > limit
				) {
					const toast = (await p.locator('.el-notification').allInnerTexts()).join(' | ');
					return `after ${(elapsed / 1000).toFixed(1)} s succeeded: ${succeeded.join(', ') || 'none'}${toast ? `; the editor said: ${toast}` : ''}`;
				}
				await p.waitForTimeout(250);
			}
			console.log(
				`    the run took ${((Date.now() - started) / 1000).toFixed(1)} s from the click`,
			);
			return true;
		},
	);
	if (ran) {
		await check(
			'canvas: each node shows how often it ran (Model 3, Execute Tool Calls 2)',
			async () => {
				const wrong: string[] = [];
				for (const [name, runs] of Object.entries(RUNS)) {
					const status = (
						await canvasNode(name).getByTestId('canvas-node-status-success').innerText()
					).trim();
					if (status !== String(runs)) wrong.push(`${name} shows ${JSON.stringify(status)}`);
				}
				return wrong.length ? wrong.join('; ') : true;
			},
		);
		await check('editor: the run is saved as a successful manual execution', async () => {
			const { status, json } = await restGet(
				`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: values.workflow }))}`,
			);
			const results =
				(json as { data?: { results?: Array<{ mode: string; status: string }> } })?.data?.results ??
				[];
			const manual = results.find((execution) => execution.mode === 'manual');
			return manual?.status === 'success'
				? true
				: `HTTP ${status}; the newest manual execution: ${JSON.stringify(manual ?? 'none')}`;
		});
		await keep('editor-loop.png');

		// -------------------------------------------------------------- each node's output, in its panel
		for (const node of OUR_NODES) {
			const expected = node.name === 'Model' ? [standin.answer] : node.output;
			await check(
				`panel: "${node.name}" shows its output: 1 item${RUNS[node.name] ? ` (run ${RUNS[node.name]} of ${RUNS[node.name]})` : ''} with ${expected.map((text) => JSON.stringify(text)).join(', ')}`,
				async () => {
					const ndv = await openNode(node.name);
					try {
						const { items, label, text } = await outputOf(ndv);
						if (items !== 1) return `the output panel says ${JSON.stringify(label)}`;
						if (RUNS[node.name] && !label.includes(`${RUNS[node.name]} of ${RUNS[node.name]}`))
							return `the run selector says ${JSON.stringify(label)}`;
						const missing = expected.filter((wanted) => !text.includes(wanted));
						if (missing.length)
							return `the output does not show ${missing.join(', ')}: ${text.slice(0, 300)}`;
						if (node.name === 'Model') await keep('editor-model-output.png');
						return true;
					} finally {
						await closeNode();
					}
				},
			);
		}
	}

	// ------------------------------------------------------------------ lists loaded live in the panels
	await check('panel: "List Tools" loads the MCP server\'s tools into its Tools list', async () => {
		const ndv = await openNode('List Tools');
		try {
			const tools = ndv.getByTestId('parameter-input-includeTools');
			await tools.waitFor({ state: 'visible' });
			// The list opens at once; its options come when n8n has asked the MCP server (a process it may first start).
			await until(p.locator('.el-select-dropdown:visible'), () => tools.click());
			const options = p.locator('.el-select-dropdown__item:visible');
			await options.first().waitFor({ state: 'visible', timeout: 60_000 * scale });
			const titles = (await options.allInnerTexts()).map((text) => text.split('\n')[0]!.trim());
			await keep('editor-tool-list.png');
			const wanted = ['Echo Tool', 'Get Sum Tool', 'Get Tiny Image Tool'];
			const missing = wanted.filter((title) => !titles.includes(title));
			console.log(`    ${titles.length} tools listed`);
			return missing.length ? `missing ${missing.join(', ')}; listed: ${titles.join(', ')}` : true;
		} catch (error) {
			// The panel as it was when the list failed (the check's own screenshot comes after it closes).
			await keep('failure-tool-list-panel.png');
			throw error;
		} finally {
			await p.keyboard.press('Escape');
			await closeNode();
		}
	});

	await check(
		'panel: "Model" shows the Provider field, set to OpenAI-Compatible, with all five providers',
		async () => {
			const ndv = await openNode('Model');
			try {
				const provider = ndv.getByTestId('parameter-input-provider');
				if (!(await provider.isVisible())) return 'no Provider field in the panel';
				const shown = (await provider.locator('input').inputValue()).trim();
				if (shown !== 'OpenAI-Compatible (Chat Completions)')
					return `Provider shows ${JSON.stringify(shown)}`;
				await provider.click();
				const options = (await p.getByRole('option').allInnerTexts()).map((text) =>
					text.split('\n')[0].trim(),
				);
				const expected = [
					'OpenAI-Compatible (Chat Completions)',
					'OpenAI Responses',
					'Anthropic',
					'Google Gemini',
					'Ollama',
				];
				return expected.every((name) => options.includes(name))
					? true
					: `the options are ${JSON.stringify(options)}`;
			} finally {
				await p.keyboard.press('Escape');
				await closeNode();
			}
		},
	);

	await check('panel: "Model" lists the endpoint\'s models under Model → From List', async () => {
		const response = await fetch(`${standin.baseURL}/models`, {
			headers: { authorization: `Bearer ${values['api-key']}` },
		});
		const served =
			((await response.json()) as { data?: Array<{ id: string }> }).data?.map(
				(model) => model.id,
			) ?? [];
		if (served.length === 0) return `the stand-in lists no models (HTTP ${response.status})`;
		const ndv = await openNode('Model');
		try {
			const locator = ndv.getByTestId('resource-locator-model');
			await locator.getByTestId('rlc-mode-selector').click();
			await p.getByRole('option', { name: 'From List' }).click();
			const items = p.getByTestId('rlc-item');
			if (!(await items.first().isVisible())) await locator.getByTestId('rlc-input').click();
			await items.first().waitFor({ state: 'visible' });
			const listed = (await items.allInnerTexts()).map((text) => text.trim());
			await keep('editor-model-list.png');
			return JSON.stringify([...listed].sort()) === JSON.stringify([...served].sort())
				? true
				: `listed ${JSON.stringify(listed)}, the endpoint serves ${JSON.stringify(served)}`;
		} finally {
			await p.keyboard.press('Escape');
			await closeNode();
		}
	});

	// ------------------------------------------------------------------ the node panel
	await check(
		`node panel: searching "MCP" lists this package's node as "${OUR_MCP_CLIENT}" beside n8n's own "MCP Client"`,
		async () => {
			await p.getByTestId('node-creator-plus-button').click();
			const search = p
				.locator(
					'[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]',
				)
				.first();
			await search.fill('MCP');
			const names = p.getByTestId('node-creator-item-name');
			try {
				await names.filter({ hasText: OUR_MCP_CLIENT }).first().waitFor({ state: 'visible' });
				const listed = (await names.allInnerTexts()).map((name) => name.trim());
				await keep('node-panel-mcp.png');
				const count = (name: string) => listed.filter((shown) => shown === name).length;
				return count(OUR_MCP_CLIENT) === 1 && count('MCP Client') === 1
					? true
					: `the panel lists ${JSON.stringify(listed)}`;
			} finally {
				await p.keyboard.press('Escape');
			}
		},
	);

	// ------------------------------------------------------------------ the approval example's canvas
	if (values.approval) {
		await check(
			'canvas: the approval example shows Execute Tool Calls with its Needs Approval output',
			async () => {
				await p.goto(`${base}/workflow/${values.approval}`);
				await canvasNode('Wait for a Person').waitFor({
					state: 'visible',
					timeout: 60_000 * scale,
				});
				await takeEditing();
				// n8n writes output names beside their handles, as "Tool Calls" and "Final Answer" of the Model.
				await p.getByText('Needs Approval', { exact: true }).first().waitFor({ state: 'visible' });
				await p.waitForTimeout(500);
				await keep('approval-agent.png');
				return true;
			},
		);
	}

	// ------------------------------------------------------------------ the workflow tools example's canvas
	if (values['workflow-tools']) {
		await check(
			'canvas: the workflow tools example shows both List Tools and both Execute nodes',
			async () => {
				await p.goto(`${base}/workflow/${values['workflow-tools']}`);
				for (const name of [
					'List Workflow Tools',
					'Execute Workflow Tool Calls',
					'Execute MCP Tool Calls',
				])
					await canvasNode(name).waitFor({ state: 'visible', timeout: 60_000 * scale });
				await takeEditing();
				await p.waitForTimeout(500);
				await keep('workflow-tools-agent.png');
				return true;
			},
		);
		await check(
			"panel: List Workflow Tools shows an entry's workflow and the inputs its trigger defines",
			async () => {
				const ndv = await openNode('List Workflow Tools');
				try {
					for (const text of ['Trigger Inputs', 'weightKg', 'destination'])
						await ndv
							.getByText(text)
							.first()
							.waitFor({ state: 'visible', timeout: 30_000 * scale });
					await ndv.getByText('destination').first().scrollIntoViewIfNeeded();
					await keep('workflow-tools-panel.png');
					return true;
				} finally {
					await closeNode();
				}
			},
		);
	}

	// ------------------------------------------------------------------ the scheduled example's executions
	if (values.scheduled) {
		// A fresh tab: the loop's tab holds an unsaved change (the model list's mode).
		page = await p.context().newPage();
		await p.close();
		await check('executions: the scheduled example lists a run that succeeded', async () => {
			await page!.goto(`${base}/workflow/${values.scheduled}/executions`);
			const entries = page!.locator('[data-test-id^="execution-details-"]');
			await entries.first().waitFor({ state: 'visible', timeout: 60_000 * scale });
			const texts = await entries.allInnerTexts();
			const succeeded = texts.filter((text) => /succeeded/i.test(text));
			if (succeeded.length === 0)
				return `listed: ${texts.map((text) => text.replace(/\s+/g, ' ')).join(' | ')}`;
			// The preview of the first run that succeeded (the list is newest first): the one whose model
			// called the MCP server's tools before it answered.
			const first = entries.filter({ hasText: /succeeded/i }).last();
			const id = ((await first.getAttribute('data-test-id')) ?? '').replace(
				'execution-details-',
				'',
			);
			await first.click();
			await page!.getByTestId(`execution-preview-details-${id}`).waitFor({ state: 'visible' });
			await page!
				.locator('[data-test-id="execution-preview-host"] [data-test-id="canvas-node"]')
				.first()
				.waitFor({ state: 'visible' });
			await page!.waitForTimeout(1_000);
			await keep('scheduled-executions.png');
			console.log(`    ${texts.length} runs listed, ${succeeded.length} succeeded`);
			return true;
		});
	}
}

try {
	await main();
} catch (error) {
	report(
		'browser: the browser checks ran',
		`threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
	);
}
process.exit(failures > 0 ? 1 : 0);
