// @hey-api/openapi-ts's fetch client (generated/hey-api/, `npm run client`) against the service. Its result
// types `error` as the union of the operation's error bodies whatever the status (upstream: hey-api/hey-api
// issue 495), so after the status check one body check, `'errors' in error`, tells the 422 from the rest:
// the fail envelope has no `errors` at all and the validation one requires it, so that is all it takes.
// Type-checked under `tsc --strict` (tsconfig.json here), no casts, no `!`; run by scripts/ci/api-document.sh:
//   API_BASE_URL=http://127.0.0.1:<port> npx tsx tools/api/hey-api-flow.ts
import { client } from './generated/hey-api/client.gen.js';
import { getNotes, getUsersMe, postAuthLogin, postAuthRegister, postNotes } from './generated/hey-api/sdk.gen.js';
import { followShortPages } from './search-pages.ts';

client.setConfig({ baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:3000' });
const email = `hey-api-${Date.now()}@example.com`;
const password = 'hey api client quarry lantern 4';

const registered = await postAuthRegister({ body: { name: 'Hey', email, password } });
if (registered.error) throw new Error(`register: ${registered.response?.status} ${registered.error.message}`);
const accepted: string = registered.data.data.message; // 202 alike for new and taken addresses (email verification on, as documented)
if (!accepted) throw new Error('register: no message in the 202');

const invalid = await postAuthLogin({ body: { email: 'not-an-email', password: '' } });
if (invalid.response?.status !== 422 || !invalid.error || !('errors' in invalid.error)) throw new Error(`an invalid login answered ${invalid.response?.status}, not a 422 with fields`);
const fields: string[] = invalid.error.errors.map((error) => error.field);
if (!fields.includes('email') || !fields.includes('password')) throw new Error(`422 fields: ${fields.join(', ')}`);

const login = await postAuthLogin({ body: { email, password } });
if (login.error) throw new Error(`login: ${login.response?.status} ${login.error.message}`);
const session = login.data.data;
if ('mfaRequired' in session) throw new Error('login: a second factor was asked of a user without one');
const me = await getUsersMe({ headers: { Authorization: `Bearer ${session.accessToken}` } });
if (me.error) throw new Error(`me: ${me.response?.status} ${me.error.message}`);
if (me.data.data.email !== email) throw new Error('me: not the registered user');

// A search's short pages followed to the end (search-pages.ts): `scanCapped` read from the generated type.
const headers = { Authorization: `Bearer ${session.accessToken}` };
const search = await followShortPages({
  name: 'hey-api',
  async create(title) {
    const created = await postNotes({ headers, body: { title } });
    if (created.error) throw new Error(`create: ${created.response?.status} ${created.error.message}`);
  },
  async page(query) {
    const page = await getNotes({ headers, query });
    if (page.error) throw new Error(`search: ${page.response?.status} ${page.error.message}`);
    const { items, nextCursor, scanCapped } = page.data.data;
    return { titles: items.map((note) => note.title), nextCursor, scanCapped };
  },
});
console.log(`hey-api flow: 202 register, 422 (${fields.join(', ')}), 200 login, 200 me; ${search}`);
