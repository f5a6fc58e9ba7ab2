import { secretMatchers, type SecretMatchers } from './secretForms';
import { jsonText } from './stringify';

export const REDACTED = '[redacted]';

/** Keys whose text values are secrets, matched on the words of a key: `apiKey`, `x-api-key` and `API_KEY` all match `api_key`. */
export const DEFAULT_SECRET_KEYS = [
	'password',
	'token',
	'secret',
	'api_key',
	'apikey',
	'authorization',
	'cookie',
];

export type Secrets = readonly string[] | (() => readonly string[]);

export interface RedactionRules {
	/**
	 * Values hidden wherever they appear, inside any text and in any encoded form (JSON-escaped,
	 * URL-encoded, hex, base64): the secrets of the credentials in use. A function is asked again
	 * at each use, for secrets that change while a node runs (renewed tokens).
	 */
	secrets: Secrets;
	/**
	 * Keys whose text values are hidden. Objects under them are searched, not hidden (a schema property
	 * named `password`); numbers are kept (`promptTokenCount` is a count, not a token).
	 */
	keys?: readonly string[];
	/** Dotted paths from the value's root whose values are hidden; `*` is any key or index: `payload.arguments.ssn`. */
	paths?: readonly string[];
}

export interface Redactor {
	/** Secret values only: for the conversation, whose keys are data (a tool may take an `api_key` argument). */
	values<T>(value: T): T;
	/**
	 * Secret values, secret keys and paths: for traces, headers, errors and log lines. Keys are also
	 * found inside JSON held as text (a model's tool-call `arguments` string).
	 */
	all<T>(value: T): T;
	/** Texts that belong together (the text parts of one result): a secret split across them is hidden in each. */
	adjacent(texts: readonly string[]): string[];
	/** Whether data holds a secret in any form, for bytes that cannot be redacted in place (an image). */
	foundIn(bytes: Buffer): boolean;
	/**
	 * values() for the output items of one node execution, which share much: each item's copy of
	 * the tool list holds the same tool objects, and List Tools makes one trace entry for all
	 * items. An object of an item's first levels found clean is not searched again in a later
	 * item while the secrets stay the same.
	 */
	valuesOfItems(): <T>(value: T) => T;
}

type Paths = string[][];
interface Frame {
	value: unknown;
	paths: Paths;
	target: Record<string, unknown> | unknown[];
	key: string | number;
}

const NO_PATHS: Paths = [];

