import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * This package's name and version, from its package.json: the nearest one above this file, which
 * is the package root from lib/ as from dist/lib/. Read at run time rather than imported, since the
 * compiler would copy an imported package.json into dist/.
 */
export const OWN_PACKAGE: { name: string; version: string } = readOwnManifest();

function readOwnManifest(): { name: string; version: string } {
	for (let dir = __dirname; ; dir = dirname(dir)) {
		const file = join(dir, 'package.json');
		if (existsSync(file)) {
			const { name, version } = JSON.parse(readFileSync(file, 'utf8'));
			return { name, version };
		}
		if (dirname(dir) === dir) throw new Error(`No package.json above ${__dirname}`);
	}
}
