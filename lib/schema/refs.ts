import type { JsonSchema } from '../conversation/types';
import { isRecord } from '../json/value';
import { DEFINITIONS, mapSubschemas } from './keywords';
import { resolveRef } from './pointer';
import { describeUnexpressed } from './unexpressed';

/**
 * Refs one schema inlines at most: definitions that refer to each other would otherwise multiply
 * (five of them, each naming the others, made 19 MB), past what any vendor takes.
 */
const MAX_INLINED_REFS = 500;

interface Inlining {
	root: JsonSchema;
	maxRecursion: number;
	/** Refs that may still be inlined. */
	budget: number;
}

/**
 * A schema without references, for vendors whose schemas have none (Gemini's Schema object,
 * Ollama's tool structs): each local `$ref` replaced by what it names, its own keywords winning
 * (they say what this use of a shared schema is for), and the definitions left out. A recursive
 * ref (a tree) would inline forever, so it is unrolled `maxRecursion` times; past that, past the
 * budget of refs, or when it names nothing here (a remote ref is never fetched), the ref is left a
 * value of any type whose description names it, so that the model still reads what it refers to.
 */
export function inlineLocalRefs(schema: JsonSchema, maxRecursion = 2): JsonSchema {
	const inlining: Inlining = { root: schema, maxRecursion, budget: MAX_INLINED_REFS };
	return inline(schema, inlining, []) as JsonSchema;
}

function inline(node: unknown, inlining: Inlining, expanding: string[]): unknown {
	if (!isRecord(node)) return node;
	let schema = node;
	let path = expanding;
	while (typeof schema.$ref === 'string') {
		const { $ref: ref, ...siblings } = schema;
		const target = resolveRef(inlining.root, ref);
		const unrolled = path.filter((seen) => seen === ref).length >= inlining.maxRecursion;
		if (!(isRecord(target) || target === true) || unrolled || inlining.budget <= 0) {
			const description =
				typeof siblings.description === 'string' ? siblings.description : undefined;
			schema = { ...siblings, description: describeUnexpressed(description, { $ref: ref }) };
			break;
		}
		inlining.budget--;
		path = [...path, ref];
		schema = { ...(isRecord(target) ? target : {}), ...siblings };
	}
	const withoutDefinitions = Object.fromEntries(
		Object.entries(schema).filter(([key]) => !DEFINITIONS.includes(key)),
	);
	return mapSubschemas(withoutDefinitions, (inner) => inline(inner, inlining, path));
}
