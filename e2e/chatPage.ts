/**
 * n8n's hosted chat page in a real browser, in scripts/e2e.sh while `n8n start` runs the chat
 * example: Chromium, driven by playwright-core, opens the Chat Trigger's public URL, sends messages
 * as a person types them, and watches each answer appear piece by piece as n8n streams it; then a
 * screenshot of the conversation.
 *
 *   node e2e/chatPage.ts --url URL (--message TEXT --answer TEXT)... --chromium PATH --screenshot FILE
 *                        [--scale N]
 *
 * The page loads n8n's chat widget (@n8n/chat) and normalize.css from cdn.jsdelivr.net, which the
 * machines the test runs on cannot reach: they are served from their npm tarballs (the same files
 * the CDN serves from npm, versions pinned here), fetched once with `npm pack` into
 * e2e/.chat-widget. One line per
 * check on stdout, as e2e/check.ts: `PASS<TAB>name` or `FAIL<TAB>name<TAB>why`; exits 1 when any
 * check failed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { PROJECT_ROOT } from './n8n.ts';

/**
 * What the page loads from jsDelivr, whose /npm/ URLs serve the files of npm packages: the
 * versions pinned here (the page names none for the widget, so jsDelivr serves the newest).
 */
const FROM_CDN: Record<string, string> = { '@n8n/chat': '1.37.0', 'normalize.css': '8.0.1' };
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
		message: { type: 'string', multiple: true },
		answer: { type: 'string', multiple: true },
		chromium: { type: 'string' },
		screenshot: { type: 'string' },
		scale: { type: 'string', default: '1' },
	},
});
const messages = values.message ?? [];
const answers = values.answer ?? [];
if (
	!values.url ||
	messages.length === 0 ||
	messages.length !== answers.length ||
	!values.screenshot
) {
	console.error(
		'usage: node chatPage.ts --url URL (--message TEXT --answer TEXT)... --chromium PATH --screenshot FILE [--scale N]',
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

/** A package's files as npm has them (its tarball's folder), fetched once with `npm pack`. */
function packageFiles(name: string, version: string): string {
	const folder = join(PROJECT_ROOT, 'e2e/.chat-widget', `${name.replace('/', '+')}@${version}`);
	if (existsSync(join(folder, 'package/package.json'))) return join(folder, 'package');
	mkdirSync(folder, { recursive: true });
	const pack = spawnSync(
		'npm',
		['pack', `${name}@${version}`, '--json', '--pack-destination', folder],
		{ encoding: 'utf8', timeout: 300_000 },
	);
	if (pack.status !== 0) throw new Error(`npm pack ${name}@${version}: ${pack.stderr.slice(-300)}`);
	const [{ filename }] = JSON.parse(pack.stdout) as Array<{ filename: string }>;
	const untar = spawnSync('tar', ['-xzf', join(folder, filename), '-C', folder]);
	if (untar.status !== 0) throw new Error(`tar: ${String(untar.stderr).slice(-300)}`);
	return join(folder, 'package');
}

/**
 * The CDN's URLs answered from here, with the same files jsDelivr serves from npm: the chat
 * widget (@n8n/chat's dist/) and normalize.css, which the page links too. What it served.
 */
async function serveCdn(page: Page): Promise<string[]> {
	const folders = Object.entries(FROM_CDN).map(([name, version]) => packageFiles(name, version));
	const served: string[] = [];
	await page.route(`${CDN}**`, async (route) => {
		const path = new URL(route.request().url()).pathname.slice('/npm/'.length);
		const [, name = '', version, file = ''] =
			/^(@[^/@]+\/[^/@]+|[^/@]+)(?:@([^/]+))?\/(.+)$/.exec(path) ?? [];
		const at = Object.keys(FROM_CDN).indexOf(name);
		const pinned = at >= 0 && (version ?? FROM_CDN[name]) === FROM_CDN[name];
		// jsDelivr minifies a file asked for as .min.css or .min.js that the package does not have.
		const local = [file, file.replace(/\.min(\.css|\.js)$/, '$1')]
			.map((each) => join(folders[at] ?? '', each))
			.find((each) => pinned && existsSync(each));
		if (!local) return route.fulfill({ status: 404, body: `not served offline: ${path}` });
		served.push(path);
		return route.fulfill({ body: readFileSync(local), contentType: TYPES[extname(local)] });
	});
	return served;
}

/**
 * Every text the page showed of the bot's answer as it grew, polled as it streams (the widget keeps
 * an empty message below it, its typing indicator, until the execution ends), up to the whole.
 */
async function answerAsShown(page: Page, answer: string): Promise<string[]> {
	const shown: string[] = [];
	const started = Date.now();
	while (Date.now() - started < 60_000 * scale) {
		const texts = (await page.locator('.chat-message-from-bot').allInnerTexts())
			.map((text) => text.trim())
			.filter((text) => text !== '');
		const text = texts.find((each) => answer.startsWith(each)) ?? texts.at(-1) ?? '';
		if (text !== shown.at(-1)) shown.push(text);
		if (text === answer) break;
		await page.waitForTimeout(25);
	}
	await page.locator('.chat-message-typing').waitFor({ state: 'detached' });
	return shown;
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
		const served = await serveCdn(page);
		let input;
		try {
			await page.goto(values.url!, { timeout: 60_000 * scale });
			input = page.locator('textarea').first();
			await input.waitFor({ state: 'visible' });
			report(
				`chat page: n8n's hosted chat page opens with its chat widget (@n8n/chat@${FROM_CDN['@n8n/chat']}, ${served.length} files served offline as the CDN serves them from npm)`,
				true,
			);
		} catch (error) {
			await page.screenshot({ path: values.screenshot! }).catch(() => undefined);
			return report(
				"chat page: n8n's hosted chat page opens with the chat widget",
				`${(error as Error).message.split('\n')[0]}; served ${served.join(', ')}; page errors: ${errors.join('; ')}`,
			);
		}
		for (const [n, message] of messages.entries()) {
			await input.fill(message);
			await input.press('Enter');
			const answer = answers[n];
			const shown = await answerAsShown(page, answer);
			const partial = shown.filter((text) => text !== answer && answer.startsWith(text));
			report(
				`chat page: message ${n + 1} sent from the page (${JSON.stringify(message)}) is answered with ${JSON.stringify(answer)}, the answer appearing piece by piece as it streams (${partial.length} partial texts seen first)`,
				shown.at(-1) === answer && partial.length > 0
					? true
					: `the page showed ${JSON.stringify(shown).slice(0, 400)}; page errors: ${errors.join('; ')}`,
			);
		}
		await page.screenshot({ path: values.screenshot!, animations: 'disabled' });
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
