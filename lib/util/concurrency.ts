/**
 * Maps with at most `limit` calls in flight; results keep the input order. Once a call fails, no
 * further input is started (those in flight run on) and the failure is the result.
 */
export async function mapConcurrently<T, R>(
	inputs: readonly T[],
	limit: number,
	map: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (!failed && next < inputs.length) {
			const index = next++;
			try {
				results[index] = await map(inputs[index], index);
			} catch (error) {
				failed = true;
				throw error;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, worker));
	return results;
}
