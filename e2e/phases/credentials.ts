/** The credentials the examples name, and what n8n's logs say about loading the package. */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunContext } from '../context.ts';
import { PACKAGE } from '../n8n.ts';

/** The entry files of the MCP servers the examples run (started with this node, not npx). */
export interface McpServers {
	everything: string;
	filesystem: string;
}

/** The PATH an MCP server process gets: this node first. */
const serverPath = () => `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;

/** The stdio credential of the MCP server at `entry` with its arguments, marked as this run's. */
export function stdioCredential(
	ctx: RunContext,
	id: string,
	name: string,
	entry: string,
	args: string[],
) {
	return {
		id,
		name,
		type: 'mcpStdioServerApi',
		data: {
			command: process.execPath,
			arguments: { argument: [entry, ...args].map((value) => ({ value })) },
			environment: {
				variable: [
					{ name: 'PATH', value: serverPath() },
					{ name: 'E2E_RUN_ID', value: ctx.runId },
				],
			},
			cwd: '',
		},
	};
}

/** server-everything over stdio, as the examples' credential `mcpEverything`. */
export const everythingCredential = (ctx: RunContext, servers: McpServers) =>
	stdioCredential(ctx, 'mcpEverything', 'MCP everything (npx)', servers.everything, ['stdio']);

/** An OpenAI-compatible credential for a stand-in. */
export function openAiCredential(ctx: RunContext, id: string, name: string, baseUrl: string) {
	return {
		id,
		name,
		type: 'openAiCompatibleApi',
		data: { baseUrl, apiKey: ctx.apiKey, organization: '', headers: {} },
	};
}

const ANSI = /\x1b\[[0-9;]*m/g;
const LOADING_ERRORS =
	/Unrecognized node type|Unrecognized credential type|Failed to load package|Skipping package|Problem loading|Error loading|unknown node type/;

/**
 * Looks through the n8n logs written since the last look for signs that the package did not load
 * or run cleanly; shows what n8n said about the package or community packages.
 */
export function checkLogs(ctx: RunContext, label: string): void {
	const lines = ctx.n8nLogs.slice(ctx.logsLookedAt).flatMap((file) => {
		try {
			return readFileSync(file, 'utf8').replace(ANSI, '').split('\n');
		} catch {
			return [];
		}
	});
	ctx.logsLookedAt = ctx.n8nLogs.length;
	const bad = [...new Set(lines.filter((line) => LOADING_ERRORS.test(line)))].slice(0, 20);
	ctx.results.check(
		`${label}: n8n logged no 'Unrecognized node type' or package loading errors`,
		bad.length === 0,
		bad.join('\n'),
	);
	const aboutPackage = new RegExp(`${PACKAGE.name}|community (node|package)|unverified`, 'i');
	const said = [
		...new Set(
			lines.filter(
				(line) => !/^\s*"/.test(line) && !/(^|\s)debug\s/.test(line) && aboutPackage.test(line),
			),
		),
	].slice(0, 20);
	if (said.length > 0) {
		console.log('    what n8n said about the package or community packages:');
		for (const line of said) console.log(`      ${line}`);
	}
}
