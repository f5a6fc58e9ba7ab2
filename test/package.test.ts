import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PackageDirectoryLoader } from 'n8n-core';
import { CLIENT_INFO } from '../lib/mcp';

const root = path.resolve(__dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const built = (file: string) => path.join(root, file);

/** What n8n reads when it loads the package: a broken path here is "Unrecognized node type" there. */
describe('the package as n8n loads it (after the build)', () => {
	beforeAll(() => {
		if (!existsSync(built('dist')))
			throw new Error('dist/ is missing: run `npm run build` (scripts/test.sh does)');
	});

	it('declares every node and credential, and each compiled file exports the class n8n expects', () => {
		expect(manifest.n8n.n8nNodesApiVersion).toBe(1);
		expect(manifest.keywords).toContain('n8n-community-node-package');
		expect(manifest.name).toMatch(/^n8n-nodes-/);
		for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			const className = path.basename(file).split('.')[0];
			const exported = require(built(file))[className];
			expect(typeof exported).toBe('function');
			const instance = new exported();
			if (file.includes('/nodes/')) {
				const codex = JSON.parse(readFileSync(built(file.replace(/\.js$/, '.json')), 'utf8'));
				expect(codex.node).toBe(`${manifest.name}.${instance.description.name}`);
				for (const icon of Object.values(instance.description.icon as Record<string, string>)) {
					expect(existsSync(path.join(path.dirname(built(file)), icon.replace('file:', '')))).toBe(
						true,
					);
				}
			} else {
				expect(instance.name).toMatch(/Api$/);
			}
		}
		expect(manifest.n8n.nodes.map((file: string) => path.basename(file))).toEqual([
			'McpClient.node.js',
			'ToolCallingModel.node.js',
			'ToolCallTrace.node.js',
			'ChatMemory.node.js',
		]);
		expect(manifest.n8n.credentials.map((file: string) => path.basename(file))).toEqual([
			'McpStdioServerApi.credentials.js',
			'McpHttpServerApi.credentials.js',
			'McpServerOAuth2Api.credentials.js',
			'McpServerManualOAuth2Api.credentials.js',
			'McpServerClientCredentialsOAuth2Api.credentials.js',
			'McpServerEnterpriseOAuth2Api.credentials.js',
			'OpenAiCompatibleApi.credentials.js',
			'AnthropicMessagesApi.credentials.js',
			'GeminiApi.credentials.js',
			'OllamaNativeApi.credentials.js',
			'FallbackModelApi.credentials.js',
		]);
	});

	it("loads as n8n loads a community package, though its OAuth2 credential extends a type (n8n's mcpOAuth2Api) no package here defines", async () => {
		const loader = new PackageDirectoryLoader(root);
		await loader.loadAll();
		const credentials = loader.known.credentials;
		expect(Object.keys(credentials)).toHaveLength(manifest.n8n.credentials.length);
		expect(credentials.mcpServerOAuth2Api.extends).toEqual(['mcpOAuth2Api']);
		expect(credentials.mcpServerManualOAuth2Api.extends).toEqual(['oAuth2Api']);
		expect(credentials.mcpServerEnterpriseOAuth2Api.extends).toEqual(['oAuth2Api']);
		expect(credentials.mcpServerClientCredentialsOAuth2Api.extends).toBeUndefined();
		expect(Object.keys(loader.known.nodes)).toEqual([
			'mcpClient',
			'toolCallingModel',
			'toolCallTrace',
			'chatMemory',
		]);
		expect(loader.known.credentials.mcpServerOAuth2Api.supportedNodes).toEqual(['mcpClient']);
	});

	it('exposes the library through index.js and names itself with the package version', () => {
		const library = require(built('index.js'));
		expect(Object.keys(library.DIALECTS)).toEqual([
			'openaiChat',
			'openaiResponses',
			'anthropic',
			'gemini',
			'ollama',
		]);
		expect(typeof library.callModel).toBe('function');
		expect(typeof library.diffTraces).toBe('function');
		expect(typeof library.SchemaValidator).toBe('function');
		// The built library finds package.json from dist/lib/ as the sources do from lib/.
		expect(library.CLIENT_INFO).toEqual({ name: manifest.name, version: manifest.version });
		expect(CLIENT_INFO).toEqual(library.CLIENT_INFO);
	});

	it('ships only dist and the entry point, with no runtime dependency on n8n itself', () => {
		expect(manifest.files).toEqual(['dist', 'index.js']);
		expect(manifest.bin).toEqual({ 'n8n-nodes-tool-calling': 'dist/cli/main.js' });
		expect(Object.keys(manifest.dependencies)).not.toContain('n8n-workflow');
		expect(manifest.peerDependencies['n8n-workflow']).toBeDefined();
	});
});
