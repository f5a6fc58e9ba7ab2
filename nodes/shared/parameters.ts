import type { IExecuteFunctions, INode, INodeParameters } from 'n8n-workflow';

interface ReadOptions {
	extractValue?: boolean;
	rawExpressions?: boolean;
}

/** What one execution of a node knows: the node and its parameters as saved, and the values that hold no expression. */
interface Known {
	node: INode;
	saved: INodeParameters;
	constants: Map<string, unknown>;
}

type NodeContext = Pick<IExecuteFunctions, 'getNode'>;

const known = new WeakMap<NodeContext, Known>();

/**
 * A node parameter for one item, as `getNodeParameter` gives it. n8n resolves a parameter anew at
 * every read; one that holds no expression is the same for every item, so it is read once per
 * execution and that value serves every item (callers must not change it).
 */
export function itemParameter(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback: unknown,
	options?: ReadOptions,
): unknown {
	const node = knownOf(context);
	const key = `${name}|${options?.extractValue ? 'value' : ''}|${options?.rawExpressions ? 'raw' : ''}`;
	if (node.constants.has(key)) return node.constants.get(key);
	const value = context.getNodeParameter(name, itemIndex, fallback, options);
	if (isConstantParameter(context, name)) node.constants.set(key, value);
	return value;
}

/** Whether a parameter (a path such as `options.concurrency`) holds no expression, so reads the same for every item. */
export function isConstantParameter(context: IExecuteFunctions, name: string): boolean {
	let value: unknown = knownOf(context).saved;
	for (const part of name.split('.')) {
		if (typeof value !== 'object' || value === null) return true;
		value = (value as Record<string, unknown>)[part];
	}
	return !holdsExpression(value);
}

/** The node as saved, for its name, credentials and settings; callers must not change it. */
export function savedNode(context: NodeContext): INode {
	return knownOf(context).node;
}

function knownOf(context: NodeContext): Known {
	let entry = known.get(context);
	if (!entry) {
		// getNode() copies the whole node: taken once per execution.
		const node = context.getNode();
		entry = { node, saved: node.parameters, constants: new Map() };
		known.set(context, entry);
	}
	return entry;
}

/** n8n takes a parameter value for an expression when it is a string starting with '='. */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	return typeof value === 'object' && value !== null && Object.values(value).some(holdsExpression);
}

/** A parameter holding a comma-separated list, its entries trimmed; an expression may give a number or nothing, read as its text. */
export function commaList(text: unknown): string[] {
	return (text === undefined || text === null ? '' : String(text))
		.split(',')
		.map((part) => part.trim())
		.filter((part) => part !== '');
}
