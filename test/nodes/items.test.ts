import { NodeOperationError, type IExecuteFunctions, type INode } from 'n8n-workflow';
import { processItems } from '../../nodes/shared/items';
import { nodeRedactions } from '../../nodes/shared/traceOptions';

// processItems on its own, with the least of an execution's context it reads.
const node = {
	id: '1',
	name: 'MCP Client',
	type: 'mcpClient',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as unknown as INode;
const context = {
	getInputData: () => [{ json: { n: 1 } }, { json: { n: 2 } }],
	continueOnFail: () => false,
	getNode: () => node,
	getNodeParameter: (_name: string, _index: number, fallback: unknown) => fallback,
	evaluateExpression: () => undefined,
} as unknown as IExecuteFunctions;

describe('processItems', () => {
	it("names the failing item in a node error that named none, keeping the server's error as its cause", async () => {
		const serverError = Object.assign(new Error('MCP error -32602: Invalid params'), {
			code: -32602,
		});
		// One error for every item, as a listing they share fails them all.
		const shared = new NodeOperationError(node, serverError);
		const failure = (await processItems(
			context,
			1,
			1,
			async (_item, itemIndex) => {
				if (itemIndex === 1) throw shared;
				return { output: 0, item: { json: {} } };
			},
			nodeRedactions(context, []),
		).catch((error: unknown) => error)) as NodeOperationError;
		expect(failure).toBeInstanceOf(NodeOperationError);
		expect(failure).not.toBe(shared);
		expect(failure.context.itemIndex).toBe(1);
		expect(failure.message).toBe(shared.message);
		expect(failure.cause).toMatchObject({ code: -32602 });
		expect(shared.context.itemIndex).toBeUndefined();
	});
});
