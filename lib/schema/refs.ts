import type { JsonSchema } from '../conversation/types';
import { jsonText } from '../json/stringify';
import { isRecord } from '../json/value';
import { DEFINITIONS, mapSubschemas } from './keywords';
import { resolveRef } from './pointer';
import { describeUnexpressed } from './unexpressed';

/**
 * How much schema text inlining may add to one schema: definitions that refer to each other would
 * otherwise multiply (five of them, each naming the others, made 19 MB), past what any vendor takes.
 */
const MAX_INLINED_BYTES = 128 * 1024;

interface Inlining {
	root: JsonSchema;
	maxRecursion: number;
	/** Bytes of schema text inlining may still add. */
	budget: number;
	/** The text size of each ref's target, worked out once. */
	sizes: Map<string, number>;
}

/**
 * A schema without references, for vendors whose schemas have none (Gemini's Schema object,
 * Ollama's tool structs): each local `$ref` replaced by what it names, its own keywords winning
 * (they say what this use of a shared schema is for), and the definitions left out. A recursive
 * ref (a tree) would inline forever, so it is unrolled `maxRecursion` times; past that, past the
 * budget of inlined text, or when it names nothing here (a remote ref is never fetched), the ref is left a
 * value of any type whose description names it, so that the model still reads what it refers to.
 */
export function inlineLocalRefs(schema: JsonSchema, maxRecursion = 2): JsonSchema {
	const inlining: Inlining = {
		root: schema,
		maxRecursion,
		budget: MAX_INLINED_BYTES,
		sizes: new Map(),
	};
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
		const size = sizeOf(ref, target, inlining.sizes);
		if (!(isRecord(target) || target === true) || unrolled || size > inlining.budget) {
			const description =
				typeof siblings.description === 'string' ? siblings.description : undefined;
			schema = { ...siblings, description: describeUnexpressed(description, { $ref: ref }) };
			break;
		}
		inlining.budget -= size;
		path = [...path, ref];
		schema = { ...(isRecord(target) ? target : {}), ...siblings };
	}
	const withoutDefinitions = Object.fromEntries(
		Object.entries(schema).filter(([key]) => !DEFINITIONS.includes(key)),
	);
	return mapSubschemas(withoutDefinitions, (inner) => inline(inner, inlining, path));
}

function sizeOf(ref: string, target: unknown, sizes: Map<string, number>): number {
	let size = sizes.get(ref);
	if (size === undefined) {
		size = jsonText(target)?.length ?? 0;
		sizes.set(ref, size);
	}
	return size;
}
