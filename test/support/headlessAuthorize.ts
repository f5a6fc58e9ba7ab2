/**
 * Stands in for the person at the browser where the authorization server approves at once (the
 * test server, the conformance suite's): follows the authorization URL and returns the code from the
 * redirect it answers with.
 */
export async function headlessAuthorize(authorizationUrl: URL): Promise<string> {
	const response = await fetch(authorizationUrl, {
		redirect: 'manual',
		signal: AbortSignal.timeout(10_000),
	});
	await response.body?.cancel();
	const location = response.headers.get('location');
	if (!location) {
		throw new Error(`The authorization endpoint answered ${response.status} without a redirect`);
	}
	const code = new URL(location, authorizationUrl).searchParams.get('code');
	if (!code) throw new Error(`The authorization redirect carries no code: ${location}`);
	return code;
}
