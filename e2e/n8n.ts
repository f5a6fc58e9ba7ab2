/**
 * The REAL n8n the end-to-end test and the demo run: the version pinned in e2e/n8n/package-lock.json,
 * installed once into e2e/.n8n (cached by the lock's hash), and this package packed and installed
 * into an n8n user folder the way Settings → Community Nodes installs it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PIN_DIR = join(PROJECT_ROOT, 'e2e/n8n');
export const N8N_HOME = join(PROJECT_ROOT, 'e2e/.n8n');
export const N8N_BIN = join(N8N_HOME, 'node_modules/.bin/n8n');

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
export const PACKAGE = readJson(join(PROJECT_ROOT, 'package.json')) as {
	name: string;
	n8n: { nodes: string[]; credentials: string[] };
};

/** The pinned n8n version. */
export const pinnedVersion = (): string => readJson(join(PIN_DIR, 'package.json')).dependencies.n8n;

/** What `n8n --version` says (its last line), run with a throwaway user folder under `folder`. */
export function reportedVersion(bin: string, folder: string): string | undefined {
	return spawnSync(bin, ['--version'], {
		cwd: folder,
		env: { ...process.env, N8N_USER_FOLDER: join(folder, 'version-check') },
		encoding: 'utf8',
		timeout: 60_000,
	})
		.stdout?.trim()
		.split('\n')
		.pop();
}

/** Runs a command to its end with its output in `log` (appended); whether it succeeded. */
function run(
	log: string,
	command: string,
	args: string[],
	cwd: string,
	timeoutS: number,
	env = process.env,
) {
	const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutS * 1000 });
	writeFileSync(
		log,
		`${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`,
		{
			flag: 'a',
		},
	);
	return result.status === 0;
}

const npm = (log: string, args: string[], cwd: string, timeoutS: number, env = process.env) =>
	run(log, 'npm', args, cwd, timeoutS, env);

function headersMatch(dir: string): boolean {
	const header = join(dir, 'include/node/node_version.h');
	const major = process.versions.node.split('.')[0];
	return (
		existsSync(header) &&
		readFileSync(header, 'utf8').includes(`define NODE_MAJOR_VERSION ${major}\n`)
	);
}

