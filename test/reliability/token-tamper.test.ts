import fc from 'fast-check';
import request from 'supertest';
import { startLiveApp, type LiveApp } from './support/live-app';
import { assertWellFormed } from './support/well-formed';

// Property: a token with any single byte changed is refused with 401, whether the change hits the
// header, the claims or the signature, and whatever the new byte is. Access tokens are tried as the
// Bearer credential (a protected probe route and logout); refresh tokens as the cookie on /refresh.
// Every position is tried once exhaustively; fast-check adds random (position, byte) pairs on top.

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

/** Bytes that can travel in a header value: visible ASCII and obs-text (space and tab would only split the value). */
const replacementByte = fc.oneof(fc.integer({ min: 0x21, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }));

function changeByte(token: string, index: number, byte: number): string | undefined {
  if (token.charCodeAt(index) === byte) return undefined; // not a change
  return token.slice(0, index) + String.fromCharCode(byte) + token.slice(index + 1);
}

/** A different base64url character at the same place (the exhaustive pass: always a change, always plausible). */
function neighbour(token: string, index: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const at = alphabet.indexOf(token[index]);
  const replacement = at === -1 ? 'A' : alphabet[(at + 1) % alphabet.length];
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe('tampered tokens are always refused with 401', () => {
  let live: LiveApp;
  let accessToken: string;
  let refreshToken: string;
  const client = () => request(live.base);

  const expectBearerRefused = async (token: string, alsoLogout = true) => {
    const me = await client().get('/api/probe/me').set('Authorization', `Bearer ${token}`);
    assertWellFormed(me, 'GET');
    expect(me.status).toBe(401);
    if (!alsoLogout) return;
    const logout = await client().post('/api/auth/logout').set('Authorization', `Bearer ${token}`);
    assertWellFormed(logout, 'POST');
    expect(logout.status).toBe(401);
  };

  const expectRefreshRefused = async (token: string) => {
    const res = await client().post('/api/auth/refresh').set('Cookie', `refreshToken=${token}`);
    assertWellFormed(res, 'POST');
    expect(res.status).toBe(401);
  };

  beforeAll(async () => {
    live = await startLiveApp();
    const login = await client()
      .post('/api/auth/login')
      .send({ email: 'demo@example.com', password: 'demo-password' })
      .expect(200);
    accessToken = login.body.data.accessToken;
    const cookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('refreshToken='));
    refreshToken = /^refreshToken=([^;]*)/.exec(cookie ?? '')![1];
  });
  afterAll(() => live?.close());

  it('the untouched tokens work (so a refusal below is the tampering, not the setup)', async () => {
    await client().get('/api/probe/me').set('Authorization', `Bearer ${accessToken}`).expect(200);
    const refreshed = await client()
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${refreshToken}`)
      .expect(200);
    expect(typeof refreshed.body.data.accessToken).toBe('string');
  });

  it('access token: every position changed, as Bearer on a protected route', async () => {
    for (let index = 0; index < accessToken.length; index += 1)
      await expectBearerRefused(neighbour(accessToken, index), false);
  });

  it('refresh token: every position changed, as the cookie', async () => {
    for (let index = 0; index < refreshToken.length; index += 1)
      await expectRefreshRefused(neighbour(refreshToken, index));
  });

  it('access token: any byte at any position, on a protected route and on logout', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), replacementByte, async (position, byte) => {
        const tampered = changeByte(accessToken, position % accessToken.length, byte);
        if (tampered) await expectBearerRefused(tampered);
      }),
      { numRuns: 50, seed },
    );
  });

  it('refresh token: any byte at any position', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), replacementByte, async (position, byte) => {
        const tampered = changeByte(refreshToken, position % refreshToken.length, byte);
        if (tampered) await expectRefreshRefused(tampered);
      }),
      { numRuns: 80, seed },
    );
  });
});
