/**
 * The model turn's options through the node in n8n's engine, against the Chat Completions stand-in:
 * Additional Body Fields (and, below, the other options of the model turn).
 */
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { reply } from '../support/chatCompletionsStandIn';
import { errorOf, outputOf, runWorkflow } from '../support/engine';
import { chain } from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest({ expectScriptUsed: true });

async function runModel(parameters: IDataObject, input: IDataObject = {}) {
	const run = await runWorkflow(chain(modelNode('Model', { userMessage: 'Hi', ...parameters })), {
		nodeTypes: modelNodeTypes(),
		credentials: standInCredential(api),
		inputItems: [{ json: input }],
	});
	return {
		run,
		answers: run.nodes.Model ? outputOf(run, 'Model', 1) : [],
		error: errorOf(run, 'Model'),
	};
}

describe('Additional Body Fields', () => {
	it('sends the fields the node does not model with every request', async () => {
		api.script(reply.text('Hello.'));
		const { answers } = await runModel({
			options: { bodyFields: '{"seed": 7, "top_logprobs": 2, "logprobs": true}' },
		});
		expect(answers).toHaveLength(1);
		expect(api.requests[0].body).toMatchObject({ seed: 7, top_logprobs: 2, logprobs: true });
	});

	it.each([
		['{"messages": []}', "Additional Body Fields sets 'messages', which the node writes itself"],
		[
			'{"temperature": 1}',
			"Additional Body Fields sets 'temperature', which the node already sets",
		],
		['{"seed": ', 'Additional Body Fields is not valid JSON'],
		['[1]', 'Additional Body Fields must be a JSON object, but it is a list'],
	])('fails the item on %s, saying why, before anything is sent', async (fields, message) => {
		const { error } = await runModel({ options: { bodyFields: fields, temperature: 0.2 } });
		expect(error?.message).toContain(message);
		expect(api.requests).toHaveLength(0);
	});
});

describe('Response Format', () => {
	const responseSchema = JSON.stringify({
		type: 'object',
		properties: { city: { type: 'string' } },
		required: ['city'],
	});

	it('puts the checked answer on the item as output, the text staying in answer', async () => {
		api.script(reply.text('{"city":"Rome"}'));
		const { answers } = await runModel({ responseFormat: 'jsonSchema', responseSchema });
		expect(answers[0].json).toMatchObject({ answer: '{"city":"Rome"}', output: { city: 'Rome' } });
		expect(api.requests[0].body).toMatchObject({
			response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true } },
		});
	});

	it('repairs a broken answer in the same run, then fails the item saying why', async () => {
		api.script(reply.text('{"town":"Rome"}'), reply.text('Rome'));
		const { error, answers } = await runModel({
			responseFormat: 'jsonSchema',
			responseSchema,
			options: { maxRepairs: 1 },
		});
		expect(answers).toHaveLength(0);
		expect(error?.message).toMatch(
			/^The model's answer is not what the Response Format asks for, after 1 repair: it is not JSON/,
		);
		expect(JSON.stringify(api.requests[1].body)).toContain("must have required property 'city'");
	});

	it('refuses a Response Schema that is no object, naming it', async () => {
		const { error } = await runModel({
			responseFormat: 'jsonSchema',
			responseSchema: '"a string"',
		});
		expect(error?.message).toBe('Response Schema must be a JSON object, but it is string');
	});
});

