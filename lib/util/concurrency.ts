/** Maps with at most `limit` calls in flight; results keep the input order. */
export async function mapConcurrently<T, R>(
	inputs: readonly T[],
	limit: number,
	map: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	const worker = async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await map(inputs[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, worker));
	return results;
}