export function createRedactor(rules: RedactionRules): Redactor {
	const matchersNow = liveMatchers(rules.secrets);
	const secretKey = secretKeyTest(rules.keys ?? DEFAULT_SECRET_KEYS);
	const paths = (rules.paths ?? []).map((path) => path.split('.').filter((part) => part !== ''));
	/** The text with the secrets hidden, by the matchers of the secrets as they are at the walk's start. */
	const textNow = () => {
		const matchers = matchersNow();
		return (value: string) =>
			matchers && value.length >= matchers.shortest
				? value.replace(matchers.text, REDACTED)
				: value;
	};

	/**
	 * The redacted copy. An object met twice (shared, or in a cycle, as error details can be) gets
	 * the one copy, so the walk ends and keeps the shape. By recursion, the fast way, for what
	 * items and entries are; a value deeper or larger than that is walked again without recursion.
	 */
	const visit = (root: unknown, byKey: boolean, rootPaths: Paths): unknown => {
		try {
			return visitByRecursion(root, byKey, rootPaths);
		} catch (error) {
			if (error !== TOO_LARGE_TO_RECURSE) throw error;
			return visitByStack(root, byKey, rootPaths);
		}
	};
	const visitByRecursion = (root: unknown, byKey: boolean, rootPaths: Paths): unknown => {
		const text = textNow();
		const copies = new Map<object, unknown>();
		let parts = 0;
		const copy = (value: unknown, pathsHere: Paths, depth: number): unknown => {
			if (pathsHere.length > 0 && pathsHere.some((path) => path.length === 0)) return REDACTED;
			if (typeof value === 'string') return text(byKey ? withKeysHiddenInJsonText(value) : value);
			if (isScalar(value)) return text(String(value)) === String(value) ? value : REDACTED;
			if (value === null || typeof value !== 'object') return value;
			if (pathsHere.length === 0 && copies.has(value)) return copies.get(value);
			if (depth > RECURSION_DEPTH || ++parts > RECURSION_PARTS) throw TOO_LARGE_TO_RECURSE;
			const container: Frame['target'] = Array.isArray(value) ? new Array(value.length) : {};
			if (pathsHere.length === 0) copies.set(value, container);
			const keys = Array.isArray(value) ? undefined : Object.keys(value);
			const count = keys ? keys.length : (value as unknown[]).length;
			for (let index = 0; index < count; index++) {
				const innerKey = keys ? keys[index] : String(index);
				const inner = (value as Record<string, unknown>)[innerKey];
				const childKey = keys ? text(innerKey) : index;
				setOwn(
					container,
					childKey,
					byKey && typeof inner === 'string' && secretKey(innerKey)
						? REDACTED
						: copy(inner, deeperPaths(pathsHere, innerKey), depth + 1),
				);
			}
			return container;
		};
		return copy(root, rootPaths, 0);
	};
	/** Walks without recursion: any depth JSON.parse accepts. */
	const visitByStack = (root: unknown, byKey: boolean, rootPaths: Paths): unknown => {
		const text = textNow();
		const holder: unknown[] = [];
		const stack: Frame[] = [{ value: root, paths: rootPaths, target: holder, key: 0 }];
		const copies = new Map<object, Frame['target']>();
		while (stack.length > 0) {
			const { value, paths: pathsHere, target, key } = stack.pop()!;
			let visited: unknown = value;
			if (pathsHere.some((path) => path.length === 0)) visited = REDACTED;
			else if (typeof value === 'string')
				visited = text(byKey ? withKeysHiddenInJsonText(value) : value);
			else if (isScalar(value)) {
				// A key stored as a number (a PIN, an account number) is hidden as text.
				if (text(String(value)) !== String(value)) visited = REDACTED;
			} else if (
				pathsHere.length === 0 &&
				value !== null &&
				typeof value === 'object' &&
				copies.has(value)
			)
				visited = copies.get(value);
			else if (value !== null && typeof value === 'object') {
				const isArray = Array.isArray(value);
				const keys = isArray ? undefined : Object.keys(value);
				// A secret used as a key is hidden as the key's text is.
				const hiddenKeys = keys?.map(text);
				const container = isArray ? new Array<unknown>(value.length) : {};
				// Keys first, in their order: the walk fills them in later, last first.
				hiddenKeys?.forEach((hiddenKey) => setOwn(container, hiddenKey, undefined));
				visited = container;
				// Paths make a copy depend on where the object is met: then it is not shared.
				if (pathsHere.length === 0) copies.set(value, container);
				const count = keys ? keys.length : (value as unknown[]).length;
				for (let index = count - 1; index >= 0; index--) {
					const innerKey = keys ? keys[index] : String(index);
					const inner = (value as Record<string, unknown>)[innerKey];
					const childKey = hiddenKeys ? hiddenKeys[index] : index;
					if (byKey && typeof inner === 'string' && secretKey(innerKey)) {
						setOwn(container, childKey, REDACTED);
						continue;
					}
					stack.push({
						value: inner,
						paths: deeperPaths(pathsHere, innerKey),
						target: container,
						key: childKey,
					});
				}
			}
			setOwn(target, key, visited);
		}
		return holder[0];
	};
	/** JSON held as text, with the values of its secret keys hidden; other text as it is. */
	const withKeysHiddenInJsonText = (value: string): string => {
		const trimmed = value.trimStart();
		if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
		let parsed: unknown;
		try {
			parsed = JSON.parse(value);
		} catch {
			return value;
		}
		const hidden = jsonText(visit(parsed, true, NO_PATHS));
		return hidden === jsonText(parsed) ? value : (hidden as string);
	};
	/**
	 * Whether any text in the value holds a secret, walked without copying: first by recursion,
	 * the fast way for what items are (a tree of modest depth); a value deeper than that, or with
	 * more parts than any item has (shared objects met again and again, a cycle), is walked again
	 * without recursion, each object once.
	 */
	const holdsSecret = (
		root: unknown,
		matchers = matchersNow(),
		searched?: WeakSet<object>,
	): boolean => {
		if (!matchers) return false;
		const found = (text: string) =>
			text.length >= matchers.shortest && text.search(matchers.text) !== -1;
		return foundByRecursion(root, found, searched) ?? foundByStack(root, found);
	};
	return {
		// A value without secrets comes back as it is, not copied: n8n stores the objects that
		// items of successive nodes share once, which keeps long conversations' executions small.
		values: (value) =>
			holdsSecret(value) ? (visit(value, false, NO_PATHS) as typeof value) : value,
		all: (value) => visit(value, true, paths) as typeof value,
		adjacent: (texts) => {
			const matchers = matchersNow();
			return matchers ? hiddenAcross(texts, matchers.text) : [...texts];
		},
		foundIn: (bytes) => {
			const matchers = matchersNow();
			return matchers ? matchers.bytes.test(bytes.toString('latin1')) : false;
		},
		valuesOfItems: () => {
			let searchedFor: SecretMatchers | undefined;
			let searched = new WeakSet<object>();
			return (value) => {
				const matchers = matchersNow();
				if (matchers !== searchedFor) [searchedFor, searched] = [matchers, new WeakSet()];
				return holdsSecret(value, matchers, searched)
					? (visit(value, false, NO_PATHS) as typeof value)
					: value;
			};
		},
	};
}

