import type { Model, ModelStatic, WhereOptions } from 'sequelize';
import { newId, isId } from '../ids';
import type { SqlStoreContext } from '../kit/definition';
import type { OwnerScope } from '../kit/owner-scope';
import type { Page, PageRequest } from '../kit/pagination';
import type { OwnedRecord, RecordStore } from '../kit/record-store';

/**
 * The CRUD of a store of owned records on the relational engines, over a model from `defineRecordModel`.
 * Every query is filtered by the caller's scope, so another owner's record is not found. Extend it to add
 * queries of your own (`this.model`, `this.context.run`, `this.toRecord`).
 */
export class SqlRecordStore<R extends OwnedRecord, Fields extends object> implements RecordStore<R, Fields> {
  constructor(
    protected readonly context: SqlStoreContext,
    protected readonly model: ModelStatic<Model>,
  ) {}

  /**
   * A row as the record the store's interface promises: dates, booleans and numbers typed by the model, and
   * every column present (an optional field never set is null, as it reads back from the table).
   */
  protected toRecord(row: Model): R {
    const record = row.get({ plain: true }) as Record<string, unknown>;
    for (const attribute of Object.keys(this.model.getAttributes())) record[attribute] ??= null;
    return record as R;
  }

  protected where(id: string, scope: OwnerScope): WhereOptions {
    return scope.ownerId === undefined ? { id } : { id, ownerId: scope.ownerId };
  }

  create(ownerId: string, fields: Fields): Promise<R> {
    return this.context.run(async () => this.toRecord(await this.model.create({ ...fields, id: newId(), ownerId })));
  }

  findById(id: string, scope: OwnerScope): Promise<R | null> {
    if (!isId(id)) return Promise.resolve(null);
    return this.context.run(async () => {
      const row = await this.model.findOne({ where: this.where(id, scope) });
      return row ? this.toRecord(row) : null;
    });
  }

  list(scope: OwnerScope, page: PageRequest): Promise<Page<R>> {
    return this.context.run(async () => {
      const where = scope.ownerId === undefined ? {} : { ownerId: scope.ownerId };
      const { rows, count } = await this.model.findAndCountAll({
        where,
        // Newest first; the id (time-ordered) breaks ties between records created in the same millisecond.
        order: [
          ['createdAt', 'DESC'],
          ['id', 'DESC'],
        ],
        limit: page.limit,
        offset: page.offset,
      });
      return { items: rows.map((row) => this.toRecord(row)), total: count, limit: page.limit, offset: page.offset };
    });
  }

  update(id: string, scope: OwnerScope, changes: Partial<Fields>): Promise<R | null> {
    if (!isId(id)) return Promise.resolve(null);
    return this.context.run(async () => {
      const row = await this.model.findOne({ where: this.where(id, scope) });
      if (!row) return null;
      // updatedAt set here too, so it moves even when the changes equal what is stored.
      row.set({ ...changes, updatedAt: new Date() });
      await row.save();
      return this.toRecord(row);
    });
  }

  delete(id: string, scope: OwnerScope): Promise<boolean> {
    if (!isId(id)) return Promise.resolve(false);
    return this.context.run(async () => (await this.model.destroy({ where: this.where(id, scope) })) > 0);
  }
}
