import type {
  FindOptions,
  Model,
  ModelAttributes,
  ModelStatic,
  Op as SequelizeOp,
  OrderItem,
  WhereOptions,
} from 'sequelize';
import { ForeignKeyViolationError, ReferencedRecordError } from '../errors';
import { isId, newId } from '../ids';
import type { SqlStoreContext } from '../kit/definition';
import { fold, foldedNameOf, type FieldDefinition, type Fields, type FieldsOf, type RecordOf } from '../kit/fields';
import {
  foldForSearch,
  likeContaining,
  searchNameOf,
  shadowsOf,
  trigramsServe,
  withShadowValues,
  type Shadow,
} from '../kit/shadows';
import type { ScannedRow, SearchScan } from '../kit/search-walk';
import { indexOrder, type KeyCondition, type Segment } from '../kit/keyset';
import { listPage } from '../kit/list-page';
import { builtInKind, type Condition, type ListQuery } from '../kit/list-query';
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
import { pageFromMatches, type OrderTerm } from './page-from-matches';
import { defineRecordModel } from './record-model';

type Row = Record<string, unknown>;
type Where = WhereOptions & Record<string | symbol, unknown>;

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
  /** The shadow columns kept beside the declared fields (shadows.ts), derived once: every row read and every write walks them. */
  private readonly shadows: readonly Shadow[];
  /** The record's attributes in the model's order, shadows left out, each with its kind: what a page reads as raw rows. */
  private readonly recordAttributes: readonly { name: string; kind: string | undefined }[];
  /** Their names, as a page's SELECT lists them (findAll copies its options: the array is never changed). */
  private readonly recordAttributeNames: string[];
  protected readonly model: ModelStatic<Model>;
  private readonly Op: typeof SequelizeOp;

  constructor(
    protected readonly context: SqlStoreContext,
    protected readonly resource: Resource<F>,
  ) {
    this.model = resourceModel(context, resource as unknown as Resource);
    this.Op = (context.sequelize.constructor as unknown as { Op: typeof SequelizeOp }).Op;
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

  /** `?q=`: a searched field's shadow holds the folded text, by LIKE with `%`, `_` and `[` escaped (ESCAPE '!', which every engine reads alike). */
  private searching(text: string): Where {
    return this.context.sequelize.literal(this.matchSql(text)) as unknown as Where;
  }

  /** The SQL condition of `?q=text`: any searched shadow contains the folded text. */
  private matchSql(text: string): string {
    const { sequelize } = this.context;
    const pattern = sequelize.escape(likeContaining(foldForSearch(text)));
    const quote = (column: string) => sequelize.getQueryInterface().quoteIdentifier(column);
    const column = (name: string) => this.model.getAttributes()[searchNameOf(name)]!.field!;
    return `(${this.plain.search.map((name) => `${quote(column(name))} LIKE ${pattern} ESCAPE '!'`).join(' OR ')})`;
  }

  /**
   * Whether the engine's index serves `?q=text`: PostgreSQL's pg_trgm GIN index on each searched shadow, for
   * a term of a trigram or more (search-index.ts). Elsewhere, and for shorter terms, the page walks within
   * the scan limit (search-walk.ts).
   */
  private searchIndexed(text: string): boolean {
    return this.context.engine === 'postgres' && trigramsServe(text);
  }

  /** The bounded walk's reads: a segment's rows as their order values and whether they match, then the matches whole. */
  private searchScan(scope: OwnerScope, filtered: Where[], text: string): SearchScan<RecordOf<F>> {
    const hit = this.context.sequelize.literal(`CASE WHEN ${this.matchSql(text)} THEN 1 ELSE 0 END`);
    return {
      scan: async (segment, limit) => {
        const where = this.scoped(scope, [
          ...filtered,
          ...segment.where.map((condition) => this.keyCondition(condition)),
        ]);
        const attributes = [...new Set(segment.order.map((key) => key.field))];
        // Raw rows (no model instances: up to the scan limit of them), each key read back as the model would.
        const rows = (await this.model.findAll({
          attributes: [...attributes, [hit, 'searchHit']],
          where,
          order: this.orderOf(segment, scope),
          limit,
          raw: true,
        })) as unknown as Row[];
        return rows.map((row): ScannedRow => ({
          id: String(row.id),
          keys: Object.fromEntries(attributes.map((name) => [name, this.rawKey(name, row[name])])),
          hit: Number(row.searchHit) === 1,
        }));
      },
      byIds: (ids) => this.readRecords({ where: this.scoped(scope, [{ id: [...ids] }]) }),
    };
  }

  /** `name = value` as every other engine means it (SQL Server ignores trailing spaces in `=`; its lengths do not). */
  private equals(name: string, value: unknown): Where {
    const definition = this.definition(name);
    const attribute = definition?.caseInsensitive ? foldedNameOf(name) : name;
    const compared = definition?.caseInsensitive && typeof value === 'string' ? fold(value) : value;
    if (this.context.engine !== 'mssql' || typeof compared !== 'string') return { [attribute]: compared };
    const { sequelize } = this.context;
    const column = this.model.getAttributes()[attribute]?.field ?? attribute;
    return {
      [this.Op.and]: [
        { [attribute]: compared },
        sequelize.where(sequelize.fn('DATALENGTH', sequelize.col(column)), Buffer.byteLength(compared, 'utf16le')),
      ],
    };
  }

  private condition({ field, comparison, value }: Condition): Where {
    const { Op } = this;
    switch (comparison) {
      case 'eq':
        return this.equals(field, value);
      case 'in':
        return { [Op.or]: (value as unknown[]).map((item) => this.equals(field, item)) };
      case 'null':
        return { [field]: value === true ? null : { [Op.ne]: null } };
      default:
        return { [field]: { [Op[comparison]]: value } };
    }
  }

  private scoped(scope: OwnerScope, where: Where[]): Where {
    return { [this.Op.and]: [...(scope.ownerId === undefined ? [] : [{ ownerId: scope.ownerId }]), ...where] };
  }

  /** A keyset segment's condition (keyset.ts), on the stored value as it is. */
  private keyCondition({ field, is, value }: KeyCondition): Where {
    const { Op } = this;
    if (is === 'same') return { [field]: value ?? null };
    if (is === 'notNull') return { [field]: { [Op.ne]: null } };
    return { [field]: { [is === 'greater' ? Op.gt : Op.lt]: value } };
  }

  /**
   * The order of a segment, led by the owner when the list is one owner's: the index's own order (owner, keys,
   * id), constant columns included, so every engine reads the segment as a range of it (keyset.ts). PostgreSQL
   * alone orders nulls last by default: it is told NULLS FIRST/LAST where nulls can occur.
   */
  private orderTerms(segment: Segment, scope: OwnerScope): OrderTerm[] {
    const postgres = this.context.engine === 'postgres';
    return indexOrder(segment, scope.ownerId !== undefined).map(({ field, descending }) =>
      postgres && this.definition(field)?.optional && !segment.nonNull.includes(field)
        ? { attribute: field, descending, nulls: descending ? 'LAST' : 'FIRST' }
        : { attribute: field, descending },
    );
  }

  /** ORDER BY of a segment (orderTerms), on the table's columns. */
  private orderOf(segment: Segment, scope: OwnerScope): OrderItem[] {
    return this.orderTerms(segment, scope).map(({ attribute, descending, nulls }) => {
      // The table's column, not the answer's alias (ORDER BY `ownerId`): MariaDB's plan then shows the index order it reads.
      const column = this.model.getAttributes()[attribute]?.field ?? attribute;
      return [
        this.context.sequelize.col(`${this.model.name}.${column}`),
        `${descending ? 'DESC' : 'ASC'}${nulls ? ` NULLS ${nulls}` : ''}`,
      ];
    });
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
      const row = await this.model.findOne({ where: this.scoped(scope, [{ id }]) });
      return row ? this.toRecord(row) : null;
    });
  }

  list(scope: OwnerScope, query: ListQuery): Promise<ResourcePage<RecordOf<F>>> {
    const walked = query.search !== undefined && !this.searchIndexed(query.search);
    const indexed = query.search !== undefined && !walked;
    const conditions = query.where.map((condition) => this.condition(condition));
    const filtered = [...conditions, ...(query.search === undefined || walked ? [] : [this.searching(query.search)])];
    const whereOf = (segment: Segment) =>
      this.scoped(scope, [...filtered, ...segment.where.map((condition) => this.keyCondition(condition))]);
    return this.context.run(() =>
      listPage<RecordOf<F>>(query, (field) => this.definition(field)?.optional === true, {
        read: (segment, limit, offset) =>
          this.readRecords({ where: whereOf(segment), order: this.orderOf(segment, scope), limit, offset }),
        // Counted by the database over at most `upTo` rows of the list's index, not a COUNT of the whole owner.
        count: (upTo) => boundedCount(this.model, this.scoped(scope, filtered), upTo),
        ...(query.search === undefined
          ? {}
          : { [walked ? 'searchScan' : 'searchProbe']: this.searchScan(scope, conditions, query.search) }),
        ...(indexed
          ? {
              readMatches: async (segment, limit, offset) => {
                const order = this.orderTerms(segment, scope);
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
    const guard = (options.guard ?? []).map((condition) => this.condition(condition));
    return updateUnderRules(this.plain, changes as Row, options, this.lookups, {
      read: () =>
        this.context.run(
          async () => (await this.readRecords({ where: this.scoped(scope, [{ id }, ...guard]), limit: 1 }))[0] ?? null,
        ),
      write: async (stored, values, updatedAt) => {
        // The stored updatedAt in the UPDATE's own WHERE: of two writes judged on the same record, one lands, the other reads again.
        const where = this.scoped(scope, [{ id, updatedAt: stored.updatedAt }]);
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
      .run(async () => (await this.model.destroy({ where: this.scoped(scope, [{ id }]) })) > 0)
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
      const where = this.scoped({ ownerId }, [
        ...key.map((name) => this.equals(name, values[name])),
        ...(exceptId ? [{ id: { [this.Op.ne]: exceptId } }] : []),
      ]);
      return (await this.context.run(() => this.model.count({ where }))) > 0;
    },
  };
}
