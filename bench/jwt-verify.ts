// Cost of one access-token verification (the work the token check does on every protected request), and
// of one signing, with jsonwebtoken given the secret as a string versus as a KeyObject.
// Run: npx tsx bench/jwt-verify.ts   (prints figures; asserts nothing)
import { createSecretKey, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TokenService } from '../src/auth/tokens';

const secret = randomBytes(48).toString('base64url');
const key = createSecretKey(Buffer.from(secret));
const claims = { sub: 'user-1', role: 'user', typ: 'access' };

/** Mean microseconds per call over `iterations`, after a warm-up of a tenth as many. */
function measure(label: string, iterations: number, run: () => unknown): number {
  for (let i = 0; i < iterations / 10; i++) run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) run();
  const micros = Number(process.hrtime.bigint() - start) / 1e3 / iterations;
  console.log(`${label.padEnd(44)} ${micros.toFixed(1).padStart(8)} µs/call  (${iterations} calls)`);
  return micros;
}

const stringToken = jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: 900 });
const keyToken = jwt.sign(claims, key, { algorithm: 'HS256', expiresIn: 900 });
const service = new TokenService({
  accessSecret: secret,
  refreshSecret: `${secret}-refresh`,
  accessTtlSeconds: 900,
  refreshTtlSeconds: 604_800,
  issuer: 'bench',
  audience: 'bench',
});
const serviceToken = service.signAccessToken({ id: 'user-1', role: 'user', sessionVersion: 0 });

console.log(`node ${process.version}, jsonwebtoken HS256`);
const verifyString = measure('verify, string secret', 2_000, () =>
  jwt.verify(stringToken, secret, { algorithms: ['HS256'] }),
);
const verifyKey = measure('verify, KeyObject', 20_000, () => jwt.verify(keyToken, key, { algorithms: ['HS256'] }));
measure('TokenService.verifyAccessToken, remembered', 20_000, () => service.verifyAccessToken(serviceToken));
// A refresh presents a token this process may not have seen (the first refresh of a session): fresh ones each call.
const session = {
  userId: 'user-1',
  sessionVersion: 0,
  proof: { authTime: Math.floor(Date.now() / 1000), amr: ['pwd'] },
};
const freshRefreshTokens = Array.from({ length: 22_000 }, () => service.signRefreshToken(session).token);
let next = 0;
measure('TokenService.verifyRefreshToken, first time', 20_000, () =>
  service.verifyRefreshToken(freshRefreshTokens[next++]!),
);
measure('TokenService.verifyRefreshToken, remembered', 20_000, () =>
  service.verifyRefreshToken(freshRefreshTokens[0]!),
);
measure('TokenService.signAccessToken', 20_000, () =>
  service.signAccessToken({ id: 'user-1', role: 'user', sessionVersion: 0, proof: session.proof }),
);
const signString = measure('sign, string secret', 2_000, () =>
  jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: 900 }),
);
const signKey = measure('sign, KeyObject', 20_000, () => jwt.sign(claims, key, { algorithm: 'HS256', expiresIn: 900 }));
console.log(
  `verify: KeyObject is ${(verifyString / verifyKey).toFixed(0)}x faster; sign: ${(signString / signKey).toFixed(0)}x faster`,
);