/** Secret values and the default secret keys: what the model and MCP layers apply to what they record. */
export function redact<T>(value: T, secrets: readonly string[]): T {
	return createRedactor({ secrets }).all(value);
}

/**
 * `make` for a list of strings, its results kept for the last 32 lists: what is made from the
 * secrets or key rules of a node costs far more than using it, and nodes make a redactor per item.
 */
export function keptForRecentLists<T>(
	make: (list: readonly string[]) => T,
): (list: readonly string[]) => T {
	const kept = new Map<string, T>();
	return (list) => {
		const key = JSON.stringify(list);
		if (kept.has(key)) return kept.get(key) as T;
		const made = make(list);
		if (kept.size >= 32) kept.delete(kept.keys().next().value!);
		kept.set(key, made);
		return made;
	};
}

/** The matchers of a list of secrets (undefined when none is long enough to be one). */
export const matchersFor = keptForRecentLists(secretMatchers);

/** The matchers of the secrets as they are now; a live list is compiled again only when it changed. */
function liveMatchers(secrets: Secrets): () => SecretMatchers | undefined {
	if (typeof secrets !== 'function') {
		const fixed = matchersFor(secrets);
		return () => fixed;
	}
	let seen: readonly string[] | undefined;
	let matchers: SecretMatchers | undefined;
	return () => {
		const list = secrets();
		const changed =
			seen === undefined ||
			list.length !== seen.length ||
			list.some((secret, index) => secret !== seen![index]);
		if (changed) [seen, matchers] = [[...list], matchersFor(list)];
		return matchers;
	};
}

function hiddenAcross(texts: readonly string[], pattern: RegExp): string[] {
	const joined = texts.join('');
	const spans = [...joined.matchAll(pattern)].map(
		(match) => [match.index, match.index + match[0].length] as const,
	);
	let start = 0;
	return texts.map((part) => {
		const end = start + part.length;
		let hidden = '';
		let at = start;
		for (const [from, to] of spans) {
			if (to <= start || from >= end) continue;
			hidden += joined.slice(at, Math.max(from, start)) + REDACTED;
			at = Math.min(to, end);
		}
		hidden += joined.slice(at, end);
		start = end;
		return hidden;
	});
}

type TextTest = (text: string) => boolean;

/** The paths that go on under this key. */
function deeperPaths(paths: Paths, key: string): Paths {
	if (paths.length === 0) return NO_PATHS;
	return paths.filter((path) => path[0] === '*' || path[0] === key).map((path) => path.slice(1));
}

/** Thrown by a walk by recursion that meets a value too deep or too large for it. */
const TOO_LARGE_TO_RECURSE = Symbol('too large to recurse');

