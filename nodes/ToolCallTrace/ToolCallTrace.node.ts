import {
	NodeConnectionTypes,
	type ExpressionString,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { processItems } from '../shared/items';
import { nodeRedactions } from '../shared/traceOptions';
import { compare } from './compare';
import { properties } from './description';
import { exportJsonLines } from './exportJsonLines';
import { usageSummary } from './usageSummary';

// A second output, Diverged, only while Compare routes diverged items there.
const outputs: ExpressionString =
	'={{ $parameter.operation === "compare" && $parameter.routeDiverged ? [{ type: "main", displayName: "Equal" }, { type: "main", displayName: "Diverged" }] : ["main"] }}';

export class ToolCallTrace implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Tool Call Trace',
		name: 'toolCallTrace',
		icon: { light: 'file:trace.svg', dark: 'file:trace.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ { compare: "Compare", exportJsonLines: "Export JSON Lines", usageSummary: "Summarize Usage" }[$parameter["operation"]] }}',
		description:
			"Compare a conversation's trace with the one a good run left, export it as JSON Lines, or sum up what it used",
		defaults: { name: 'Tool Call Trace' },
		inputs: [NodeConnectionTypes.Main],
		outputs,
		properties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as
			'compare' | 'exportJsonLines' | 'usageSummary';
		// Traces arrive redacted; this node uses no credential, so only the default secret keys apply (to errors).
		const redaction = nodeRedactions(this, []);
		if (operation === 'exportJsonLines')
			return processItems(this, 1, Infinity, exportJsonLines(this), redaction);
		if (operation === 'usageSummary')
			return processItems(this, 1, Infinity, usageSummary(this), redaction);
		const routeDiverged = this.getNodeParameter('routeDiverged', 0, false) as boolean;
		return processItems(
			this,
			routeDiverged ? 2 : 1,
			Infinity,
			compare(this, routeDiverged),
			redaction,
			// A trace that cannot be compared did not agree: never out by Equal.
			routeDiverged ? 1 : 0,
		);
	}
}
