// Copies what tsc does not emit (node icons and codex files) next to the compiled nodes.
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{svg,png,node.json}', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:assets'] = copyAssets;
