import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AMR, proofsOf, signsIn, type AccountMethods } from '../../src/auth/owner-proof/proofs';

// docs/authentication.md, "Proving the owner again", against the code: the proofs each kind of account can give
// are what the rule derives (proofsOf), a body that counts signs the account in (signsIn) and a kind with none has
// no body that would, and the changes the section lists are the operations of the API document behind the gate.

const docs = readFileSync(path.join(__dirname, '../../docs/authentication.md'), 'utf8');
const document = JSON.parse(readFileSync(path.join(__dirname, '../../openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>>;
};
const section = docs.slice(docs.indexOf('### Proving the owner again'), docs.indexOf('### The flow with curl'));
const rows = (table: string) =>
  table
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('|---'))
    .slice(1)
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, '').trim()));
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

const KINDS: Record<string, AccountMethods> = {
  'a password': { password: true, secondFactor: false, passkeys: 0, providers: [] },
  'a password and TOTP': { password: true, secondFactor: true, passkeys: 0, providers: [] },
  'a passkey only': { password: false, secondFactor: false, passkeys: 1, providers: [] },
  'a provider only': { password: false, secondFactor: false, passkeys: 0, providers: ['<name>'] },
  'a password and a passkey': { password: true, secondFactor: false, passkeys: 1, providers: [] },
};
/** The methods a body's fields claim: a password, a code or a recovery code. */
const bodyAmr = (body: string) => [
  ...(/password/i.test(body) ? [AMR.password] : []),
  ...(/code|recoveryCode/.test(body) ? [AMR.oneTimeCode] : []),
];

describe('docs/authentication.md: the proof of the owner', () => {
  const table = section.slice(
    section.indexOf('<!-- owner-proof-table -->'),
    section.indexOf('<!-- /owner-proof-table -->'),
  );

  it('lists, for each kind of account, the proofs the rule derives', () => {
    const listed = rows(table);
    expect(listed.map(([kind]) => kind)).toEqual(Object.keys(KINDS));
    for (const [kind, proofs] of listed) expect([kind, ticked(proofs!)]).toEqual([kind, proofsOf(KINDS[kind!]!)]);
  });

  it('names a body only where it signs the account in, and none where nothing typed would', () => {
    for (const [kind, , bodies] of rows(table)) {
      const account = KINDS[kind!]!;
      const named = ticked(bodies!).filter((body) => body.startsWith('{'));
      for (const body of named) expect([kind, body, signsIn(bodyAmr(body), account)]).toEqual([kind, body, true]);
      if (named.length === 0)
        for (const body of ['{password}', '{password, code}'])
          expect([kind, body, signsIn(bodyAmr(body), account)]).toEqual([kind, body, false]);
    }
  });

  it('lists exactly the operations of the API document that ask for the proof', () => {
    const gated = Object.entries(document.paths).flatMap(([route, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) =>
          operation.responses?.['401']?.description?.includes("No recent proof of the account's owner"),
        )
        .map(([method]) => `${method.toUpperCase()} ${route}`),
    );
    const changes = rows(section.slice(0, section.indexOf('<!-- owner-proof-table -->'))).map(
      ([, route]) => ticked(route!)[0]!,
    );
    expect([...changes].sort()).toEqual([...gated].sort());
  });
});
