// Lets node run this repository's TypeScript as it is (the conformance client drives lib/ from
// source, like the tests do): each .ts file is transpiled to CommonJS when required. Transpiled
// files are kept in a cache keyed by path, size and time of change, so the suite's many client
// processes (up to 14 at once) do not each load the compiler.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const cacheDir = path.join(os.tmpdir(), 'n8n-nodes-tool-calling-ts-cache');

function transpile(filename) {
	const ts = require('typescript');
	return ts.transpileModule(readFileSync(filename, 'utf8'), {
		fileName: filename,
		compilerOptions: {
			module: ts.ModuleKind.CommonJS,
			target: ts.ScriptTarget.ES2023,
			esModuleInterop: true,
		},
	}).outputText;
}

require.extensions['.ts'] = (module, filename) => {
	const { size, mtimeMs } = statSync(filename);
	const key = createHash('sha256').update(`${filename}\0${size}\0${mtimeMs}`).digest('hex');
	const cached = path.join(cacheDir, `${key}.js`);
	let output;
	try {
		output = readFileSync(cached, 'utf8');
	} catch {
		output = transpile(filename);
		mkdirSync(cacheDir, { recursive: true });
		// Written whole, then renamed: a process reading it at the same time sees all or nothing.
		const partial = `${cached}.${process.pid}`;
		writeFileSync(partial, output);
		renameSync(partial, cached);
	}
	module._compile(output, filename);
};
