/**
 * How deep JSON this package accepts where data enters (tool-call arguments, tool results, trace
 * payloads). JSON.parse takes any depth, but JSON.stringify, structuredClone and n8n's own copies
 * of items recurse and fail a few thousand levels down: deeper data could not leave the node.
 */
export const MAX_JSON_DEPTH = 1000;

/** Whether arrays and objects nest more than `limit` levels (a scalar is 0, `[]` is 1); counted without recursion. */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
	const stack: Array<[unknown, number]> = [[value, 0]];
	while (stack.length > 0) {
		const [current, depth] = stack.pop()!;
		if (current === null || typeof current !== 'object') continue;
		if (depth + 1 > limit) return true;
		for (const inner of Array.isArray(current) ? current : Object.values(current))
			if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
	}
	return false;
}