/** The Node headers node-gyp builds n8n's native modules (sqlite3, isolated-vm) against. */
function nodeHeaders(log: string): string | undefined {
	const configured = spawnSync('npm', ['config', 'get', 'nodedir'], {
		encoding: 'utf8',
	}).stdout.trim();
	const candidates = [
		process.env.npm_config_nodedir,
		configured,
		dirname(dirname(process.execPath)),
	];
	const found = candidates.find((candidate) => candidate && headersMatch(candidate));
	if (found) return found;
	// This node came without headers (a distro package, say): take them from the npm registry.
	const prefix = join(PROJECT_ROOT, 'e2e/.node-headers');
	const fromRegistry = join(prefix, `node_modules/node-linux-${process.arch}`);
	for (const version of [process.versions.node, process.versions.node.split('.')[0]]) {
		if (headersMatch(fromRegistry)) break;
		const quiet = ['--silent', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts'];
		npm(
			log,
			['install', ...quiet, '--prefix', prefix, `node-linux-${process.arch}@${version}`],
			PROJECT_ROOT,
			600,
		);
	}
	return headersMatch(fromRegistry) ? fromRegistry : undefined;
}

/**
 * Installs the pinned n8n into e2e/.n8n unless this lock is installed already; logs to `log`.
 * Install scripts stay off (the Kafka client's cannot build here); sqlite3 and isolated-vm are
 * rebuilt against this Node.
 */
export function installN8n(log: string): boolean {
	const marker = join(N8N_HOME, '.installed-lock-hash');
	const hash = createHash('sha256')
		.update(readFileSync(join(PIN_DIR, 'package.json')))
		.update(readFileSync(join(PIN_DIR, 'package-lock.json')))
		.update(`${process.versions.modules}\n`)
		.digest('hex');
	if (existsSync(N8N_BIN) && existsSync(marker) && readFileSync(marker, 'utf8').trim() === hash) {
		console.log(`    n8n ${pinnedVersion()} already installed (e2e/.n8n)`);
		return true;
	}
	mkdirSync(N8N_HOME, { recursive: true });
	rmSync(marker, { force: true });
	for (const file of ['package.json', 'package-lock.json'])
		copyFileSync(join(PIN_DIR, file), join(N8N_HOME, file));
	console.log(
		`    installing n8n ${pinnedVersion()} into e2e/.n8n (about 2200 packages: a few minutes, once)`,
	);
	const installed =
		npm(
			log,
			['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
			N8N_HOME,
			1800,
		) && rebuildNative(N8N_HOME, log);
	if (installed) writeFileSync(marker, `${hash}\n`);
	return installed;
}

/** Builds n8n's native modules (sqlite3, isolated-vm) in an install made with scripts off. */
export function rebuildNative(home: string, log: string): boolean {
	const nodedir = nodeHeaders(log);
	if (!nodedir) {
		writeFileSync(log, 'no Node headers for node-gyp\n', { flag: 'a' });
		return false;
	}
	return npm(log, ['rebuild', 'sqlite3', 'isolated-vm', '--loglevel=error'], home, 900, {
		...process.env,
		npm_config_nodedir: nodedir,
	});
}

export interface Packed {
	tarball: string;
	files: string[];
	sizeKb: number;
}

/** Packs the package (as built in dist/) into `folder`. */
export function packPackage(folder: string, log: string): Packed | undefined {
	const result = spawnSync('npm', ['pack', '--json', '--pack-destination', folder], {
		cwd: PROJECT_ROOT,
		encoding: 'utf8',
	});
	writeFileSync(log, result.stderr ?? '', { flag: 'a' });
	if (result.status !== 0) return undefined;
	const [info] = JSON.parse(result.stdout) as Array<{
		filename: string;
		size: number;
		files: Array<{ path: string }>;
	}>;
	return {
		tarball: join(folder, info.filename),
		files: info.files.map((file) => file.path),
		sizeKb: info.size / 1024,
	};
}

/**
 * Installs a tarball into the user folder with the steps n8n 2.40's
 * CommunityPackagesService.downloadPackage takes: unpack into nodes/node_modules/<name>, drop
 * dev/peer/optional dependencies, `npm install` inside it, record it in nodes/package.json. With
 * mode `npm`, a plain `npm install <tarball>` in the nodes folder instead (n8n 1.x's way).
 */
export function installPackage(
	tarball: string,
	userFolder: string,
	mode: string,
	log: string,
): boolean {
	const nodesDir = join(userFolder, '.n8n/nodes');
	mkdirSync(nodesDir, { recursive: true });
	const nodesJson = join(nodesDir, 'package.json');
	writeFileSync(
		nodesJson,
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
	);
	const quiet = ['--audit=false', '--fund=false', '--ignore-scripts=true', '--loglevel=error'];
	if (mode === 'npm') {
		const local = join(nodesDir, tarball.split('/').pop()!);
		copyFileSync(tarball, local);
		return npm(log, ['install', `./${local.split('/').pop()}`, ...quiet], nodesDir, 300);
	}
	const packageDir = join(nodesDir, 'node_modules', PACKAGE.name);
	mkdirSync(packageDir, { recursive: true });
	if (!run(log, 'tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], nodesDir, 120))
		return false;
	const manifestFile = join(packageDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...kept } =
		readJson(manifestFile);
	void [devDependencies, peerDependencies, optionalDependencies];
	writeFileSync(manifestFile, JSON.stringify(kept, null, 2));
	const registry = spawnSync('npm', ['config', 'get', 'registry'], {
		encoding: 'utf8',
	}).stdout.trim();
	const installed = npm(
		log,
		[
			'install',
			...quiet,
			'--bin-links=false',
			'--install-strategy=shallow',
			'--package-lock=false',
			`--registry=${registry}`,
		],
		packageDir,
		300,
	);
	if (!installed) return false;
	const nodes = readJson(nodesJson);
	nodes.dependencies[PACKAGE.name] = kept.version;
	writeFileSync(nodesJson, JSON.stringify(nodes, null, 2));
	return true;
}

/** n8n's settings for a local, quiet instance with its own user folder. */
export function n8nEnvironment(
	userFolder: string,
	encryptionKey: string,
	extra: Record<string, string> = {},
) {
	const env: NodeJS.ProcessEnv = {
		...process.env,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: encryptionKey,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_LOG_OUTPUT: 'console',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_LISTEN_ADDRESS: process.env.N8N_LISTEN_ADDRESS ?? '127.0.0.1',
		N8N_HOST: process.env.N8N_HOST ?? '127.0.0.1',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		DB_TYPE: 'sqlite',
		EXECUTIONS_MODE: 'regular',
		...extra,
	};
	delete env.N8N_CUSTOM_EXTENSIONS;
	return env;
}

/** A TCP port nothing listens on. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/** A random hex string, for keys and markers. */
export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');
