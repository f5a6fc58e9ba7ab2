import type { IDataObject } from 'n8n-workflow';
import { modelApiConnection } from '../../nodes/ToolCallingModel/methods';
import { reply } from '../support/chatCompletionsStandIn';
import { credentialTestContext, errorOf, outputOf, runWorkflow } from '../support/engine';
import { chain } from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { standInForEachTest } from '../support/standInPerTest';

// A Base URL with a path and a query, as Azure OpenAI gives one for each deployment.

const api = standInForEachTest({ basePath: '/openai/deployments/gpt4o', expectScriptUsed: true });

async function runModel(credential: IDataObject, model = 'gpt-4o-mini') {
	return runWorkflow(chain(modelNode('Model', { userMessage: 'hi', model })), {
		nodeTypes: modelNodeTypes(),
		credentials: standInCredential(api, credential),
		inputItems: [{ json: {} }],
	});
}

describe('a Base URL with a query', () => {
	it("reaches an Azure OpenAI deployment: the path before the Base URL's api-version, the key in api-key", async () => {
		api.script(reply.text('Hello.'));
		const run = await runModel({
			baseUrl: `${api.baseURL}?api-version=2024-10-21`,
			apiKey: '',
			headers: { header: [{ name: 'api-key', value: 'azure-key-0123456789' }] },
		});
		const [request] = api.requests;
		expect(request.path).toBe('/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21');
		expect(request.headers['api-key']).toBe('azure-key-0123456789');
		expect(request.headers).not.toHaveProperty('authorization');
		const [answer] = outputOf(run, 'Model', 1);
		expect(answer.json.answer).toBe('Hello.');
		// The trace shows the URL sent, the API version included; the key is hidden.
		const trace = answer.json.trace as IDataObject[];
		expect(trace[0].url).toBe(`${api.baseURL}/chat/completions?api-version=2024-10-21`);
		expect((trace[0].headers as IDataObject)['api-key']).toBe('[redacted]');
		expect(JSON.stringify(answer.json)).not.toContain('azure-key-0123456789');
	});

	it('hides a key given in the query, in the trace and in errors, and keeps the API version', async () => {
		api.script(reply.text('Hello.'));
		const query = '?api-version=2024-10-21&code=gw-query-key-123456';
		const run = await runModel({ baseUrl: `${api.baseURL}/${query}` });
		expect(api.requests[0].path).toBe(`/openai/deployments/gpt4o/chat/completions${query}`);
		const [answer] = outputOf(run, 'Model', 1);
		expect((answer.json.trace as IDataObject[])[0].url).toBe(
			`${api.baseURL}/chat/completions?api-version=2024-10-21&code=[redacted]`,
		);
		expect(JSON.stringify(answer.json)).not.toContain('gw-query-key-123456');

		const unreachable = `http://127.0.0.1:9/openai/deployments/gpt4o${query}`;
		const failed = await runModel({ baseUrl: unreachable });
		expect(JSON.stringify(errorOf(failed, 'Model'))).toContain(
			'Could not reach the model API at http://127.0.0.1:9/openai/deployments/gpt4o?api-version=2024-10-21&code=[redacted]',
		);
		expect(JSON.stringify(failed.raw.data)).not.toContain('gw-query-key-123456');
		const tested = await modelApiConnection.call(await credentialTestContext(), {
			id: '1',
			name: 'c',
			type: 'openAiCompatibleApi',
			data: { baseUrl: unreachable, apiKey: '', headers: {} },
		});
		expect(tested.status).toBe('Error');
		expect(tested.message).toContain('code=[redacted]');
		expect(tested.message).not.toContain('gw-query-key-123456');
	});

	it("keeps the values that route the call, which the model's answer may hold as words", async () => {
		api.script(reply.text('I run in westeurope as gpt-4o-mini.'));
		const run = await runModel({
			baseUrl: `${api.baseURL}?api-version=2024-10-21&region=westeurope&deployment=gpt-4o-mini`,
		});
		const [answer] = outputOf(run, 'Model', 1);
		expect(answer.json.answer).toBe('I run in westeurope as gpt-4o-mini.');
		const [request] = answer.json.trace as IDataObject[];
		expect(request.url).toContain('region=westeurope&deployment=gpt-4o-mini');
		expect((request.payload as IDataObject).model).toBe('gpt-4o-mini');
	});
});
