/**
 * JSON.stringify without recursion: V8's own gives up ("Maximum call stack size exceeded") a few
 * thousand levels deep, while JSON.parse accepts any depth. Same output as JSON.stringify(value)
 * (toJSON honoured, undefined and functions left out of objects and null in arrays, non-finite
 * numbers as null), optionally with object keys sorted at every depth.
 */
export function stringifyIteratively(value: unknown, sortKeys = false): string | undefined {
	const top = prepared(value, '');
	if (top === OMITTED) return undefined;
	const out: string[] = [];
	const ancestors = new Set<object>();
	const stack: Task[] = [{ value: top }];
	while (stack.length > 0) {
		const task = stack.pop()!;
		if (typeof task === 'string') out.push(task);
		else if ('leave' in task) ancestors.delete(task.leave);
		else if (task.value === null || typeof task.value !== 'object') out.push(scalar(task.value));
		else {
			const container = task.value;
			if (ancestors.has(container)) throw new TypeError('Converting circular structure to JSON');
			ancestors.add(container);
			stack.push({ leave: container });
			if (Array.isArray(container)) pushArray(container, stack, out);
			else pushObject(container as Record<string, unknown>, sortKeys, stack, out);
		}
	}
	return out.join('');
}

/** JSON.stringify, and the iterative form only when V8's runs out of stack. */
export function jsonText(value: unknown, sortKeys = false): string | undefined {
	if (sortKeys) return stringifyIteratively(value, true);
	try {
		return JSON.stringify(value);
	} catch (error) {
		if (isStackOverflow(error)) return stringifyIteratively(value);
		throw error;
	}
}

export function isStackOverflow(error: unknown): boolean {
	return error instanceof RangeError && /call stack/i.test(error.message);
}

type Task = string | { value: unknown } | { leave: object };

const OMITTED = Symbol('omitted');

function pushArray(array: unknown[], stack: Task[], out: string[]): void {
	out.push('[');
	stack.push(']');
	for (let index = array.length - 1; index >= 0; index--) {
		const inner = prepared(array[index], String(index));
		stack.push({ value: inner === OMITTED ? null : inner });
		if (index > 0) stack.push(',');
	}
}

function pushObject(
	object: Record<string, unknown>,
	sortKeys: boolean,
	stack: Task[],
	out: string[],
): void {
	const keys = Object.keys(object);
	if (sortKeys) keys.sort();
	const kept: Array<[string, unknown]> = [];
	for (const key of keys) {
		const inner = prepared(object[key], key);
		if (inner !== OMITTED) kept.push([key, inner]);
	}
	out.push('{');
	stack.push('}');
	for (let index = kept.length - 1; index >= 0; index--) {
		const [key, inner] = kept[index];
		stack.push({ value: inner });
		stack.push(`${JSON.stringify(key)}:`);
		if (index > 0) stack.push(',');
	}
}

/** The value as JSON.stringify sees it: after toJSON, or OMITTED for what JSON has no form of. */
function prepared(value: unknown, key: string): unknown {
	let current = value;
	if (
		current !== null &&
		typeof current === 'object' &&
		typeof (current as { toJSON?: unknown }).toJSON === 'function'
	) {
		current = (current as { toJSON(key: string): unknown }).toJSON(key);
	}
	if (typeof current === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
	if (current === undefined || typeof current === 'function' || typeof current === 'symbol')
		return OMITTED;
	if (current instanceof Number || current instanceof String || current instanceof Boolean) {
		return current.valueOf();
	}
	return current;
}

function scalar(value: unknown): string {
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
	return JSON.stringify(value);
}
