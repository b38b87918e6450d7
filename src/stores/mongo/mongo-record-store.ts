import type { Model } from 'mongoose';
import { isId } from '../ids';
import type { MongoStoreContext } from '../kit/definition';
import type { OwnerScope } from '../kit/owner-scope';
import type { Page, PageRequest } from '../kit/pagination';
import type { OwnedRecord, RecordStore } from '../kit/record-store';

/** A lean document: `_id` instead of `id`, everything else as stored. */
type Document = { _id: string } & Record<string, unknown>;

/**
 * The CRUD of a store of owned records on MongoDB, over a model built on `ownedRecordSchema`. Reads are
 * lean (plain objects, no documents built) and bounded by maxTimeMS; every filter carries the caller's
 * scope. Extend it to add queries of your own.
 */
export class MongoRecordStore<R extends OwnedRecord, Fields extends object> implements RecordStore<R, Fields> {
  /* eslint-disable @typescript-eslint/no-explicit-any -- each store's model has its own document type */
  protected readonly model: Model<any>;

  constructor(
    protected readonly context: MongoStoreContext,
    model: Model<any, any, any, any>,
  ) {
    this.model = model as unknown as Model<any>;
  }
  /* eslint-enable @typescript-eslint/no-explicit-any */

  protected toRecord(document: Document): R {
    const { _id, ...fields } = document;
    return { id: _id, ...fields } as unknown as R;
  }

  protected filter(id: string, scope: OwnerScope): Record<string, string> {
    return scope.ownerId === undefined ? { _id: id } : { _id: id, ownerId: scope.ownerId };
  }

  create(ownerId: string, fields: Fields): Promise<R> {
    return this.context.run(async () => {
      const created = await this.model.create({ ...fields, ownerId });
      return this.toRecord(created.toObject() as Document);
    });
  }

  findById(id: string, scope: OwnerScope): Promise<R | null> {
    if (!isId(id)) return Promise.resolve(null);
    return this.context.run(async () => {
      const document = await this.model.findOne(this.filter(id, scope)).maxTimeMS(this.context.timeoutMs).lean<Document>().exec();
      return document ? this.toRecord(document) : null;
    });
  }

  list(scope: OwnerScope, page: PageRequest): Promise<Page<R>> {
    return this.context.run(async () => {
      const filter = scope.ownerId === undefined ? {} : { ownerId: scope.ownerId };
      const [documents, total] = await Promise.all([
        this.model
          .find(filter)
          .sort({ createdAt: -1, _id: -1 })
          .skip(page.offset)
          .limit(page.limit)
          .maxTimeMS(this.context.timeoutMs)
          .lean<Document[]>()
          .exec(),
        this.model.countDocuments(filter).maxTimeMS(this.context.timeoutMs).exec(),
      ]);
      return { items: documents.map((document) => this.toRecord(document)), total, limit: page.limit, offset: page.offset };
    });
  }

  update(id: string, scope: OwnerScope, changes: Partial<Fields>): Promise<R | null> {
    if (!isId(id)) return Promise.resolve(null);
    return this.context.run(async () => {
      // mongoose sets updatedAt in the same $set (timestamps), so it moves on every successful update.
      const document = await this.model
        .findOneAndUpdate(this.filter(id, scope), { $set: changes }, { returnDocument: 'after', runValidators: true })
        .maxTimeMS(this.context.timeoutMs)
        .lean<Document>()
        .exec();
      return document ? this.toRecord(document) : null;
    });
  }

  delete(id: string, scope: OwnerScope): Promise<boolean> {
    if (!isId(id)) return Promise.resolve(false);
    return this.context.run(async () => (await this.model.deleteOne(this.filter(id, scope)).exec()).deletedCount > 0);
  }
}
