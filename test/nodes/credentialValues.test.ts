import { headerSecrets } from '../../lib/http/headerSecrets';
import { secretsOf } from '../../lib/mcp/config';
import { reply } from '../support/chatCompletionsStandIn';
import { errorOf, outputOf, runWorkflow } from '../support/engine';
import { chain } from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { standInForEachTest } from '../support/standInPerTest';

// Which values of a credential are secrets: those hidden wherever they appear, the conversation included.

const api = standInForEachTest();

describe('the values of a model credential', () => {
	it('leave a placeholder key and a header that names the app out: they do not rewrite the conversation', async () => {
		const answer = 'Run `ollama pull qwen3`, then ask My Support Bot again.';
		api.script(reply.text(answer));
		const credentials = standInCredential(api, {
			apiKey: 'ollama',
			headers: {
				header: [
					{ name: 'X-Title', value: 'My Support Bot' },
					{ name: 'X-Gateway-Key', value: 'gw-secret-value-1234' },
				],
			},
		});
		const run = await runWorkflow(
			chain(modelNode('Model', { userMessage: 'How do I install a model with ollama?' })),
			{ nodeTypes: modelNodeTypes(), credentials, inputItems: [{ json: {} }] },
		);
		const [item] = outputOf(run, 'Model', 1);
		expect(item.json.messages).toEqual([
			{ role: 'user', content: 'How do I install a model with ollama?' },
			expect.objectContaining({ role: 'assistant', content: answer }),
		]);
		expect(item.json.answer).toBe(answer);
		// Any other header is a secret, whatever its name.
		expect(JSON.stringify(item.json)).not.toContain('gw-secret-value-1234');
	});

	it('refuse a Base URL with a password in it, before any request, without showing it', async () => {
		const baseUrl = api.baseURL.replace('http://', 'http://proxyuser:pr0xy-pa55word@');
		const run = await runWorkflow(chain(modelNode('Model', { userMessage: 'hi' })), {
			nodeTypes: modelNodeTypes(),
			credentials: standInCredential(api, { baseUrl }),
			inputItems: [{ json: {} }],
		});
		expect(errorOf(run, 'Model')?.message).toMatch(/^The Base URL holds a user name or password/);
		expect(JSON.stringify(run.raw.data)).not.toContain('pr0xy-pa55word');
		expect(api.requests).toHaveLength(0);
	});
});

describe('headerSecrets', () => {
	it('takes every header but those that only say who calls or how, and the bare token of Authorization', () => {
		expect(
			headerSecrets({
				Authorization: 'Bearer tok-123456',
				'Ocp-Apim-Subscription-Key': 'apim-key-123456',
				'X-Title': 'My Support Bot',
				'HTTP-Referer': 'https://example.com',
				'anthropic-version': '2023-06-01',
			}),
		).toEqual(['Bearer tok-123456', 'tok-123456', 'apim-key-123456']);
	});

	it('takes a value as HTTP sends it, without the spaces or line end pasted around it', () => {
		expect(
			headerSecrets({ Authorization: 'Bearer tok-123456\n', 'X-Api-Key': ' key-123456 ' }),
		).toEqual([
			'Bearer tok-123456\n',
			'Bearer tok-123456',
			'tok-123456',
			' key-123456 ',
			'key-123456',
		]);
	});

	it('takes the token of a known scheme in any header, and the user:password and password of Basic', () => {
		const basic = Buffer.from('alice:pa55-word-123').toString('base64');
		expect(
			headerSecrets({
				'X-Authorization': 'Bearer tok-123456',
				Authorization: `Basic ${basic}`,
				'X-Team': 'Acme Robotics',
				'X-Client': 'Bot Support',
				'X-Api-Key': 'Key qHTxbWkRmZpLsaDfGhJkLzXcVbNmQwEr',
			}),
		).toEqual([
			'Bearer tok-123456',
			'tok-123456',
			`Basic ${basic}`,
			basic,
			'alice:pa55-word-123',
			'pa55-word-123',
			'Acme Robotics',
			// A word of letters after a scheme word is a name, not a token: only the whole value counts.
			'Bot Support',
			'Key qHTxbWkRmZpLsaDfGhJkLzXcVbNmQwEr',
			'qHTxbWkRmZpLsaDfGhJkLzXcVbNmQwEr',
		]);
	});

	it("hides a server's environment values, but not the variables that set up its process", () => {
		expect(
			secretsOf({
				transport: 'stdio',
				command: 'npx',
				args: [],
				env: {
					HOME: '/home/node',
					NODE_ENV: 'production',
					LANG: 'en_US.UTF-8',
					LC_ALL: 'en_US.UTF-8',
					XDG_CONFIG_HOME: '/home/node/.config',
					GITHUB_TOKEN: 'ghp_0123456789',
					DATABASE_URL: 'postgres://app:pw-123456@db/app',
				},
			}),
		).toEqual(['ghp_0123456789', 'postgres://app:pw-123456@db/app']);
	});

	it('serves the MCP server credential alike', () => {
		expect(
			secretsOf({
				transport: 'http',
				url: 'https://mcp.example.com/mcp',
				mode: 'auto',
				headers: { 'X-Title': 'My Support Bot', 'X-Api-Key': 'mcp-key-123456' },
			}),
		).toEqual(['mcp-key-123456']);
	});
});
