import { Sequelize } from 'sequelize';
import { defineResource, field } from '../../src/modules/kit';
import { unportablePattern } from '../../src/stores/kit/portable-pattern';
import { checkExpression } from '../../src/stores/sql/migrations/check-constraints';
import { testEngines, type StartedEngine } from '../support/engines';

// A pattern JavaScript reads but PostgreSQL cannot (or reads otherwise) is refused by the declaration, naming
// PostgreSQL, before a migration ever reaches a deploy: SQLite holds no pattern, so the tests would pass.
// On a real PostgreSQL, each form named "cannot read" is refused by `~`; it and MariaDB read the forms left alone.

const REFUSED = ['^\\p{Lu}[a-z]+$', '^\\P{L}$', '^(?<word>[a-z]+)$', '^(?<one>a)\\k<one>$', '^\\u{41}$'];
const MEANT_OTHERWISE = ['\\bcat\\b', 'a\\Bb'];
const PORTABLE = ['^[A-Z]{3}$', '^\\d{2,4}-[a-z]+$', '^(?=a)a+$', '^x(?<=x)$', '^\\\\p$', '^(a|b)\\1$'];

describe('patterns every engine reads alike', () => {
  it('names each form PostgreSQL cannot read or reads otherwise, and leaves the portable ones', () => {
    for (const pattern of [...REFUSED, ...MEANT_OTHERWISE]) {
      const named = unportablePattern(pattern);
      expect([pattern, named.length > 0 && named.every((words) => words.includes('PostgreSQL'))]).toEqual([
        pattern,
        true,
      ]);
    }
    for (const pattern of [...REFUSED, ...MEANT_OTHERWISE, ...PORTABLE])
      expect(() => new RegExp(pattern, 'u')).not.toThrow();
    for (const pattern of PORTABLE) expect([pattern, unportablePattern(pattern)]).toEqual([pattern, []]);
  });

  it('is refused by the declaration, naming the field and PostgreSQL', () => {
    expect(() =>
      defineResource({
        name: 'patterned',
        table: 'patterned',
        modelName: 'Patterned',
        fields: { code: field.string({ pattern: '^\\p{Lu}[a-z]+$' }) },
        migrations: [],
      }),
    ).toThrow(/'code': pattern \^\\p\{Lu\}\[a-z\]\+\$: \\p\{…\} \(a Unicode property\): PostgreSQL cannot read it/);
  });

  for (const target of testEngines().filter((engine) => ['postgres', 'mysql'].includes(engine.engine))) {
    (target.skipReason ? describe.skip : describe)(`on ${target.label}`, () => {
      let started: StartedEngine | undefined;
      let sequelize: Sequelize | undefined;
      beforeAll(async () => {
        started = await target.start();
        sequelize = new Sequelize(started.url, { logging: false });
      }, 240_000);
      afterAll(async () => {
        await sequelize?.close();
        await started?.stop();
      });
      // The pattern as the CHECK writes it (check-constraints.ts checkExpression), tried on a value.
      const reads = async (pattern: string) => {
        const expression = checkExpression(target.engine, "'Abc'", { pattern });
        return sequelize!.query(`SELECT ${expression} AS matched`).then(
          () => true,
          () => false,
        );
      };

      it('reads every portable form; PostgreSQL refuses every form named as unreadable', async () => {
        for (const pattern of PORTABLE) expect([pattern, await reads(pattern)]).toEqual([pattern, true]);
        if (target.engine === 'postgres')
          for (const pattern of REFUSED) expect([pattern, await reads(pattern)]).toEqual([pattern, false]);
      });
    });
  }
});
