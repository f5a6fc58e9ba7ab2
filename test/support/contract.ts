import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { INode, INodeExecutionData } from 'n8n-workflow';
import schema from '../../lib/conversation/conversation.schema.json';
import { name as packageName } from '../../package.json';

const contract = addFormats(new Ajv2020({ allErrors: true })).compile(schema);

/** Fails with the contract violations when `json` is not a valid conversation item. */
export function expectConversationItem(json: unknown): void {
	if (!contract(json))
		throw new Error(`Not a conversation item:\n${JSON.stringify(contract.errors, null, 2)}`);
}

/**
 * The operations whose items are not conversations: a tool's result, a usage summary's row, the
 * row Chat Memory saves.
 */
const NOT_CONVERSATIONS = ['callTool', 'usageSummary', 'save'];

/**
 * Every item our nodes output must be a conversation item, except those of the operations above
 * and error items kept under continue-on-fail. Engine runs check this after every run.
 */
export function checkContract(node: INode, items: INodeExecutionData[]): void {
	if (!node.type.startsWith(`${packageName}.`)) return;
	if (NOT_CONVERSATIONS.includes(String(node.parameters.operation))) return;
	for (const item of items) {
		if (item.json.error === undefined) expectConversationItem(item.json);
	}
}
