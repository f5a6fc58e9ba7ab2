// Lets node run this repository's TypeScript as it is (the conformance client drives lib/ from
// source, like the tests do): each .ts file is transpiled to CommonJS when required.
const { readFileSync } = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
	const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), {
		fileName: filename,
		compilerOptions: {
			module: ts.ModuleKind.CommonJS,
			target: ts.ScriptTarget.ES2023,
			esModuleInterop: true,
		},
	});
	module._compile(outputText, filename);
};
