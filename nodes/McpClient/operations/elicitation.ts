import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import {
	defaultsOf,
	elicitResultFrom,
	type ElicitationOptions,
	type ElicitRequestFormParams,
} from '../../../lib/mcp';
import { itemParameter } from '../../shared/parameters';

const CALLING_OPERATIONS = ['executeToolCalls', 'callTool'];

/** The variable an Answer expression reads the server's request from. */
const REQUEST_VARIABLE = /\$elicitation\b/g;

export const elicitationProperties: INodeProperties[] = [
	{
		displayName: 'When the Server Asks for Input',
		name: 'elicitation',
		type: 'options',
		default: 'decline',
		displayOptions: { show: { operation: CALLING_OPERATIONS } },
		description:
			'What a tool gets when it asks for input while it runs (MCP elicitation). Each request and its answer is written to the trace and to the tool message.',
		options: [
			{
				name: 'Decline',
				value: 'decline',
				description:
					'The call goes on without the input; the tool message tells the model what the tool asked for',
			},
			{
				name: 'Accept Defaults',
				value: 'defaults',
				description:
					'Accept with the defaults of the requested form (declined when a required field has none)',
			},
			{
				name: 'Answer With Expression',
				value: 'answer',
				description: 'Accept with what the Answer expression gives for the item and the request',
			},
		],
	},
	{
		displayName: 'Answer',
		name: 'elicitationAnswer',
		type: 'json',
		default: '={{ $elicitation.defaults }}',
		displayOptions: { show: { operation: CALLING_OPERATIONS, elicitation: ['answer'] } },
		description:
			'The content to accept with, as JSON or an expression over the item. In an expression, $elicitation is the request: $elicitation.message, $elicitation.requestedSchema and $elicitation.defaults (the form\'s defaults). Give {"action": "decline"} or nothing to decline.',
	},
];

/**
 * How the item's calls answer a server that asks for input. An Answer expression is evaluated
 * when the request comes, with `$elicitation` standing for the request (n8n's expressions offer
 * no variables of a node's own, so the request is written into the expression as a literal).
 */
export function elicitationOf(context: IExecuteFunctions, itemIndex: number): ElicitationOptions {
	const mode = itemParameter(context, 'elicitation', itemIndex, 'decline') as NonNullable<
		ElicitationOptions['mode']
	>;
	if (mode !== 'answer') return { mode };
	const raw = itemParameter(context, 'elicitationAnswer', itemIndex, '', { rawExpressions: true });
	return {
		mode,
		answer: (request) => {
			if (typeof raw !== 'string' || !raw.startsWith('=')) return elicitResultFrom(raw);
			// A function, not a text: `$$` or `$'` in the server's words are no replacement patterns.
			const literal = requestLiteral(request);
			const expression = raw.slice(1).replace(REQUEST_VARIABLE, () => literal);
			return elicitResultFrom(context.evaluateExpression(expression, itemIndex));
		},
	};
}

/**
 * The request as an expression literal. It goes in as JSON text to parse, with its braces escaped,
 * so no `{{` or `}}` in the server's text can end the expression early.
 */
function requestLiteral(request: ElicitRequestFormParams): string {
	const value = {
		message: request.message,
		requestedSchema: request.requestedSchema,
		defaults: defaultsOf(request.requestedSchema),
	};
	const text = JSON.stringify(JSON.stringify(value)).replace(
		/[{}]/g,
		(brace) => `\\u${brace.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
	return `JSON.parse(${text})`;
}
