import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expectConversationItem } from '../support/contract';

describe('docs/item-contract.md', () => {
	it('shows an example that is a valid conversation item', () => {
		const doc = readFileSync(path.resolve(__dirname, '../../docs/item-contract.md'), 'utf8');
		const example = /```json\n([\s\S]*?)\n```/.exec(doc)?.[1];
		expect(example).toBeDefined();
		expectConversationItem(JSON.parse(example!));
	});

	it('is the schema the contract check uses: an item missing a list, or with a bad message, fails', () => {
		expect(() => expectConversationItem({ messages: [], tools: [], toolCalls: [] })).toThrow(
			/trace/,
		);
		expect(() =>
			expectConversationItem({
				messages: [{ role: 'tool', content: 'x' }],
				tools: [],
				toolCalls: [],
				trace: [],
			}),
		).toThrow(/tool_call_id/);
	});
});
