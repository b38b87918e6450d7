import type { FindOptions, Model, ModelAttributes, ModelStatic } from 'sequelize';
import { ForeignKeyViolationError, ReferencedRecordError } from '../errors';
import { isId, newId } from '../ids';
import type { SqlStoreContext } from '../kit/definition';
import type { FieldDefinition, Fields, FieldsOf, RecordOf } from '../kit/fields';
import { shadowsOf, withShadowValues, type Shadow } from '../kit/shadows';
import type { ScannedRow, SearchScan } from '../kit/search-walk';
import type { Segment } from '../kit/keyset';
import { listPage } from '../kit/list-page';
import { builtInKind, type ListQuery } from '../kit/list-query';
import type { OwnerScope } from '../kit/owner-scope';
import { fieldEntries, withDefaults, type Resource } from '../kit/resource';
import type { ResourcePage, ResourceStore } from '../kit/resource-store';
import {
  updateUnderRules,
  writeUnderRules,
  type UpdateOptions,
  type WriteJudge,
  type WriteLookups,
} from '../kit/write-rules';
import { boundedCount } from './bounded-count';
import { pageFromMatches } from './page-from-matches';
import { defineRecordModel } from './record-model';
import { SqlResourceWhere, type Where } from './resource-sql-where';

type Row = Record<string, unknown>;

/**
 * A column's value read raw, as its field's kind: SQLite answers datetimes as the text Sequelize wrote
 * (`… +00:00`; one without an offset is UTC, as Sequelize reads it), SQLite and MySQL booleans as 0/1.
 */
function rawValue(kind: string | undefined, value: unknown): unknown {
  if (kind === 'datetime' && typeof value === 'string') return new Date(value.includes('+') ? value : `${value}+00:00`);
  if (kind === 'boolean' && typeof value === 'number') return value === 1;
  return value ?? null;
}

/** The model of a resource's table: the record columns, each field, and the shadow of each case-insensitive one. */
function resourceModel(context: SqlStoreContext, resource: Resource): ModelStatic<Model> {
  const { DataTypes } = context;
  const attributes: ModelAttributes = {};
  const typeOf = (definition: FieldDefinition) =>
    ({
      string: DataTypes.STRING(definition.maxLength ?? 200),
      text: DataTypes.TEXT,
      integer: DataTypes.INTEGER,
      number: DataTypes.DOUBLE,
      boolean: DataTypes.BOOLEAN,
      datetime: DataTypes.DATE(3),
      reference: DataTypes.STRING(36),
    })[definition.kind];
  for (const [name, definition] of fieldEntries(resource))
    attributes[name] = { type: typeOf(definition), allowNull: definition.optional };
  for (const shadow of shadowsOf(resource))
    attributes[shadow.name] = { type: typeOf(shadow.definition), allowNull: shadow.definition.optional };
  return defineRecordModel(context.sequelize, resource.modelName, resource.table, attributes);
}

/** Just enough of another resource's table to ask whether a record of an owner is there. */
function referencedModel(context: SqlStoreContext, target: { table: string; modelName: string }): ModelStatic<Model> {
  const name = `${target.modelName}Reference`;
  return (
    context.sequelize.models[name] ??
    context.sequelize.define(
      name,
      { id: { type: context.DataTypes.STRING(36), primaryKey: true }, ownerId: context.DataTypes.STRING(64) },
      { tableName: target.table, underscored: true, timestamps: false },
    )
  );
}

/**
 * A resource's store on SQLite, PostgreSQL, MySQL/MariaDB and SQL Server, built from its declaration.
 * Strings compare by code point, case- and space-sensitive, on every engine: the columns carry a binary
 * collation (see migrations/resource-columns.ts), and SQL Server, which pads on `=`, is also asked for
 * equal lengths. Unique keys and references are the tables' own constraints; their violations come back
 * as the resource's errors.
 */
export class SqlResourceStore<F extends Fields> implements ResourceStore<F> {
  /** The shadow columns kept beside the declared fields (shadows.ts), derived once: every read and write walks them. */
  private readonly shadows: readonly Shadow[];
  /** The record's attributes in the model's order, shadows left out, each with its kind: what a page reads raw. */
  private readonly recordAttributes: readonly { name: string; kind: string | undefined }[];
  /** Their names, as a page's SELECT lists them (findAll copies its options: the array is never changed). */
  private readonly recordAttributeNames: string[];
  protected readonly model: ModelStatic<Model>;
  /** The conditions and orders the reads below take (resource-sql-where.ts). */
  private readonly clauses: SqlResourceWhere;

