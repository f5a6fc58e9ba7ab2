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
	let node = known.get(context);
	if (!node) {
		// getNode() copies the whole node: taken once per execution.
		node = { saved: context.getNode().parameters, constants: new Map() };
		known.set(context, node);
	}
	const key = `${name}|${options?.extractValue ? 'value' : ''}|${options?.rawExpressions ? 'raw' : ''}`;
	if (node.constants.has(key)) return node.constants.get(key);
	const value = context.getNodeParameter(name, itemIndex, fallback, options);
	if (!holdsExpression(savedValue(node.saved, name))) node.constants.set(key, value);
	return value;
}

/** The saved value at a parameter path such as `options.concurrency`. */
function savedValue(parameters: INodeParameters, name: string): unknown {
	let value: unknown = parameters;
	for (const part of name.split('.')) {
		if (typeof value !== 'object' || value === null) return undefined;
		value = (value as Record<string, unknown>)[part];
	}
	return value;
}

/** n8n takes a parameter value for an expression when it is a string starting with '='. */
export function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	return typeof value === 'object' && value !== null && Object.values(value).some(holdsExpression);
}
