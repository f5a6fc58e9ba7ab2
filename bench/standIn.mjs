// The local stand-in for OpenAI's Chat Completions API that the tests use (no model API is reachable
// here): test/support/chatCompletionsStandIn.ts, compiled once per run into a temporary folder, as
// it is TypeScript and the benchmark is not. It speaks the exact wire format and checks every
// request as the vendor would; the benchmark's model rows measure against it, never a real API.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root } from './engine.mjs';

const require = createRequire(import.meta.url);

/** Starts the stand-in; `close()` stops it and removes the compiled copy. */
export async function startModelStandIn() {
	const outDir = mkdtempSync(path.join(tmpdir(), 'bench-standin-'));
	execFileSync(
		process.execPath,
		[
			require.resolve('typescript/bin/tsc'),
			...['--outDir', outDir, '--rootDir', root, '--module', 'commonjs'],
			...['--moduleResolution', 'node', '--target', 'ES2023', '--types', 'node'],
			...['--esModuleInterop', '--skipLibCheck'],
			path.join(root, 'test/support/chatCompletionsStandIn.ts'),
		],
		{ stdio: 'inherit' },
	);
	const { reply, startChatCompletionsStandIn } = require(
		path.join(outDir, 'test/support/chatCompletionsStandIn.js'),
	);
	const api = await startChatCompletionsStandIn();
	const close = api.close.bind(api);
	api.close = async () => {
		await close();
		rmSync(outDir, { recursive: true, force: true });
	};
	return { api, reply };
}
