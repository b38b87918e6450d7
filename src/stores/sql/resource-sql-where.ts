import type { Model, ModelStatic, Op as SequelizeOp, OrderItem, WhereOptions } from 'sequelize';
import type { SqlStoreContext } from '../kit/definition';
import { fold, foldedNameOf, type FieldDefinition } from '../kit/fields';
import { foldForSearch, likeContaining, searchNameOf, trigramsServe } from '../kit/shadows';
import { indexOrder, type KeyCondition, type Segment } from '../kit/keyset';
import type { Condition } from '../kit/list-query';
import type { OwnerScope } from '../kit/owner-scope';
import type { Resource } from '../kit/resource';
import type { OrderTerm } from './page-from-matches';

export type Where = WhereOptions & Record<string | symbol, unknown>;

/**
 * What a resource's SQL store reads by, on its table: equality as every engine means it, a list's filters, the
 * owner's scope, a keyset segment's range and order, and `?q=`. The store (resource-sql-store.ts) runs the reads.
 */
export class SqlResourceWhere {
  private readonly Op: typeof SequelizeOp;

  constructor(
    private readonly context: SqlStoreContext,
    private readonly model: ModelStatic<Model>,
    private readonly resource: Resource,
  ) {
    this.Op = (context.sequelize.constructor as unknown as { Op: typeof SequelizeOp }).Op;
  }

  private definition(name: string): FieldDefinition | undefined {
    return this.resource.fields[name];
  }

  /**
   * `?q=`: a searched field's shadow holds the folded text, by LIKE with `%`, `_` and `[` escaped (ESCAPE '!',
   * which every engine reads alike).
   */
  searching(text: string): Where {
    return this.context.sequelize.literal(this.matchSql(text)) as unknown as Where;
  }

  /** The SQL condition of `?q=text`: any searched shadow contains the folded text. */
  matchSql(text: string): string {
    const { sequelize } = this.context;
    const pattern = sequelize.escape(likeContaining(foldForSearch(text)));
    const quote = (column: string) => sequelize.getQueryInterface().quoteIdentifier(column);
    const column = (name: string) => this.model.getAttributes()[searchNameOf(name)]!.field!;
    return `(${this.resource.search.map((name) => `${quote(column(name))} LIKE ${pattern} ESCAPE '!'`).join(' OR ')})`;
  }

  /**
   * Whether the engine's index serves `?q=text`: PostgreSQL's pg_trgm GIN index on each searched shadow, for
   * a term of a trigram or more (search-index.ts). Elsewhere, and for shorter terms, the page walks within
   * the scan limit (search-walk.ts).
   */
  searchIndexed(text: string): boolean {
    return this.context.engine === 'postgres' && trigramsServe(text);
  }

  /** Any record but `id`: a key held by another record than the one being written. */
  otherThan(id: string): Where {
    return { id: { [this.Op.ne]: id } };
  }

  /** `name = value` as every other engine means it (SQL Server ignores trailing spaces in `=`; its lengths do not). */
  equals(name: string, value: unknown): Where {
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

  condition({ field, comparison, value }: Condition): Where {
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

  scoped(scope: OwnerScope, where: Where[]): Where {
    return { [this.Op.and]: [...(scope.ownerId === undefined ? [] : [{ ownerId: scope.ownerId }]), ...where] };
  }

  /** A keyset segment's condition (keyset.ts), on the stored value as it is. */
  keyCondition({ field, is, value }: KeyCondition): Where {
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
  orderTerms(segment: Segment, scope: OwnerScope): OrderTerm[] {
    const postgres = this.context.engine === 'postgres';
    return indexOrder(segment, scope.ownerId !== undefined).map(({ field, descending }) =>
      postgres && this.definition(field)?.optional && !segment.nonNull.includes(field)
        ? { attribute: field, descending, nulls: descending ? 'LAST' : 'FIRST' }
        : { attribute: field, descending },
    );
  }

  /** ORDER BY of a segment (orderTerms), on the table's columns. */
  orderOf(segment: Segment, scope: OwnerScope): OrderItem[] {
    return this.orderTerms(segment, scope).map(({ attribute, descending, nulls }) => {
      // The table's column, not the answer's alias (ORDER BY `ownerId`): MariaDB's plan then shows the index order
      // it reads.
      const column = this.model.getAttributes()[attribute]?.field ?? attribute;
      return [
        this.context.sequelize.col(`${this.model.name}.${column}`),
        `${descending ? 'DESC' : 'ASC'}${nulls ? ` NULLS ${nulls}` : ''}`,
      ];
    });
  }
}