describe('Reasoning and Prompt Caching', () => {
	it('sends the reasoning effort, and shows the reasoning in the trace, never in the answer', async () => {
		api.script(
			reply.raw(
				200,
				JSON.stringify({
					id: 'chatcmpl-r',
					object: 'chat.completion',
					model: 'gpt-4o-mini',
					choices: [
						{
							index: 0,
							finish_reason: 'stop',
							message: {
								role: 'assistant',
								content: 'Rome.',
								reasoning_content: 'Warm places: Rome.',
							},
						},
					],
				}),
			),
		);
		const { answers } = await runModel({ options: { reasoningEffort: 'low' } });
		expect(api.requests[0].body).toMatchObject({ reasoning_effort: 'low' });
		const json = answers[0].json as { answer: string; trace: Array<Record<string, unknown>> };
		expect(json.answer).toBe('Rome.');
		expect(json.trace.find((entry) => entry.step === 'model.response')?.reasoning).toBe(
			'Warm places: Rome.',
		);
	});

	it('sends no prompt_cache_key to a server that is not OpenAI’s', async () => {
		api.script(reply.text('Hi.'));
		await runModel({});
		expect(api.requests[0].body).not.toHaveProperty('prompt_cache_key');
	});
});

describe('Fallback Provider', () => {
	const anthropic = standInForEachTest('anthropic', { apiKey: 'sk-ant-fallback-secret' });

	/** The node with a fallback and a Fallback Model API credential holding `fallbackCredential`. */
	const runWithFallback = (
		parameters: IDataObject,
		fallbackCredential: ICredentialDataDecryptedObject,
	) =>
		runWorkflow(
			chain(
				modelNode(
					'Model',
					{ userMessage: 'Hi', ...parameters },
					{
						credentials: {
							openAiCompatibleApi: { id: 'openai', name: 'OpenAI-compatible' },
							fallbackModelApi: { id: 'fallback', name: 'Fallback' },
						},
					},
				),
			),
			{
				nodeTypes: modelNodeTypes(),
				credentials: { ...standInCredential(api), fallbackModelApi: fallbackCredential },
				inputItems: [{ json: {} }],
			},
		);

	it('asks the fallback model, by its own credential, when the first fails after its retries', async () => {
		api.script(reply.error(503, 'The server is overloaded'));
		anthropic.script(reply.text('Hello from the fallback.'));
		const run = await runWithFallback(
			{
				fallbackProvider: 'anthropic',
				fallbackModel: 'claude-sonnet-4-5',
				options: { maxRetries: 0 },
			},
			{
				provider: 'anthropic',
				baseUrl: anthropic.baseURL,
				apiKey: 'sk-ant-fallback-secret',
				headers: {},
			},
		);
		expect(errorOf(run, 'Model')?.message).toBeUndefined();
		const [answer] = outputOf(run, 'Model', 1);
		const json = answer.json as { answer: string; trace: Array<Record<string, unknown>> };
		expect(json.answer).toBe('Hello from the fallback.');
		const response = json.trace.find((entry) => entry.step === 'model.response');
		expect(response).toMatchObject({
			dialect: 'anthropic',
			fallback: {
				instead: { dialect: 'openaiChat', model: 'gpt-4o-mini' },
				because: expect.stringContaining('HTTP 503'),
			},
		});
		// Prompt caching is on by default where it changes no answer: Anthropic's breakpoints.
		expect(JSON.stringify(anthropic.requests[0].body)).toContain(
			'"cache_control":{"type":"ephemeral"}',
		);
		expect(JSON.stringify(answer.json)).not.toContain('sk-ant-fallback-secret');
	});

	it('refuses a Fallback Model API credential made for another provider, naming it', async () => {
		const run = await runWithFallback(
			{ fallbackProvider: 'gemini', fallbackModel: 'gemini-2.5-flash' },
			{ provider: 'anthropic', apiKey: 'k', headers: {} },
		);
		expect(errorOf(run, 'Model')?.message).toBe(
			'The Fallback Model API credential is for anthropic, and the Fallback Provider is another: choose a credential for the Fallback Provider',
		);
	});

	it('refuses a fallback of another credential type without a credential of its own, saying so', async () => {
		const { error } = await runModel({
			fallbackProvider: 'gemini',
			fallbackModel: 'gemini-2.5-flash',
		});
		expect(error?.message).toBe(
			'The Fallback Provider needs a credential: choose a Fallback Model API credential for it',
		);
	});
});
