import {
	NodeConnectionTypes,
	NodeOperationError,
	type IConnections,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeType,
} from 'n8n-workflow';
import { errorOf, outputOf, runWorkflow, runsOf } from '../support/engine';

// Answers each item's question with the credential's prefix, optionally on its second output;
// turns an input file into an upper-case output file; an empty question is an item error.
const answer: INodeType = {
	description: {
		displayName: 'Answer',
		name: 'answer',
		group: ['transform'],
		version: 1,
		description: 'Test node',
		defaults: { name: 'Answer' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['first', 'second'],
		credentials: [{ name: 'answerApi', required: true }],
		properties: [
			{ displayName: 'Question', name: 'question', type: 'string', default: '' },
			{ displayName: 'Second Output', name: 'second', type: 'boolean', default: false },
		],
	},
	async execute(this: IExecuteFunctions) {
		const { prefix } = await this.getCredentials<{ prefix: string }>('answerApi');
		const outputs: INodeExecutionData[][] = [[], []];
		for (const [i, item] of this.getInputData().entries()) {
			try {
				const question = this.getNodeParameter('question', i) as string;
				if (!question)
					throw new NodeOperationError(this.getNode(), 'No question', { itemIndex: i });
				const out: INodeExecutionData = {
					json: { ...item.json, answer: `${prefix} ${question}` },
					pairedItem: { item: i },
				};
				if (item.binary?.file) {
					const text = (await this.helpers.getBinaryDataBuffer(i, 'file'))
						.toString('utf8')
						.toUpperCase();
					out.binary = {
						file: await this.helpers.prepareBinaryData(
							Buffer.from(text),
							'upper.txt',
							'text/plain',
						),
					};
				}
				outputs[this.getNodeParameter('second', i) ? 1 : 0].push(out);
			} catch (error) {
				if (!this.continueOnFail()) throw error;
				outputs[0].push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
			}
		}
		return outputs;
	},
};

const nodeTypes = { 'test.answer': answer };
const credentials = { answerApi: { prefix: 'A:' } };

function node(
	name: string,
	type: string,
	parameters: INode['parameters'],
	extra: Partial<INode> = {},
): INode {
	return { id: name, name, type, typeVersion: 1, position: [0, 0], parameters, ...extra };
}

/** n8n's Edit Fields (Set) node in JSON mode, keeping the item's other fields and its binary data. */
function setNode(name: string, jsonOutput: string): INode {
	return {
		...node(name, 'n8n-nodes-base.set', {
			mode: 'raw',
			jsonOutput,
			includeOtherFields: true,
			options: { includeBinary: true },
		}),
		typeVersion: 3.4,
	};
}

function workflow(answerNode: Partial<INode>, connections: IConnections) {
	return {
		nodes: [
			node('Trigger', 'n8n-nodes-base.manualTrigger', {}),
			node(
				'Answer',
				'test.answer',
				{ question: '={{ $json.question }}', second: '={{ $json.question.length > 12 }}' },
				{ credentials: { answerApi: { id: '1', name: 'Answer account' } }, ...answerNode },
			),
			setNode('Edit', '={{ { "words": $json.answer ? $json.answer.split(" ").length : 0 } }}'),
		],
		connections: {
			Trigger: { main: [[{ node: 'Answer', type: NodeConnectionTypes.Main, index: 0 }]] },
			...connections,
		},
	};
}

const toEdit = { node: 'Edit', type: NodeConnectionTypes.Main, index: 0 };
const inputItems: INodeExecutionData[] = [
	{
		json: { question: 'Why?' },
		binary: {
			file: {
				data: Buffer.from('hello').toString('base64'),
				mimeType: 'text/plain',
				fileName: 'hello.txt',
			},
		},
	},
	{ json: { question: 'What is the longest river?' } },
	{ json: { question: '' } },
];

describe('engine harness', () => {
	it('routes two outputs and the error output, with credentials, expressions and binary data', async () => {
		const run = await runWorkflow(
			workflow({ onError: 'continueErrorOutput' }, { Answer: { main: [[toEdit], [], []] } }),
			{ nodeTypes, credentials, inputItems },
		);

		expect(run.status).toBe('success');
		expect(run.order).toEqual(['Trigger', 'Answer', 'Edit']);
		expect(outputOf(run, 'Answer', 1).map((item) => item.json)).toEqual([
			{ question: 'What is the longest river?', answer: 'A: What is the longest river?' },
		]);
		expect(outputOf(run, 'Answer', 2).map((item) => item.json)).toEqual([
			{ question: '', error: 'No question' },
		]);

		const [edited] = outputOf(run, 'Edit');
		expect(outputOf(run, 'Edit')).toHaveLength(1);
		expect(edited.json).toEqual({ question: 'Why?', answer: 'A: Why?', words: 2 });
		expect(edited.binary?.file).toMatchObject({ fileName: 'upper.txt', mimeType: 'text/plain' });
		expect(Buffer.from(edited.binary!.file.data, 'base64').toString('utf8')).toBe('HELLO');
	});

	it('keeps the error item on the regular output with continueRegularOutput', async () => {
		const run = await runWorkflow(
			workflow({ onError: 'continueRegularOutput' }, { Answer: { main: [[toEdit]] } }),
			{ nodeTypes, credentials, inputItems },
		);

		expect(outputOf(run, 'Edit').map((item) => item.json)).toEqual([
			{ question: 'Why?', answer: 'A: Why?', words: 2 },
			{ error: 'No question', words: 0 },
		]);
	});

	it('stops at a failing node without continueOnFail', async () => {
		const run = await runWorkflow(workflow({}, { Answer: { main: [[toEdit]] } }), {
			nodeTypes,
			credentials,
			inputItems,
		});

		expect(run.status).toBe('error');
		expect(errorOf(run, 'Answer')?.message).toBe('No question');
		expect(run.error?.message).toBe('No question');
		expect(runsOf(run, 'Edit')).toEqual([]);
	});

	it('fails the node when its credentials are missing', async () => {
		const run = await runWorkflow(workflow({}, {}), { nodeTypes, inputItems });

		expect(errorOf(run, 'Answer')?.message).toBe(
			'Credential with ID "1" does not exist for type "answerApi".',
		);
	});

	it('runs a node once per pass of a loop', async () => {
		const run = await runWorkflow(
			{
				nodes: [
					node('Trigger', 'n8n-nodes-base.manualTrigger', {}),
					node(
						'Answer',
						'test.answer',
						{ question: 'again', second: '={{ $json.round < 2 }}' },
						{
							credentials: { answerApi: { id: '1', name: 'Answer account' } },
						},
					),
					setNode('Next', '={{ { "round": $json.round + 1 } }}'),
				],
				connections: {
					Trigger: { main: [[{ node: 'Answer', type: NodeConnectionTypes.Main, index: 0 }]] },
					Answer: { main: [[], [{ node: 'Next', type: NodeConnectionTypes.Main, index: 0 }]] },
					Next: { main: [[{ node: 'Answer', type: NodeConnectionTypes.Main, index: 0 }]] },
				},
			},
			{ nodeTypes, credentials, inputItems: [{ json: { round: 0 } }] },
		);

		expect(run.order).toEqual(['Trigger', 'Answer', 'Next', 'Answer', 'Next', 'Answer']);
		expect(runsOf(run, 'Answer').map((r) => r.outputs.map((items) => items.length))).toEqual([
			[0, 1],
			[0, 1],
			[1, 0],
		]);
		expect(outputOf(run, 'Answer')[0].json).toEqual({ round: 2, answer: 'A: again' });
	});
});
