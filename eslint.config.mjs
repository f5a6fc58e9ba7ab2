// typescript-eslint's recommended rules everywhere; n8n's rules for community node packages on
// what n8n loads (nodes, credentials) and on package.json. lib/ holds no n8n code, so n8n's
// node rules (NodeApiError, paired items) do not apply there.
// This is a self-hosted package (it starts MCP server processes and calls model APIs), so it
// uses n8n's set for packages that do not target n8n Cloud. Every rule changed is listed below.
import n8nCommunityNodes from '@n8n/eslint-plugin-community-nodes';
import tseslint from 'typescript-eslint';

const n8nRules = n8nCommunityNodes.configs.recommendedWithoutN8nCloudSupport;

export default tseslint.config(
	{
		ignores: [
			'dist/',
			'.bench/',
			'node_modules/',
			'.tools/',
			'.demo/',
			'coverage/',
			'e2e/.chat-widget/',
			'index.js',
			'gulpfile.js',
			'jest.config.js',
		],
	},
	...tseslint.configs.recommended,
	{
		rules: {
			// `{ trace, ...rest }` drops a key on purpose.
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ ignoreRestSiblings: true, argsIgnorePattern: '^_' },
			],
		},
	},
	{
		files: ['test/**'],
		rules: {
			// Tests read output items as loose JSON and assert on their shape.
			'@typescript-eslint/no-explicit-any': 'off',
			// Tests load compiled files and n8n's nodes by path, on demand.
			'@typescript-eslint/no-require-imports': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		plugins: n8nRules.plugins,
		rules: {
			...n8nRules.rules,
			// The package needs @modelcontextprotocol/sdk (the MCP wire protocol) and ajv (schema
			// checks) at run time; n8n's helpers replace neither.
			'@n8n/community-nodes/no-runtime-dependencies': 'off',
			// No public homepage or maintainer address exists before the first publish; both are
			// added to package.json then, and these two rules turned back on.
			'@n8n/community-nodes/require-homepage': 'off',
			'@n8n/community-nodes/valid-author': 'off',
		},
	},
	{
		files: [
			'nodes/ToolCallingModel/ToolCallingModel.node.ts',
			'nodes/McpClient/McpClient.node.ts',
			'nodes/ToolCallTrace/ToolCallTrace.node.ts',
			'nodes/ChatMemory/ChatMemory.node.ts',
		],
		rules: {
			// A model turn decides which tools run; offered as an AI Agent tool it would become a step
			// of a hidden loop, the opposite of what it is for. The MCP Client and the trace node read
			// and write conversation items (messages, pending calls, traces), which an agent's tool
			// call does not carry, and Chat Memory turns a table's rows into such items and back. So
			// none is usable as a tool.
			'@n8n/community-nodes/node-usable-as-tool': 'off',
		},
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
		rules: { '@typescript-eslint/no-unused-expressions': 'off' },
	},
);
