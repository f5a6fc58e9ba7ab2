import { ConnectionPool, type HttpServerConfig } from '../../lib/mcp';
import { startOAuthServer, stopOAuthServers, type OAuthServerHandle } from '../support/oauthServer';
import { faultStdio } from '../support/servers';

const pool = new ConnectionPool({ maxSize: 4, idleTimeoutMs: 60_000, connectTimeoutMs: 20_000 });
let server: OAuthServerHandle;
let config: HttpServerConfig;
beforeAll(async () => {
	server = await startOAuthServer(['--no-auth']);
	config = { transport: 'http', url: server.mcp, headers: {}, mode: 'streamableHttp' };
});
afterAll(async () => {
	await pool.closeAll();
	await stopOAuthServers();
});

describe('resources and prompts of a connection', () => {
	it('lists every page of resources, resource templates and prompts', async () => {
		const [resources, templates, prompts] = await pool.use(config, (connection) =>
			Promise.all([
				connection.listResources(),
				connection.listResourceTemplates(),
				connection.listPrompts(),
			]),
		);
		expect(resources.map((resource) => resource.uri)).toEqual(
			[1, 2, 3, 4, 5].map((n) => `memo://notes/${n}`),
		);
		expect(templates.map((template) => template.uriTemplate)).toEqual(
			[1, 2, 3].map((n) => `memo://drafts/${n}/{name}`),
		);
		expect(prompts.map((prompt) => prompt.name)).toEqual(['prompt-1', 'prompt-2', 'prompt-3']);
	});

	it('reads a resource and gets a prompt with arguments', async () => {
		const [read, prompt] = await pool.use(config, (connection) =>
			Promise.all([
				connection.readResource('memo://notes/4'),
				connection.getPrompt('prompt-1', { topic: 'owls' }),
			]),
		);
		expect(read.contents).toEqual([
			{ uri: 'memo://notes/4', mimeType: 'text/plain', text: 'contents of memo://notes/4' },
		]);
		expect(prompt.messages).toEqual([
			{ role: 'user', content: { type: 'text', text: 'Tell me about owls' } },
		]);
	});

	it("passes on the server's error for an unknown resource and keeps the connection", async () => {
		await pool.use(config, async (connection) => {
			await expect(connection.readResource('memo://notes/99')).rejects.toThrow(
				/Resource not found: memo:\/\/notes\/99/,
			);
			expect(connection.isAlive).toBe(true);
		});
	});

	it('says so when a server offers no resources or prompts', async () => {
		await pool.use(faultStdio(), async (connection) => {
			await expect(connection.listResources()).rejects.toThrow(
				/offers no resources .*resources\/list cannot be used/,
			);
			await expect(connection.getPrompt('any')).rejects.toThrow(/offers no prompts/);
			expect(connection.isAlive).toBe(true);
		});
	});
});