  constructor(
    protected readonly context: SqlStoreContext,
    protected readonly resource: Resource<F>,
  ) {
    this.model = resourceModel(context, resource as unknown as Resource);
    this.clauses = new SqlResourceWhere(context, this.model, resource as unknown as Resource);
    this.shadows = shadowsOf(this.plain);
    const shadowNames = new Set(this.shadows.map((shadow) => shadow.name));
    this.recordAttributes = Object.keys(this.model.getAttributes())
      .filter((name) => !shadowNames.has(name))
      .map((name) => ({ name, kind: builtInKind(name) ?? this.definition(name)?.kind }));
    this.recordAttributeNames = this.recordAttributes.map(({ name }) => name);
  }

  /** The declaration without its field types: what the generic code below walks. */
  private get plain(): Resource {
    return this.resource as unknown as Resource;
  }

  private definition(name: string): FieldDefinition | undefined {
    return this.plain.fields[name];
  }

  /** A row as the record: every declared field present (null when empty), shadows left out. */
  protected toRecord(row: Model): RecordOf<F> {
    const record = row.get({ plain: true }) as Row;
    for (const [name] of fieldEntries(this.plain)) record[name] ??= null;
    for (const shadow of this.shadows) delete record[shadow.name];
    return record as RecordOf<F>;
  }

  /**
   * Rows read raw, as the record toRecord makes of an instance: a page's rows skip Sequelize's instances (their
   * build, their `get`, per row and attribute), which cost more than the page's query on a warm index.
   */
  private readRecords(options: FindOptions): Promise<RecordOf<F>[]> {
    return this.model
      .findAll({ ...options, attributes: this.recordAttributeNames, raw: true })
      .then((rows) => (rows as unknown as Row[]).map((row) => this.fromRaw(row)));
  }

  private fromRaw(row: Row): RecordOf<F> {
    const record: Row = {};
    for (const { name, kind } of this.recordAttributes) record[name] = rawValue(kind, row[name]);
    return record as RecordOf<F>;
  }

  /** The values to write: as given, plus the shadow of each field given (shadows.ts). */
  private withShadows(fields: Row): Row {
    return withShadowValues(this.shadows, fields);
  }

  /** The bounded walk's reads: a segment's rows as their order values and whether they match, then the matches. */
  private searchScan(scope: OwnerScope, filtered: Where[], text: string): SearchScan<RecordOf<F>> {
    const hit = this.context.sequelize.literal(`CASE WHEN ${this.clauses.matchSql(text)} THEN 1 ELSE 0 END`);
    return {
      scan: async (segment, limit) => {
        const where = this.clauses.scoped(scope, [
          ...filtered,
          ...segment.where.map((condition) => this.clauses.keyCondition(condition)),
        ]);
        const attributes = [...new Set(segment.order.map((key) => key.field))];
        // Raw rows (no model instances: up to the scan limit of them), each key read back as the model would.
        const rows = (await this.model.findAll({
          attributes: [...attributes, [hit, 'searchHit']],
          where,
          order: this.clauses.orderOf(segment, scope),
          limit,
          raw: true,
        })) as unknown as Row[];
        return rows.map((row): ScannedRow => ({
          id: String(row.id),
          keys: Object.fromEntries(attributes.map((name) => [name, this.rawKey(name, row[name])])),
          hit: Number(row.searchHit) === 1,
        }));
      },
      byIds: (ids) => this.readRecords({ where: this.clauses.scoped(scope, [{ id: [...ids] }]) }),
    };
  }

  /** A sort key read raw, as its field's kind. */
  private rawKey(name: string, value: unknown): unknown {
    return rawValue(builtInKind(name) ?? this.definition(name)?.kind, value);
  }

  create(ownerId: string, fields: FieldsOf<F>, options: { judge?: WriteJudge } = {}): Promise<RecordOf<F>> {
    const values = withDefaults(this.plain, fields as Row);
    return writeUnderRules(
      this.plain,
      ownerId,
      undefined,
      values,
      this.lookups,
      () =>
        this.context.run(async () =>
          this.toRecord(await this.model.create({ ...this.withShadows(values), id: newId(), ownerId })),
        ),
      { stored: null, changed: Object.keys(fields as Row), judge: options.judge },
    );
  }

