import { ConnectionPool, type HttpServerConfig, type ServerRequestEvent } from '../../lib/mcp';
import type { ToolCallOptions } from '../../lib/mcp';
import { startOAuthServer, stopOAuthServers, type OAuthServerHandle } from '../support/oauthServer';

const pool = new ConnectionPool({ maxSize: 4, idleTimeoutMs: 60_000, connectTimeoutMs: 20_000 });
let server: OAuthServerHandle;
beforeAll(async () => {
	server = await startOAuthServer(['--no-auth']);
});
afterAll(async () => {
	await pool.closeAll();
	await stopOAuthServers();
});

const streamable = (): HttpServerConfig => ({
	transport: 'http',
	url: server.mcp,
	headers: {},
	mode: 'streamableHttp',
});
const sse = (): HttpServerConfig => ({
	transport: 'http',
	url: server.sse,
	headers: {},
	mode: 'sse',
});

async function call(
	config: HttpServerConfig,
	tool: string,
	elicitation: ToolCallOptions['elicitation'] = {},
) {
	const events: ServerRequestEvent[] = [];
	const result = await pool.use(config, (connection) =>
		connection.callTool(
			tool,
			{},
			{
				timeoutMs: 10_000,
				elicitation: { ...elicitation, onServerRequest: (event) => events.push(event) },
			},
		),
	);
	const text = (result.content as Array<{ text: string }>)[0].text;
	return { result, text, events };
}

const DEFAULTS = { name: 'Ada', count: 3, color: 'green', confirm: true };

describe('the capabilities the client declares', () => {
	it('are form elicitation with defaults, and nothing it does not implement', async () => {
		const { text } = await call(streamable(), 'client');
		expect(JSON.parse(text)).toEqual({
			info: { name: 'n8n-nodes-tool-calling', version: expect.any(String) },
			capabilities: { elicitation: { form: { applyDefaults: true } } },
		});
	});
});

describe('elicitation during a call', () => {
	it('is declined by default, and the call goes on; the caller is told', async () => {
		const { text, events } = await call(streamable(), 'ask');
		expect(JSON.parse(text)).toEqual({ action: 'decline' });
		expect(events).toEqual([
			expect.objectContaining({
				method: 'elicitation/create',
				params: expect.objectContaining({ message: 'Who is asking?' }),
				answer: { action: 'decline' },
				tiedBy: 'stream',
			}),
		]);
	});

	it("accepts with the requested schema's defaults when asked to", async () => {
		const { text, events } = await call(streamable(), 'ask', { mode: 'defaults' });
		expect(JSON.parse(text)).toEqual({ action: 'accept', content: DEFAULTS });
		expect(events[0].answer).toEqual({ action: 'accept', content: DEFAULTS });
	});

	it("answers through the caller's callback, defaults filling what it leaves out", async () => {
		const { text } = await call(streamable(), 'ask', {
			mode: 'answer',
			answer: (request) => ({ action: 'accept', content: { name: `Bob for ${request.message}` } }),
		});
		expect(JSON.parse(text)).toEqual({
			action: 'accept',
			content: { ...DEFAULTS, name: 'Bob for Who is asking?' },
		});
	});

	it('cancels when the callback fails, and reports the failure', async () => {
		const { text, events } = await call(streamable(), 'ask', {
			mode: 'answer',
			answer: () => {
				throw new Error('the expression failed');
			},
		});
		expect(JSON.parse(text)).toEqual({ action: 'cancel' });
		expect(events[0]).toMatchObject({
			answer: { action: 'cancel' },
			error: 'the expression failed',
		});
	});

	it('cancels an answer outside the elicitation result schema and says so: the server gets the cancel the trace shows', async () => {
		const { text, events } = await call(streamable(), 'ask', {
			mode: 'answer',
			answer: () => ({ action: 'accept', content: { name: { first: 'Ada' } } as never }),
		});
		expect(JSON.parse(text)).toEqual({ action: 'cancel' });
		expect(events[0]).toMatchObject({
			answer: { action: 'cancel' },
			error: expect.stringMatching(
				/^The answer is not one an elicitation result may be \(content\.name: .*\); the server was told the request was cancelled$/,
			),
		});
	});

	it('answers each of several calls at once by its own options over Streamable HTTP', async () => {
		const [declined, accepted] = await Promise.all([
			call(streamable(), 'ask'),
			call(streamable(), 'ask', { mode: 'defaults' }),
		]);
		expect(JSON.parse(declined.text)).toEqual({ action: 'decline' });
		expect(JSON.parse(accepted.text)).toEqual({ action: 'accept', content: DEFAULTS });
		expect(declined.events).toHaveLength(1);
		expect(accepted.events).toHaveLength(1);
	});

	it('over SSE, ties a request to the only call running', async () => {
		const { text, events } = await call(sse(), 'ask', { mode: 'defaults' });
		expect(JSON.parse(text)).toEqual({ action: 'accept', content: DEFAULTS });
		expect(events[0].tiedBy).toBe('only-call');
	});
});

describe('sampling', () => {
	it('is declined with a message that says why, and the caller is told', async () => {
		const { result, text, events } = await call(streamable(), 'sample');
		expect(result.isError).toBe(true);
		expect(text).toMatch(/sampling failed: .*does not offer sampling \(sampling\/createMessage\)/);
		expect(events).toEqual([
			expect.objectContaining({
				method: 'sampling/createMessage',
				error: expect.stringMatching(/does not offer sampling/),
			}),
		]);
	});
});
