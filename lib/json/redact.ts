const REDACTED = '[redacted]';
/** Shorter values ("1", "true", "prod") are settings, not secrets; hiding them would garble text. */
const MIN_SECRET_LENGTH = 6;

/** Header and field names whose values are credentials, whatever their value looks like. */
const SECRET_KEYS = /^(authorization|proxy-authorization|x-api-key|api-key|apikey|api_key|cookie|set-cookie|x-goog-api-key|openai-organization)$/i;

/**
 * A deep copy of `value` with every occurrence of the given secret strings replaced, and the
 * values of well-known credential keys hidden. Applied to everything that leaves a node as a
 * trace or an error text.
 */
export function redact<T>(value: T, secrets: readonly string[]): T {
	const needles = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
	const visit = (inner: unknown): unknown => {
		if (typeof inner === 'string') return needles.reduce((text, secret) => text.split(secret).join(REDACTED), inner);
		if (Array.isArray(inner)) return inner.map(visit);
		if (inner === null || typeof inner !== 'object') return inner;
		return Object.fromEntries(
			Object.entries(inner).map(([key, field]) => [key, SECRET_KEYS.test(key) ? REDACTED : visit(field)]),
		);
	};
	return visit(value) as T;
}
