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
 * Schemes whose token a server may repeat on its own, whatever header carries them
 * (`X-Authorization: Bearer …`, Discord's `Bot …`).
 */
const TOKEN_SCHEME = /^(bearer|token|basic|bot|apikey|api-key|key)\s+(\S+)$/i;

/**
 * The values of a credential's headers that must never appear in an output or a log. A value is
 * hidden as HTTP sends it too, without the spaces or line end pasted around it; of
 * "Authorization: <scheme> <token>" the token on its own, as a server may repeat it bare; of Basic
 * credentials the `user:password` they encode and the password.
 */
export function headerSecrets(headers: Record<string, string>): string[] {
	return Object.entries(headers).flatMap(([name, value]) => {
		if (NOT_SECRET.has(name.toLowerCase())) return [];
		const sent = value.trim();
		const token = /^(proxy-)?authorization$/i.test(name)
			? sent.replace(/^\S+\s+/, '')
			: keyLike(sent.match(TOKEN_SCHEME)?.[2]);
		const basic = /^basic\s/i.test(sent) && token ? basicCredentials(token) : [];
		return [...new Set([value, sent, ...(token ? [token] : []), ...basic])];
	});
}

/**
 * A token after a scheme word in a header not meant for credentials, when it looks like one: a
 * short word of letters alone (`X-Client: Bot Support`) is a name, and hiding it would garble every
 * text; a key has other characters, or is long.
 */
function keyLike(token: string | undefined): string | undefined {
	return token !== undefined && (/[^A-Za-z]/.test(token) || token.length >= 16) ? token : undefined;
}

/** `user:password` and the password, from the base64 of Basic credentials; none when it is not that. */
function basicCredentials(token: string): string[] {
	const decoded = Buffer.from(token, 'base64').toString('utf8');
	const colon = decoded.indexOf(':');
	const wellFormed = /^[A-Za-z0-9+/]+=*$/.test(token) && colon >= 0 && !decoded.includes('\uFFFD');
	return wellFormed ? [decoded, decoded.slice(colon + 1)].filter((part) => part !== '') : [];
}
