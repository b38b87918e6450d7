import { DataTypes, type Model, type ModelStatic, type QueryInterface, type Sequelize } from 'sequelize';

// Applies and reverts the registered migrations and records them, as umzug 3 did for this service (its
// SequelizeStorage table, its order, its log events and its error message), without the package: umzug's
// entry loads its command-line interface (@rushstack/ts-command-line, argparse, fs-extra, z-schema, ~170
// modules, ~8 MiB that stayed in the service after every start that migrated; docs/performance.md, "Memory").
// The service needs four operations of it; they are here.

/** One migration as the runner applies it: its name, and its steps given the query interface. */
export interface RunnableMigration {
  name: string;
  up(context: QueryInterface): Promise<void>;
  down(context: QueryInterface): Promise<void>;
}

/** A migration step that failed: the message umzug gave (`Migration <name> (up) failed: Original error: …`), the error as cause. */
export class MigrationError extends Error {
  constructor(
    readonly migration: { name: string; direction: 'up' | 'down' },
    cause: unknown,
  ) {
    super(
      `Migration ${migration.name} (${migration.direction}) failed: ${cause instanceof Error ? `Original error: ${cause.message}` : `Non-error value thrown. See info for full props: ${String(cause)}`}`,
      { cause },
    );
    this.name = 'MigrationError';
  }
}

/** Engines where the table takes umzug's charset and collation, so existing tables and new ones agree. */
const WITH_CHARSET = new Set(['mysql', 'mariadb']);

/**
 * The table of applied migrations, defined exactly as umzug's SequelizeStorage defined it (model
 * `SequelizeMeta`, one `name` column, VARCHAR(255) primary key): databases migrated before read the same.
 */
function recordModel(sequelize: Sequelize, tableName: string): ModelStatic<Model> {
  const modelName = 'SequelizeMeta';
  if (sequelize.isDefined(modelName)) return sequelize.model(modelName);
  const charset = WITH_CHARSET.has(sequelize.getDialect());
  return sequelize.define(
    modelName,
    { name: { type: DataTypes.STRING, allowNull: false, unique: true, primaryKey: true, autoIncrement: false } },
    {
      tableName,
      timestamps: false,
      charset: charset ? 'utf8' : undefined,
      collate: charset ? 'utf8_unicode_ci' : undefined,
    },
  );
}

export class MigrationRunner {
  private readonly records: ModelStatic<Model>;

  constructor(
    sequelize: Sequelize,
    tableName: string,
    private readonly migrations: readonly RunnableMigration[],
    private readonly log: (event: Record<string, unknown>) => void,
    private readonly context: QueryInterface = sequelize.getQueryInterface(),
  ) {
    this.records = recordModel(sequelize, tableName);
  }

  /** Names recorded as applied (the table is created when missing, as umzug did). */
  private async recorded(): Promise<Set<string>> {
    await this.records.sync();
    const rows = await this.records.findAll({ order: [['name', 'ASC']] });
    return new Set(rows.map((row) => String(row.get('name'))));
  }

  /** The applied registered migrations, in the order they are registered. */
  async executed(): Promise<RunnableMigration[]> {
    const applied = await this.recorded();
    return this.migrations.filter((migration) => applied.has(migration.name));
  }

  /** The registered migrations not applied yet, in the order they are registered. */
  async pending(): Promise<RunnableMigration[]> {
    const applied = await this.recorded();
    return this.migrations.filter((migration) => !applied.has(migration.name));
  }

  /** Applies the pending migrations (the first `step` of them), each recorded once its up has run; returns them. */
  async up(step?: number): Promise<RunnableMigration[]> {
    const pending = await this.pending();
    const chosen = pending.slice(0, step ?? pending.length);
    for (const migration of chosen) {
      const start = Date.now();
      this.log({ event: 'migrating', name: migration.name });
      await this.step(migration, 'up');
      await this.records.create({ name: migration.name });
      this.log({ event: 'migrated', name: migration.name, durationSeconds: (Date.now() - start) / 1000 });
    }
    return chosen;
  }

  /** Reverts the last applied migration (in registration order), if any; returns it. */
  async down(): Promise<RunnableMigration[]> {
    const chosen = (await this.executed()).slice(-1);
    for (const migration of chosen) {
      const start = Date.now();
      this.log({ event: 'reverting', name: migration.name });
      await this.step(migration, 'down');
      await this.records.destroy({ where: { name: migration.name } });
      this.log({
        event: 'reverted',
        name: migration.name,
        durationSeconds: Number(((Date.now() - start) / 1000).toFixed(3)),
      });
    }
    return chosen;
  }

  private async step(migration: RunnableMigration, direction: 'up' | 'down'): Promise<void> {
    try {
      await migration[direction](this.context);
    } catch (error) {
      throw new MigrationError({ name: migration.name, direction }, error);
    }
  }
}
