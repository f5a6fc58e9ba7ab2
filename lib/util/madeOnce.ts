/**
 * A value made once for each distinct list of keys, compared as Map keys are (objects by
 * identity): what a node makes alike for many items, made once and shared by them. The first
 * key names what is made, so that two kinds of value never meet under the same keys.
 */
export function madeOnce(): <T>(keys: readonly unknown[], make: () => T) => T {
	const made = new Map<unknown, unknown>();
	return <T>(keys: readonly unknown[], make: () => T): T => {
		let level = made;
		for (const key of keys.slice(0, -1)) {
			let next = level.get(key) as Map<unknown, unknown> | undefined;
			if (!next) level.set(key, (next = new Map()));
			level = next;
		}
		const last = keys.at(-1);
		if (!level.has(last)) level.set(last, make());
		return level.get(last) as T;
	};
}