  findById(id: string, scope: OwnerScope): Promise<RecordOf<F> | null> {
    if (!isId(id)) return Promise.resolve(null);
    return this.context.run(async () => {
      const row = await this.model.findOne({ where: this.clauses.scoped(scope, [{ id }]) });
      return row ? this.toRecord(row) : null;
    });
  }

  list(scope: OwnerScope, query: ListQuery): Promise<ResourcePage<RecordOf<F>>> {
    const walked = query.search !== undefined && !this.clauses.searchIndexed(query.search);
    const indexed = query.search !== undefined && !walked;
    const conditions = query.where.map((condition) => this.clauses.condition(condition));
    const filtered = [
      ...conditions,
      ...(query.search === undefined || walked ? [] : [this.clauses.searching(query.search)]),
    ];
    const whereOf = (segment: Segment) =>
      this.clauses.scoped(scope, [
        ...filtered,
        ...segment.where.map((condition) => this.clauses.keyCondition(condition)),
      ]);
    return this.context.run(() =>
      listPage<RecordOf<F>>(query, (field) => this.definition(field)?.optional === true, {
        read: (segment, limit, offset) =>
          this.readRecords({ where: whereOf(segment), order: this.clauses.orderOf(segment, scope), limit, offset }),
        // Counted by the database over at most `upTo` rows of the list's index, not a COUNT of the whole owner.
        count: (upTo) => boundedCount(this.model, this.clauses.scoped(scope, filtered), upTo),
        ...(query.search === undefined
          ? {}
          : { [walked ? 'searchScan' : 'searchProbe']: this.searchScan(scope, conditions, query.search) }),
        ...(indexed
          ? {
              readMatches: async (segment, limit, offset) => {
                const order = this.clauses.orderTerms(segment, scope);
                const rows = await pageFromMatches(
                  this.model,
                  this.recordAttributeNames,
                  whereOf(segment),
                  order,
                  limit,
                  offset,
                );
                return rows?.map((row) => this.fromRaw(row));
              },
            }
          : {}),
      }),
    );
  }

  update(
    id: string,
    scope: OwnerScope,
    changes: Partial<FieldsOf<F>>,
    options: UpdateOptions = {},
  ): Promise<RecordOf<F> | null> {
    if (!isId(id)) return Promise.resolve(null);
    const guard = (options.guard ?? []).map((condition) => this.clauses.condition(condition));
    return updateUnderRules(this.plain, changes as Row, options, this.lookups, {
      read: () =>
        this.context.run(
          async () =>
            (await this.readRecords({ where: this.clauses.scoped(scope, [{ id }, ...guard]), limit: 1 }))[0] ?? null,
        ),
      write: async (stored, values, updatedAt) => {
        // The stored updatedAt in the UPDATE's own WHERE: of two writes judged on the same record, one lands, the
        // other reads again.
        const where = this.clauses.scoped(scope, [{ id, updatedAt: stored.updatedAt }]);
        const [written] = await this.context.run(() =>
          this.model.update({ ...this.withShadows(values), updatedAt }, { where, silent: true }),
        ); // silent: our updatedAt
        return written === 0 ? null : ({ ...stored, ...values, updatedAt } as RecordOf<F>);
      },
    });
  }

  delete(id: string, scope: OwnerScope): Promise<boolean> {
    if (!isId(id)) return Promise.resolve(false);
    return this.context
      .run(async () => (await this.model.destroy({ where: this.clauses.scoped(scope, [{ id }]) })) > 0)
      .catch((error: unknown) => {
        throw error instanceof ForeignKeyViolationError
          ? new ReferencedRecordError(undefined, { cause: error })
          : error;
      });
  }

  private readonly lookups: WriteLookups = {
    recordInScope: async (target, id, scope) =>
      (await this.context.run(() => referencedModel(this.context, target).count({ where: { id, ...scope } }))) > 0,
    keyHeld: async (key, values, ownerId, exceptId) => {
      const where = this.clauses.scoped({ ownerId }, [
        ...key.map((name) => this.clauses.equals(name, values[name])),
        ...(exceptId ? [this.clauses.otherThan(exceptId)] : []),
      ]);
      return (await this.context.run(() => this.model.count({ where }))) > 0;
    },
  };
}
