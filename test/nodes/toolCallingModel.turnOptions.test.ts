/**
 * The model turn's options through the node in n8n's engine, against the Chat Completions stand-in:
 * Additional Body Fields (and, below, the other options of the model turn).
 */
import type { IDataObject } from 'n8n-workflow';
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
