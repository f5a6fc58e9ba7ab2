import { isRecord } from '../json/value';
import { mapSubschemas } from './keywords';

/**
 * A schema in draft 4's idioms, which later drafts read otherwise, in draft 7's: a boolean
 * `exclusiveMinimum`/`exclusiveMaximum` becomes the bound it qualifies, and `id` (draft 4's `$id`)
 * is left out, as no schema is looked up by its id. Servers write these without naming the draft.
 */
export function fromDraft04(node: unknown): unknown {
	if (!isRecord(node)) return node;
	const { id, ...schema } = node;
	const upgraded = typeof id === 'string' ? schema : { ...node };
	for (const [flag, bound] of [
		['exclusiveMinimum', 'minimum'],
		['exclusiveMaximum', 'maximum'],
	] as const) {
		if (typeof upgraded[flag] !== 'boolean') continue;
		if (upgraded[flag] && typeof upgraded[bound] === 'number') {
			upgraded[flag] = upgraded[bound];
			delete upgraded[bound];
		} else {
			delete upgraded[flag];
		}
	}
	return mapSubschemas(upgraded, fromDraft04);
}
