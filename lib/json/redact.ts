const REDACTED = '[redacted]';
/** Shorter values ("1", "true", "prod") are settings, not secrets; hiding them would garble text. */
const MIN_SECRET_LENGTH = 6;

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

export interface RedactionRules {
	/** Values hidden wherever they appear, inside any text: the secrets of the credentials in use. */
	secrets: readonly string[];
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
}

export function createRedactor(rules: RedactionRules): Redactor {
	const needles = [
		...new Set(rules.secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH)),
	].sort((a, b) => b.length - a.length);
	const keyRules = (rules.keys ?? DEFAULT_SECRET_KEYS).map(words).filter((rule) => rule.length > 0);
	const paths = (rules.paths ?? []).map((path) => path.split('.').filter((part) => part !== ''));
	const text = (value: string) =>
		needles.reduce((hidden, secret) => hidden.split(secret).join(REDACTED), value);
	const secretKey = (key: string) => {
		const keyWords = words(key);
		return keyRules.some((rule) => containsRun(keyWords, rule));
	};

	const visit = (value: unknown, byKey: boolean, pathsHere: string[][]): unknown => {
		if (pathsHere.some((path) => path.length === 0)) return REDACTED;
		if (typeof value === 'string') return text(byKey ? withKeysHiddenInJsonText(value) : value);
		if (value === null || typeof value !== 'object') return value;
		const entries: Array<[string, unknown]> = Array.isArray(value)
			? value.map((inner, index) => [String(index), inner])
			: Object.entries(value);
		const visited = entries.map(([key, inner]): [string, unknown] => {
			const deeper = pathsHere
				.filter((path) => path[0] === '*' || path[0] === key)
				.map((path) => path.slice(1));
			const hidden = byKey && typeof inner === 'string' && secretKey(key);
			return [key, hidden ? REDACTED : visit(inner, byKey, deeper)];
		});
		return Array.isArray(value) ? visited.map(([, inner]) => inner) : Object.fromEntries(visited);
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
		const hidden = visit(parsed, true, []);
		return JSON.stringify(hidden) === JSON.stringify(parsed) ? value : JSON.stringify(hidden);
	};
	return {
		values: (value) => visit(value, false, []) as typeof value,
		all: (value) => visit(value, true, paths) as typeof value,
	};
}

/** Secret values and the default secret keys: what the model and MCP layers apply to what they record. */
export function redact<T>(value: T, secrets: readonly string[]): T {
	return createRedactor({ secrets }).all(value);
}

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
