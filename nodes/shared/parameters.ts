import type { IExecuteFunctions, INodeParameters } from 'n8n-workflow';

interface ReadOptions {
	extractValue?: boolean;
	rawExpressions?: boolean;
}

/** What one execution of a node knows: its parameters as saved, and the values that hold no expression. */
interface Known {
	saved: INodeParameters;
	constants: Map<string, unknown>;
}

const known = new WeakMap<IExecuteFunctions, Known>();

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

function knownOf(context: IExecuteFunctions): Known {
	let node = known.get(context);
	if (!node) {
		// getNode() copies the whole node: taken once per execution.
		node = { saved: context.getNode().parameters, constants: new Map() };
		known.set(context, node);
	}
	return node;
}

/** n8n takes a parameter value for an expression when it is a string starting with '='. */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	return typeof value === 'object' && value !== null && Object.values(value).some(holdsExpression);
}