/** What the walks by recursion take at most: deeper or larger values take the stack. */
const RECURSION_DEPTH = 200;
const RECURSION_PARTS = 200_000;

/** How deep below the root the objects found clean are remembered: an item's lists and what they hold. */
const REMEMBERED_DEPTH = 2;

/**
 * Whether a text of the value passes the test; undefined when the value is too deep or too large
 * to tell this way. Objects in `searched` are known to pass nowhere; those of the first levels
 * found so are added.
 */
function foundByRecursion(
	root: unknown,
	found: TextTest,
	searched?: WeakSet<object>,
): boolean | undefined {
	let parts = 0;
	const walkInside = (value: object, depth: number): boolean | undefined => {
		if (Array.isArray(value)) {
			for (const inner of value) {
				const verdict = walk(inner, depth + 1);
				if (verdict !== false) return verdict;
			}
			return false;
		}
		// for…in reads keys without making an array of them: the larger part of the walk's cost.
		for (const key in value) {
			if (found(key)) return true;
			const verdict = walk((value as Record<string, unknown>)[key], depth + 1);
			if (verdict !== false) return verdict;
		}
		return false;
	};
	const walk = (value: unknown, depth: number): boolean | undefined => {
		if (typeof value === 'string') return found(value);
		if (isScalar(value)) return found(String(value));
		if (value === null || typeof value !== 'object') return false;
		if (depth > RECURSION_DEPTH || ++parts > RECURSION_PARTS) return undefined;
		if (!searched || depth === 0 || depth > REMEMBERED_DEPTH) return walkInside(value, depth);
		if (searched.has(value)) return false;
		const verdict = walkInside(value, depth);
		if (verdict === false) searched.add(value);
		return verdict;
	};
	return walk(root, 0);
}

/** Whether a text of the value passes the test, each object walked once, without recursion: any depth, any sharing. */
function foundByStack(root: unknown, found: TextTest): boolean {
	const stack = [root];
	const seen = new Set<object>();
	while (stack.length > 0) {
		const value = stack.pop();
		if (typeof value === 'string') {
			if (found(value)) return true;
		} else if (isScalar(value)) {
			if (found(String(value))) return true;
		} else if (value !== null && typeof value === 'object' && !seen.has(value)) {
			seen.add(value);
			if (Array.isArray(value)) for (const inner of value) stack.push(inner);
			else
				for (const key of Object.keys(value)) {
					if (found(key)) return true;
					stack.push((value as Record<string, unknown>)[key]);
				}
		}
	}
	return false;
}

/** Numbers, booleans and bigints: values whose text can be a secret too. */
function isScalar(value: unknown): value is number | boolean | bigint {
	return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint';
}

/** An own property even for `__proto__`, which plain assignment would take for the prototype. */
function setOwn(target: Frame['target'], key: string | number, value: unknown): void {
	if (key === '__proto__')
		Object.defineProperty(target, key, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	else (target as Record<string, unknown>)[key] = value;
}

/**
 * Whether a key names a secret under these key rules. The verdicts are kept per list of rules,
 * for every redactor of that list: nodes make a redactor per item, and the keys recur.
 */
const secretKeyTest = keptForRecentLists((keys): ((key: string) => boolean) => {
	const keyRules = keys.map(words).filter((rule) => rule.length > 0);
	const verdicts = new Map<string, boolean>();
	return (key) => {
		let known = verdicts.get(key);
		if (known === undefined) {
			const keyWords = words(key);
			known = keyRules.some((rule) => containsRun(keyWords, rule));
			if (verdicts.size < 10_000) verdicts.set(key, known);
		}
		return known;
	};
});

/** `x-api-key` → [x, api, key]; `apiKey` → [api, key]; `API_KEY` → [api, key]. */
function words(key: string): string[] {
	return key
		.replace(/([a-z0-9])([A-Z])/g, '$1_$2')
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((word) => word !== '');
}

function containsRun(haystack: string[], run: string[]): boolean {
	for (let start = 0; start + run.length <= haystack.length; start++) {
		if (run.every((word, offset) => haystack[start + offset] === word)) return true;
	}
	return false;
}
