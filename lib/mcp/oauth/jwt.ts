import { createPrivateKey, randomUUID, sign, constants, type KeyObject } from 'node:crypto';

/** The algorithms a client assertion may be signed with (RFC 7518), by what signs them. */
const ALGORITHMS = {
	RS256: { keyType: 'rsa', hash: 'sha256' },
	RS384: { keyType: 'rsa', hash: 'sha384' },
	RS512: { keyType: 'rsa', hash: 'sha512' },
	PS256: { keyType: 'rsa', hash: 'sha256', pss: true },
	ES256: { keyType: 'ec', hash: 'sha256', curve: 'prime256v1' },
	ES384: { keyType: 'ec', hash: 'sha384', curve: 'secp384r1' },
	EdDSA: { keyType: 'ed25519', hash: null },
} as const satisfies Record<
	string,
	{ keyType: string; hash: string | null; pss?: boolean; curve?: string }
>;

export type JwtAlgorithm = keyof typeof ALGORITHMS;
export const JWT_ALGORITHMS = Object.keys(ALGORITHMS) as JwtAlgorithm[];

/** A private key read from PEM, checked to fit the algorithm it signs with. */
export interface SigningKey {
	key: KeyObject;
	algorithm: JwtAlgorithm;
}

/**
 * Reads a PEM private key (PKCS#8, PKCS#1 or SEC1) for `algorithm`. Its errors say what is wrong
 * with the key, never what it holds.
 */
export function signingKey(pem: string, algorithm: string): SigningKey {
	if (!(algorithm in ALGORITHMS)) {
		throw new Error(
			`The signing algorithm "${algorithm}" is not one of ${JWT_ALGORITHMS.join(', ')}`,
		);
	}
	const wanted = ALGORITHMS[algorithm as JwtAlgorithm];
	let key: KeyObject;
	try {
		key = createPrivateKey({ key: pem.trim(), format: 'pem' });
	} catch {
		throw new Error(
			'The private key could not be read: paste it whole as PEM, from "-----BEGIN PRIVATE KEY-----" to its END line (an encrypted key is not supported)',
		);
	}
	const curve = key.asymmetricKeyDetails?.namedCurve;
	if (key.asymmetricKeyType !== wanted.keyType || ('curve' in wanted && curve !== wanted.curve)) {
		const held = `${key.asymmetricKeyType?.toUpperCase() ?? 'unknown'}${curve ? ` (${curve})` : ''}`;
		throw new Error(
			`The private key is an ${held} key, which cannot sign ${algorithm}: choose the algorithm that fits the key (RSA: RS256…, P-256: ES256, P-384: ES384, Ed25519: EdDSA)`,
		);
	}
	return { key, algorithm: algorithm as JwtAlgorithm };
}

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

/** A JWT signed with the key: the header names its algorithm, the claims are as given. */
function signJwt(
	{ key, algorithm }: SigningKey,
	claims: Record<string, unknown>,
	header: Record<string, unknown> = {},
): string {
	const input = `${base64url(JSON.stringify({ alg: algorithm, typ: 'JWT', ...header }))}.${base64url(JSON.stringify(claims))}`;
	const how = ALGORITHMS[algorithm];
	const signature = sign(how.hash, Buffer.from(input), {
		key,
		...(how.keyType === 'ec' && { dsaEncoding: 'ieee-p1363' as const }),
		...('pss' in how && {
			padding: constants.RSA_PKCS1_PSS_PADDING,
			saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
		}),
	});
	return `${input}.${base64url(signature)}`;
}

/** How long a client assertion stands (RFC 7523 asks for a short life). */
const ASSERTION_SECONDS = 60;

/**
 * A client assertion for private_key_jwt (RFC 7523 section 2.2): the client is its issuer and
 * subject, the authorization server its audience; a fresh id each time, so none is replayed.
 */
export function clientAssertion(key: SigningKey, clientId: string, audience: string): string {
	const now = Math.floor(Date.now() / 1000);
	return signJwt(key, {
		iss: clientId,
		sub: clientId,
		aud: audience,
		iat: now,
		exp: now + ASSERTION_SECONDS,
		jti: randomUUID(),
	});
}

/** When a JWT expires (ms since 1970), read without checking its signature; undefined if it says not. */
export function jwtExpiry(token: string): number | undefined {
	try {
		const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
			exp?: unknown;
		};
		return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
	} catch {
		return undefined;
	}
}

/** The base64 body of a PEM key: a server that echoes the key may leave its armour off. */
export function pemBody(pem: string): string {
	return pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
}
