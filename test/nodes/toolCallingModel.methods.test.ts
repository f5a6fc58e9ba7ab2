import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { ToolCallingModel } from '../../nodes/ToolCallingModel/ToolCallingModel.node';
import { modelApiConnection, searchModels } from '../../nodes/ToolCallingModel/methods';
import { PROVIDERS } from '../../nodes/ToolCallingModel/providers';
import { credentialTestContext, editorContextFor } from '../support/engine';
import { modelNode, modelNodeTypes } from '../support/modelWorkflow';
import { DIALECT_IDS, startStandIn } from '../support/standIn';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest({
	models: ['gpt-4.1-mini', 'llama3.2', 'qwen3:8b', 'gpt-4.1'],
	apiKey: 'sk-models-key',
});

const credentials = (
	extra: ICredentialDataDecryptedObject = {},
): ICredentialDataDecryptedObject => ({
	baseUrl: `${api.baseURL}/`,
	apiKey: 'sk-models-key',
	organization: '',
	headers: { header: [{ name: 'X-Title', value: 'n8n' }] },
	...extra,
});
const editor = (data: ICredentialDataDecryptedObject) =>
	editorContextFor(modelNode('Model', {}), modelNodeTypes(), { openai: data });
const testCredential = async (data: ICredentialDataDecryptedObject) =>
	modelApiConnection.call(await credentialTestContext(), {
		id: '1',
		name: 'c',
		type: 'openAiCompatibleApi',
		data,
	});

describe('Tool Calling Model: models from the endpoint', () => {
	it('lists the endpoint’s models, sorted and filtered, with the credential’s key and headers', async () => {
		expect(
			(await searchModels.call(await editor(credentials()))).results.map((model) => model.value),
		).toEqual(['gpt-4.1', 'gpt-4.1-mini', 'llama3.2', 'qwen3:8b']);
		expect((await searchModels.call(await editor(credentials()), 'GPT')).results).toEqual([
			{ name: 'gpt-4.1', value: 'gpt-4.1' },
			{ name: 'gpt-4.1-mini', value: 'gpt-4.1-mini' },
		]);
		expect(api.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
		expect(api.requests[0].headers).toMatchObject({
			authorization: 'Bearer sk-models-key',
			'x-title': 'n8n',
		});
	});

	it('tests a credential by listing the models, and reports the vendor’s refusal', async () => {
		expect(await testCredential(credentials())).toEqual({
			status: 'OK',
			message: 'Connected: 4 models (gpt-4.1, gpt-4.1-mini, llama3.2, qwen3:8b)',
		});
		const refused = await testCredential(credentials({ apiKey: 'sk-wrong' }));
		expect(refused.status).toBe('Error');
		expect(refused.message).toContain('Incorrect API key provided');
		expect(refused.message).not.toContain('sk-wrong');
		const unreachable = await testCredential(credentials({ baseUrl: 'http://127.0.0.1:9/v1' }));
		expect(unreachable).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('Could not reach the model API at http://127.0.0.1:9/v1'),
		});
	});
});

describe('Tool Calling Model: models and credential tests for every provider', () => {
	const MODELS = ['alpha-model', 'beta-model'];

	it.each(DIALECT_IDS)(
		'%s: lists the models with the provider’s credential and path, and tests that credential',
		async (dialect) => {
			const api = await startStandIn(dialect, { models: MODELS, apiKey: 'sk-provider-key' });
			try {
				const { credentialType } = PROVIDERS[dialect];
				const data = {
					baseUrl: api.baseURL,
					apiKey: 'sk-provider-key',
					organization: '',
					version: '2023-06-01',
					headers: {},
				};
				const node = modelNode(
					'Model',
					{ provider: dialect },
					{ credentials: { [credentialType]: { id: 'provider', name: 'provider' } } },
				);
				const listed = await searchModels.call(
					await editorContextFor(node, modelNodeTypes(), { provider: data }),
				);
				expect(listed.results.map((result) => result.value)).toEqual(MODELS);

				const context = await credentialTestContext();
				expect(
					await modelApiConnection.call(context, {
						id: '1',
						name: 'c',
						type: credentialType,
						data,
					}),
				).toEqual({
					status: 'OK',
					message: 'Connected: 2 models (alpha-model, beta-model)',
				});
				const refused = await modelApiConnection.call(context, {
					id: '1',
					name: 'c',
					type: credentialType,
					data: { ...data, apiKey: 'sk-wrong-key' },
				});
				expect(refused.status).toBe('Error');
				expect(refused.message).not.toContain('sk-wrong-key');
			} finally {
				await api.close();
			}
		},
	);
});

describe('Tool Calling Model: models from a Base URL with a path and a query', () => {
	it.each(DIALECT_IDS)(
		"%s: lists the models at the provider's path, the Base URL's query kept after it",
		async (dialect) => {
			const api = await startStandIn(dialect, {
				models: ['alpha-model'],
				apiKey: 'sk-provider-key',
				basePath: '/gateway/route',
			});
			try {
				const { credentialType } = PROVIDERS[dialect];
				const data = {
					baseUrl: `${api.baseURL}/?api-version=2024-10-21`,
					apiKey: 'sk-provider-key',
					headers: {},
				};
				const tested = await modelApiConnection.call(await credentialTestContext(), {
					id: '1',
					name: 'c',
					type: credentialType,
					data,
				});
				expect(tested).toEqual({ status: 'OK', message: 'Connected: 1 models (alpha-model)' });
				expect(api.requests[0].path).toMatch(
					/^\/gateway\/route\/[^?]+\?api-version=2024-10-21(&|$)/,
				);
			} finally {
				await api.close();
			}
		},
	);
});

describe('Tool Calling Model: a model list answered as a bare array (Together AI)', () => {
	const together = standInForEachTest({
		modelListBody: [
			{ id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', object: 'model', type: 'chat' },
			{ id: 'Qwen/Qwen2.5-72B-Instruct-Turbo', object: 'model', type: 'chat' },
		],
	});

	it('lists its models in the Model list and the credential test', async () => {
		const data = { baseUrl: together.baseURL, apiKey: '', organization: '', headers: {} };
		expect(
			(await searchModels.call(await editor(data))).results.map((model) => model.value),
		).toEqual(['Qwen/Qwen2.5-72B-Instruct-Turbo', 'meta-llama/Llama-3.3-70B-Instruct-Turbo']);
		expect(await testCredential(data)).toEqual({
			status: 'OK',
			message:
				'Connected: 2 models (Qwen/Qwen2.5-72B-Instruct-Turbo, meta-llama/Llama-3.3-70B-Instruct-Turbo)',
		});
	});
});

describe('Tool Calling Model: options of one provider', () => {
	it('are offered with that provider only', () => {
		const options = new ToolCallingModel().description.properties.find(
			(property) => property.name === 'options',
		)!.options as Array<{ name: string; displayOptions?: unknown }>;
		const shownFor = (name: string) =>
			options.find((option) => option.name === name)?.displayOptions;
		expect(shownFor('keepReasoning')).toEqual({ show: { '/provider': ['openaiResponses'] } });
		expect(shownFor('maxTokensField')).toEqual({ show: { '/provider': ['openaiChat'] } });
	});
});

describe('Fallback Model API credential', () => {
	it('is tested against the provider it names', async () => {
		const result = await modelApiConnection.call(await credentialTestContext(), {
			id: '1',
			name: 'c',
			type: 'fallbackModelApi',
			data: { provider: 'openaiChat', ...credentials() },
		});
		expect(result).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connected: 4 models/),
		});
	});
});
