import { reply } from '../support/chatCompletionsStandIn';
import { errorOf, outputOf, runWorkflow } from '../support/engine';
import { chain } from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { standInForEachTest } from '../support/standInPerTest';

// n8n's SSRF protection, on as an administrator turns it on: private addresses (127.0.0.0/8 among
// them) are blocked. n8n reads its configuration once, when the engine's services start.
const SSRF_VARIABLES = ['N8N_SSRF_PROTECTION_ENABLED', 'N8N_SSRF_ALLOWED_HOSTNAMES'];
const saved = SSRF_VARIABLES.map((name) => process.env[name]);
process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
process.env.N8N_SSRF_ALLOWED_HOSTNAMES = 'localhost';
afterAll(() => {
	SSRF_VARIABLES.forEach((name, index) => {
		if (saved[index] === undefined) delete process.env[name];
		else process.env[name] = saved[index];
	});
});

const api = standInForEachTest();

const runModel = (baseUrl: string) =>
	runWorkflow(chain(modelNode('Model', { userMessage: 'Say hello.' })), {
		nodeTypes: modelNodeTypes(),
		credentials: standInCredential(api, { baseUrl }),
	});

describe("The model's calls under n8n's egress policy", () => {
	it('refuses an API at an address the policy blocks, before connecting, and says so', async () => {
		const run = await runModel(api.baseURL);
		const { origin, pathname } = new URL(`${api.baseURL}/chat/completions`);
		expect(errorOf(run, 'Model')?.message).toBe(
			`The outbound network policy refused the request to ${origin}${pathname}: The request was blocked because it resolves to a restricted IP address`,
		);
		expect(errorOf(run, 'Model')?.description).toBe('The model API answered nothing (refused)');
		expect(api.connections()).toBe(0);
	});

	it('reaches a host the policy allows', async () => {
		api.script(reply.text('Hello!'));
		const run = await runModel(api.baseURL.replace('127.0.0.1', 'localhost'));
		expect(errorOf(run, 'Model')).toBeUndefined();
		expect(outputOf(run, 'Model', 1)[0].json.answer).toBe('Hello!');
	});
});
