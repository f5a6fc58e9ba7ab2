// The tools of fault-server.mjs --sampling: each asks the client's model to write something
// (sampling/createMessage) and answers with what the client sent back, or with the error it got.
import { CreateMessageResultWithToolsSchema } from '@modelcontextprotocol/sdk/types.js';

const textOf = (value) => ({ content: [{ type: 'text', text: value }] });

/** One sampling request; the tool's result is the client's answer as JSON, or the failure. */
async function ask(extra, params) {
	try {
		const answer = await extra.sendRequest(
			{ method: 'sampling/createMessage', params },
			CreateMessageResultWithToolsSchema,
		);
		return answer;
	} catch (error) {
		return { failed: error.message, code: error.code };
	}
}

const user = (text) => ({ role: 'user', content: { type: 'text', text } });

export const samplingTools = [
	{
		name: 'summarize',
		description:
			"Asks the client's model to summarize the text, with a system prompt, model hints and maxTokens.",
		inputSchema: {
			type: 'object',
			properties: {
				text: { type: 'string' },
				hint: { type: 'string' },
				maxTokens: { type: 'number' },
			},
			required: ['text'],
		},
		run: async ({ text, hint, maxTokens = 200 }, extra) =>
			textOf(
				JSON.stringify(
					await ask(extra, {
						messages: [user(`Summarize: ${text}`)],
						systemPrompt: 'You write one short sentence.',
						...(hint && { modelPreferences: { hints: [{ name: hint }] } }),
						maxTokens,
						temperature: 0.2,
					}),
				),
			),
	},
	{
		name: 'sample_times',
		description: "Asks the client's model count times in a row; answers with each outcome.",
		inputSchema: {
			type: 'object',
			properties: { count: { type: 'number' } },
			required: ['count'],
		},
		run: async ({ count }, extra) => {
			const outcomes = [];
			for (let index = 0; index < count; index++)
				outcomes.push(
					await ask(extra, { messages: [user(`Request ${index + 1}`)], maxTokens: 20 }),
				);
			return textOf(JSON.stringify(outcomes));
		},
	},
	{
		name: 'sample_with_tools',
		description:
			"Offers the client's model the tool `lookup` in a sampling request, then sends its result back in a second one.",
		inputSchema: { type: 'object', properties: {} },
		run: async (_args, extra) => {
			const tools = [
				{
					name: 'lookup',
					description: 'Looks a word up',
					inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
				},
			];
			const messages = [user('What does "n8n" mean? Use lookup.')];
			const first = await ask(extra, { messages, tools, maxTokens: 100 });
			if (first.failed || first.stopReason !== 'toolUse') return textOf(JSON.stringify([first]));
			const calls = [first.content].flat().filter((block) => block.type === 'tool_use');
			const second = await ask(extra, {
				messages: [
					...messages,
					{ role: 'assistant', content: [first.content].flat() },
					{
						role: 'user',
						content: calls.map((call) => ({
							type: 'tool_result',
							toolUseId: call.id,
							content: [{ type: 'text', text: `${call.input.word}: nodemation` }],
						})),
					},
				],
				tools,
				maxTokens: 100,
			});
			return textOf(JSON.stringify([first, second]));
		},
	},
	{
		name: 'sample_image',
		description: "Asks the client's model about an image.",
		inputSchema: { type: 'object', properties: {} },
		run: async (_args, extra) =>
			textOf(
				JSON.stringify(
					await ask(extra, {
						messages: [
							{
								role: 'user',
								content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
							},
						],
						maxTokens: 20,
					}),
				),
			),
	},
];
