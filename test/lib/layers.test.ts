import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const lib = path.resolve(__dirname, '../../lib');

/** The layers lib/index.ts writes down, lowest first: each a list of lib's folders. */
function declaredLayers(indexSource: string): string[][] {
	const lines = indexSource.split('\n');
	const start = lines.findIndex((line) => line.startsWith('// Its folders in layers'));
	return lines
		.slice(start + 1)
		.filter((line) => /^\/\/ {3}\w/.test(line))
		.map((line) => line.slice(2).trim().split(/,\s*/));
}

/** Every .ts file below lib/, relative to it, with the lib files it imports (types included). */
function importGraph(): Map<string, string[]> {
	const files = readdirSync(lib, { recursive: true, encoding: 'utf8' })
		.filter((file) => file.endsWith('.ts'))
		.map((file) => file.split(path.sep).join('/'));
	const known = new Set(files);
	const graph = new Map<string, string[]>();
	for (const file of files) {
		const { importedFiles } = ts.preProcessFile(readFileSync(path.join(lib, file), 'utf8'));
		const targets = importedFiles
			.map((imported) => imported.fileName)
			.filter((name) => name.startsWith('.'))
			.map((name) => path.posix.normalize(path.posix.join(path.posix.dirname(file), name)))
			.map((target) =>
				[`${target}.ts`, `${target}/index.ts`, target].find((candidate) => known.has(candidate)),
			)
			.filter((target): target is string => target !== undefined);
		graph.set(file, targets);
	}
	return graph;
}

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0] : file);

/** Imports that cross to a folder on the same or a higher layer; lib/index.ts sits above all. */
function crossings(graph: Map<string, string[]>, layers: string[][]): string[] {
	const layerOf = (file: string) =>
		file === 'index.ts'
			? layers.length
			: layers.findIndex((layer) => layer.includes(folderOf(file)));
	return [...graph].flatMap(([file, targets]) =>
		targets
			.filter((target) => folderOf(target) !== folderOf(file))
			.filter((target) => layerOf(target) >= layerOf(file))
			.map((target) => `${file} -> ${target}`),
	);
}

/** One import cycle per strongly tied group of files, as the path around it; none in a clean graph. */
function cycles(graph: Map<string, string[]>): string[] {
	const found: string[] = [];
	const done = new Set<string>();
	const visit = (file: string, trail: string[]) => {
		const seen = trail.indexOf(file);
		if (seen !== -1) {
			found.push([...trail.slice(seen), file].join(' -> '));
			return;
		}
		if (done.has(file)) return;
		for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
		done.add(file);
	};
	for (const file of graph.keys()) visit(file, []);
	return found;
}

describe("lib's layers", () => {
	const layers = declaredLayers(readFileSync(path.join(lib, 'index.ts'), 'utf8'));
	const graph = importGraph();

	it('places every folder of lib in exactly one layer', () => {
		const folders = readdirSync(lib, { withFileTypes: true })
			.filter((entry) => entry.isDirectory())
			.map((entry) => entry.name)
			.sort();
		expect(layers.length).toBeGreaterThan(3);
		expect(layers.flat().sort()).toEqual(folders);
	});

	it('has no import upward or sideways, and no import cycle', () => {
		expect(graph.size).toBeGreaterThan(50);
		expect([...graph.values()].flat().length).toBeGreaterThan(100);
		expect(crossings(graph, layers)).toEqual([]);
		expect(cycles(graph)).toEqual([]);
	});

	it('imports nothing of n8n', () => {
		const n8nImports = [...graph.keys()].flatMap((file) =>
			ts
				.preProcessFile(readFileSync(path.join(lib, file), 'utf8'))
				.importedFiles.filter((imported) => /^n8n-|^@n8n\//.test(imported.fileName))
				.map((imported) => `${file} -> ${imported.fileName}`),
		);
		expect(n8nImports).toEqual([]);
	});

	it('catches an upward import, a sideways one and a cycle', () => {
		const layered = [['json'], ['conversation'], ['model', 'mcp']];
		const bad = new Map([
			['json/a.ts', ['conversation/b.ts']],
			['conversation/b.ts', ['json/a.ts']],
			['model/c.ts', ['mcp/d.ts']],
			['mcp/d.ts', []],
		]);
		expect(crossings(bad, layered)).toEqual([
			'json/a.ts -> conversation/b.ts',
			'model/c.ts -> mcp/d.ts',
		]);
		expect(cycles(bad)).toEqual(['json/a.ts -> conversation/b.ts -> json/a.ts']);
	});
});
