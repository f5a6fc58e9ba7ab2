/**
 * Headers whose values say who calls or how, never who may: an app's name for a gateway's ranking
 * (OpenRouter's X-Title, HTTP-Referer), API versions and betas, an organization or project id.
 * Hiding them would rewrite every text that names the app ("My Support Bot"); any other header a
 * credential sets may carry a key, whatever its name (Ocp-Apim-Subscription-Key), and is a secret.
 */
const NOT_SECRET = new Set([
	'accept',
	'accept-language',
	'content-type',
	'user-agent',
	'referer',
	'http-referer',
	'x-title',
	'openai-organization',
	'openai-project',
	'openai-beta',
	'anthropic-version',
	'anthropic-beta',
	'mcp-protocol-version',
]);

/**
 * The values of a credential's headers that must never appear in an output or a log; of
 * "Authorization: Bearer <token>" the token on its own too, as a server may repeat it bare.
 */
export function headerSecrets(headers: Record<string, string>): string[] {
	return Object.entries(headers).flatMap(([name, value]) => {
		if (NOT_SECRET.has(name.toLowerCase())) return [];
		return /^(proxy-)?authorization$/i.test(name) ? [value, value.replace(/^\S+\s+/, '')] : [value];
	});
}
