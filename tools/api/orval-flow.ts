// orval's fetch client (generated/orval/api.ts, `npm run client`) against the service: every answer is a union
// discriminated by `status`, so checking the status is all a caller does before reading the body, the 422's
// field errors included (`errors` is required, at least one, on that status only). Type-checked under
// `tsc --strict` (tsconfig.json here), no casts, no `!`; run by scripts/ci/api-document.sh:
//   API_BASE_URL=http://127.0.0.1:<port> node tools/api/orval-flow.ts
import { getNotes, getUsersMe, postAuthLogin, postAuthRegister, postNotes } from './generated/orval/api.ts';
import { followShortPages } from './search-pages.ts';

const email = `orval-${Date.now()}@example.com`;
const password = 'orval client harbour lantern 9';

const registered = await postAuthRegister({ name: 'Orval', email, password });
// 202 with a message for a new and a taken address alike: mail and email verification are on here, as in the committed document.
if (registered.status !== 202) throw new Error(`register: ${registered.status} ${'message' in registered.data ? registered.data.message : ''}`);
if (!registered.data.data.message) throw new Error('register: no message in the 202');

const invalid = await postAuthLogin({ email: 'not-an-email', password: '' });
if (invalid.status !== 422) throw new Error(`an invalid login answered ${invalid.status}, not 422`);
const fields: string[] = invalid.data.errors.map((error) => error.field); // the status check is the only guard
if (!fields.includes('email') || !fields.includes('password')) throw new Error(`422 fields: ${fields.join(', ')}`);

const login = await postAuthLogin({ email, password });
if (login.status !== 200) throw new Error(`login: ${login.status} ${login.data.message}`);
const session = login.data.data;
if ('mfaRequired' in session) throw new Error('login: a second factor was asked of a user without one');
const me = await getUsersMe({ headers: { Authorization: `Bearer ${session.accessToken}` } });
if (me.status !== 200) throw new Error(`me: ${me.status} ${me.data.message}`);
if (me.data.data.email !== email) throw new Error('me: not the registered user');

const anonymous = await getUsersMe();
if (anonymous.status !== 401) throw new Error(`me without a token answered ${anonymous.status}`);

// A search's short pages followed to the end (search-pages.ts): `scanCapped` read from the generated type.
const headers = { Authorization: `Bearer ${session.accessToken}` };
const search = await followShortPages({
  name: 'orval',
  async create(title) {
    const created = await postNotes({ title }, { headers });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.data.message}`);
  },
  async page(query) {
    const page = await getNotes(query, { headers });
    if (page.status !== 200) throw new Error(`search: ${page.status} ${page.data.message}`);
    const { items, nextCursor, scanCapped } = page.data.data;
    return { titles: items.map((note) => note.title), nextCursor, scanCapped };
  },
});
console.log(`orval flow: 202 register, 422 (${fields.join(', ')}), 200 login, 200 me, 401 without a token; ${search}`);
