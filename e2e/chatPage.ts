/**
 * n8n's hosted chat page in a real browser, in scripts/e2e.sh while `n8n start` runs the chat
 * example: Chromium, driven by playwright-core, opens the Chat Trigger's public URL, sends a message
 * as a person types it, and watches the answer appear piece by piece as n8n streams it.
 *
 *   node e2e/chatPage.ts --url URL --message TEXT --answer TEXT --chromium PATH --screenshot FILE [--scale N]
 *
 * The page loads n8n's chat widget (@n8n/chat) from cdn.jsdelivr.net, which the machines the test
 * runs on cannot reach: the widget's files are served from its npm tarball (the same files the CDN
 * serves from npm, pinned here), fetched once with `npm pack` into e2e/.chat-widget. One line per
 * check on stdout, as e2e/check.ts: `PASS<TAB>name` or `FAIL<TAB>name<TAB>why`; exits 1 when any
 * check failed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { PROJECT_ROOT } from './n8n.ts';

/** The widget version the page gets, as jsDelivr serves the newest (`@n8n/chat/dist/…`). */
const WIDGET = '@n8n/chat@1.37.0';
const CDN = 'https://cdn.jsdelivr.net/npm/';
const TYPES: Record<string, string> = {
	'.js': 'text/javascript',
	'.mjs': 'text/javascript',
	'.css': 'text/css',
	'.ico': 'image/x-icon',
};

const { values } = parseArgs({
	options: {
		url: { type: 'string' },
		message: { type: 'string' },
		answer: { type: 'string' },
		chromium: { type: 'string' },
		screenshot: { type: 'string' },
		scale: { type: 'string', default: '1' },
	},
});
if (!values.url || !values.message || !values.answer || !values.screenshot) {
	console.error(
		'usage: node chatPage.ts --url URL --message TEXT --answer TEXT --chromium PATH --screenshot FILE [--scale N]',
	);
	process.exit(2);
}
const scale = Math.max(1, Number(values.scale) || 1);
let failures = 0;

function report(name: string, verdict: true | string): void {
	if (verdict === true) return console.log(`PASS\t${name}`);
	failures++;
	console.log(`FAIL\t${name}\t${verdict.replace(/\s+/g, ' ').slice(0, 600)}`);
}

/** The widget's dist folder, from its npm tarball (fetched once). */
function widgetFiles(): string {
	const folder = join(PROJECT_ROOT, 'e2e/.chat-widget', WIDGET.replace('/', '+'));
	const dist = join(folder, 'package/dist');
	if (existsSync(join(dist, 'chat.bundle.es.js'))) return dist;
	mkdirSync(folder, { recursive: true });
	const pack = spawnSync('npm', ['pack', WIDGET, '--json', '--pack-destination', folder], {
		encoding: 'utf8',
		timeout: 300_000,
	});
	if (pack.status !== 0) throw new Error(`npm pack ${WIDGET}: ${pack.stderr.slice(-300)}`);
	const [{ filename }] = JSON.parse(pack.stdout) as Array<{ filename: string }>;
	const untar = spawnSync('tar', ['-xzf', join(folder, filename), '-C', folder]);
	if (untar.status !== 0) throw new Error(`tar: ${String(untar.stderr).slice(-300)}`);
	return dist;
}

/**
 * The CDN's URLs answered from here: the widget's dist files from its tarball; normalize.css, a
 * reset of browser defaults the page also links, answered empty (it changes nothing the test sees).
 */
async function serveCdn(page: Page, dist: string): Promise<string[]> {
	const served: string[] = [];
	await page.route(`${CDN}**`, async (route) => {
		const path = new URL(route.request().url()).pathname.slice('/npm/'.length);
		const file = path.startsWith('@n8n/chat/dist/')
			? join(dist, path.slice('@n8n/chat/dist/'.length))
			: undefined;
		if (file && existsSync(file)) {
			served.push(path);
			return route.fulfill({ body: readFileSync(file), contentType: TYPES[extname(file)] });
		}
		if (path.startsWith('normalize.css@'))
			return route.fulfill({ body: '', contentType: 'text/css' });
		return route.fulfill({ status: 404, body: `not served offline: ${path}` });
	});
	return served;
}

async function main(): Promise<void> {
	const browser = await chromium.launch({
		executablePath: values.chromium || undefined,
		headless: true,
		args: ['--no-sandbox', '--disable-dev-shm-usage'],
		timeout: 60_000 * scale,
	});
	try {
		const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
		page.setDefaultTimeout(30_000 * scale);
		const errors: string[] = [];
		page.on('pageerror', (error) => errors.push(error.message));
		const served = await serveCdn(page, widgetFiles());
		let input;
		try {
			await page.goto(values.url!, { timeout: 60_000 * scale });
			input = page.locator('textarea').first();
			await input.waitFor({ state: 'visible' });
			report(
				`chat page: n8n's hosted chat page opens with ${WIDGET}'s widget (${served.length} files served offline)`,
				true,
			);
		} catch (error) {
			await page.screenshot({ path: values.screenshot! }).catch(() => undefined);
			return report(
				"chat page: n8n's hosted chat page opens with the chat widget",
				`${(error as Error).message.split('\n')[0]}; served ${served.join(', ')}; page errors: ${errors.join('; ')}`,
			);
		}
		await input.fill(values.message!);
		await input.press('Enter');
		// The bot's answer as it grows: every text the last bot message showed, polled as it streams.
		const answer = values.answer!;
		const shown: string[] = [];
		const started = Date.now();
		const bot = page.locator('.chat-message-from-bot').last();
		while (Date.now() - started < 60_000 * scale) {
			const text = (await bot.count()) > 0 ? (await bot.innerText()).trim() : '';
			if (text !== shown.at(-1)) shown.push(text);
			if (text === answer) break;
			await page.waitForTimeout(25);
		}
		const partial = shown.filter(
			(text) => text !== '' && text !== answer && answer.startsWith(text),
		);
		await page.screenshot({ path: values.screenshot!, animations: 'disabled' });
		report(
			`chat page: the message sent from the page is answered with ${JSON.stringify(answer)}, the answer appearing piece by piece as it streams (${partial.length} partial texts seen first)`,
			shown.at(-1) === answer && partial.length > 0
				? true
				: `the bot's message showed ${JSON.stringify(shown).slice(0, 400)}; page errors: ${errors.join('; ')}`,
		);
	} finally {
		await browser.close();
	}
}

try {
	await main();
} catch (error) {
	report(
		'chat page: the browser check ran',
		`threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
	);
}
process.exit(failures > 0 ? 1 : 0);
