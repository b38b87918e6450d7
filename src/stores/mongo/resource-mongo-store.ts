import type { Model, SchemaDefinition } from 'mongoose';
import { ReferencedRecordError } from '../errors';
import { isId } from '../ids';
import type { MongoStoreContext } from '../kit/definition';
import {
  fold,
  foldedNameOf,
  type FieldDefinition,
  type Fields,
  type FieldsOf,
  type RecordOf,
  type ReferencedResource,
} from '../kit/fields';
import { indexOrder, type KeyCondition } from '../kit/keyset';
import { foldForSearch, regexLiteral, searchNameOf, shadowsOf, withShadowValues, type Shadow } from '../kit/shadows';
import { indexPaths, listIndexes } from '../kit/list-indexes';
import { listPage } from '../kit/list-page';
import type { ScannedRow, SearchScan } from '../kit/search-walk';
import type { Condition, ListQuery } from '../kit/list-query';
import type { OwnerScope } from '../kit/owner-scope';
import { fieldEntries, referrersOf, withDefaults, type Resource } from '../kit/resource';
import type { ResourcePage, ResourceStore } from '../kit/resource-store';
import {
  updateUnderRules,
  writeUnderRules,
  type UpdateOptions,
  type WriteJudge,
  type WriteLookups,
} from '../kit/write-rules';
import { declareValidator } from './collection-validator';

/* eslint-disable @typescript-eslint/no-explicit-any -- documents of every resource pass through here */
type AnyModel = Model<any>;
type Document = { _id: string } & Record<string, unknown>;
type Filter = Record<string, unknown>;

const MONGO_TYPES = {
  string: String,
  text: String,
  integer: Number,
  number: Number,
  boolean: Boolean,
  datetime: Date,
  reference: String,
} as const;

const BSON_TYPES = {
  string: 'string',
  text: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'bool',
  datetime: 'date',
  reference: 'string',
} as const;

/** `id` is `_id` in a document. */
const path = (field: string) => (field === 'id' ? '_id' : field);

/** The schema of a resource's collection: its fields, shadows, and one index per unique key (per owner). */
function resourceModel(context: MongoStoreContext, resource: Resource): AnyModel {
  const definition: SchemaDefinition = {};
  for (const [name, field] of fieldEntries(resource)) {
    const spec = { type: MONGO_TYPES[field.kind], ...(field.optional ? { default: null } : { required: true }) };
    definition[name] = spec;
  }
  for (const shadow of shadowsOf(resource)) definition[shadow.name] = { ...(definition[shadow.source] as object) };
  const schema = context.ownedRecordSchema(definition);
  for (const key of resource.unique) {
    const paths = key.map((name) => (resource.fields[name]?.caseInsensitive ? foldedNameOf(name) : name));
    // Like the relational engines: records whose key has an empty (null) field never clash.
    const present = Object.fromEntries(
      key.map((name, index) => [paths[index], { $type: BSON_TYPES[resource.fields[name]!.kind] }]),
    );
    schema.index(
      { ownerId: 1, ...Object.fromEntries(paths.map((name) => [name, 1])) },
      { unique: true, partialFilterExpression: present, name: `${resource.table}_${paths.join('_')}_unique` },
    );
  }
  for (const [name, field] of fieldEntries(resource)) if (field.kind === 'reference') schema.index({ [name]: 1 }); // who points at a record, on delete
  // The list indexes the declaration needs (list-indexes.ts); the owner's newest-first one comes with the record schema.
  for (const index of listIndexes(resource)) {
    const keys = indexPaths(index);
    if (Object.keys(keys).join() !== 'ownerId,createdAt,_id') schema.index(keys);
  }
  declareValidator(context.connection, resource); // its rules, held by the collection (collection-validator.ts)
  return context.connection.model(resource.modelName, schema, resource.table) as unknown as AnyModel;
}

/** Just enough of another resource's collection to ask whether a record of an owner is there. */
function referencedModel(context: MongoStoreContext, target: ReferencedResource): AnyModel {
  const name = `${target.modelName}Reference`;
  return (context.connection.models[name] ??
    context.connection.model(
      name,
      new context.Schema({ _id: String, ownerId: String }, { strict: false }),
      target.table,
    )) as unknown as AnyModel;
}

/**
 * A resource's store on MongoDB, built from its declaration. MongoDB compares strings by code point and
 * case-sensitively already (the simple collation); unique keys are partial unique indexes; references are
 * checked here, and their on-delete rules applied here, as foreign keys do on the relational engines.
 */
export class MongoResourceStore<F extends Fields> implements ResourceStore<F> {
  /** The shadow columns kept beside the declared fields (shadows.ts), derived once: every row read and every write walks them. */
  private readonly shadows: readonly Shadow[];
  protected readonly model: AnyModel;

  constructor(
    protected readonly context: MongoStoreContext,
    protected readonly resource: Resource<F>,
  ) {
    this.model = resourceModel(context, resource as unknown as Resource);
    this.shadows = shadowsOf(this.plain);
    // The models its reference checks read, defined once up front rather than on the first write.
    for (const [, definition] of fieldEntries(this.plain))
      if (definition.references) referencedModel(context, definition.references.resource());
  }

  /** The declaration without its field types: what the generic code below walks. */
  private get plain(): Resource {
    return this.resource as unknown as Resource;
  }

  private definition(name: string): FieldDefinition | undefined {
    return this.plain.fields[name];
  }

  protected toRecord(document: Document): RecordOf<F> {
    const { _id, ...fields } = document;
    const record: Record<string, unknown> = { id: _id, ...fields };
    // A field added after the document was written reads as its default (what the column's DEFAULT gives a relational row), else null.
    for (const [name, definition] of fieldEntries(this.plain))
      record[name] = name in record ? (record[name] ?? null) : (definition.default ?? null);
    for (const shadow of this.shadows) delete record[shadow.name];
    return record as RecordOf<F>;
  }

  private withShadows(fields: Record<string, unknown>): Record<string, unknown> {
    return withShadowValues(this.shadows, fields);
  }

  /**
   * The bounded walk of `?q=` (search-walk.ts): MongoDB has no substring index (its text index matches words),
   * so a page examines at most the scan limit of the scoped documents in the list's order, projected to their
   * order values and whether any searched shadow holds the folded text (an escaped, unanchored regular expression).
   */
  private searchScan(scope: OwnerScope, filtered: Filter[], text: string): SearchScan<RecordOf<F>> {
    const regex = regexLiteral(foldForSearch(text));
    const hit = {
      $or: this.plain.search.map((name) => ({
        $regexMatch: { input: { $ifNull: [`$${searchNameOf(name)}`, ''] }, regex },
      })),
    };
    return {
      scan: async (segment, limit) => {
        const fields = [...new Set(segment.order.map((key) => key.field))];
        const projection = { ...Object.fromEntries(fields.map((field) => [path(field), 1])), searchHit: hit };
        const documents = await this.model
          .find(
            this.scoped(scope, [...filtered, ...segment.where.map((condition) => this.keyCondition(condition))]),
            projection,
          )
          .sort(
            Object.fromEntries(
              indexOrder(segment, scope.ownerId !== undefined).map(({ field, descending }) => [
                path(field),
                descending ? -1 : 1,
              ]),
            ),
          )
          .limit(limit)
          .maxTimeMS(this.context.timeoutMs)
          .lean<Document[]>()
          .exec();
        return documents.map((document): ScannedRow => ({
          id: document._id,
          keys: Object.fromEntries(fields.map((field) => [field, document[path(field)] ?? null])),
          hit: document.searchHit === true,
        }));
      },
      byIds: async (ids) => {
        const documents = await this.model
          .find(this.scoped(scope, [{ _id: { $in: [...ids] } }]))
          .maxTimeMS(this.context.timeoutMs)
          .lean<Document[]>()
          .exec();
        return documents.map((document) => this.toRecord(document));
      },
    };
  }

  private equals(name: string, value: unknown): Filter {
    const folded = this.definition(name)?.caseInsensitive;
    return { [folded ? foldedNameOf(name) : path(name)]: folded && typeof value === 'string' ? fold(value) : value };
  }

  private condition({ field, comparison, value }: Condition): Filter {
    switch (comparison) {
      case 'eq':
        return this.equals(field, value);
      case 'in':
        return { $or: (value as unknown[]).map((item) => this.equals(field, item)) };
      case 'null':
        return { [path(field)]: value === true ? null : { $ne: null } };
      default:
        return { [path(field)]: { [`$${comparison}`]: value } };
    }
  }

  private scoped(scope: OwnerScope, filters: Filter[]): Filter {
    const all = [...(scope.ownerId === undefined ? [] : [{ ownerId: scope.ownerId }]), ...filters];
    return all.length === 0 ? {} : { $and: all };
  }

  /** A keyset segment's condition (keyset.ts), on the stored value as it is. */
  private keyCondition({ field, is, value }: KeyCondition): Filter {
    if (is === 'same') return { [path(field)]: value ?? null };
    if (is === 'notNull') return { [path(field)]: { $ne: null } };
    return { [path(field)]: { [is === 'greater' ? '$gt' : '$lt']: value } };
  }

  create(ownerId: string, fields: FieldsOf<F>, options: { judge?: WriteJudge } = {}): Promise<RecordOf<F>> {
    const values = withDefaults(this.plain, fields as Record<string, unknown>);
    const judgement = { stored: null, changed: Object.keys(fields as Record<string, unknown>), judge: options.judge };
    const write = () =>
      this.context.run(async () =>
        this.toRecord((await this.model.create({ ...this.withShadows(values), ownerId })).toObject() as Document),
      );
    return writeUnderRules(this.plain, ownerId, undefined, values, this.lookups, write, judgement);
  }

  findById(id: string, scope: OwnerScope): Promise<RecordOf<F> | null> {
    if (!isId(id)) return Promise.resolve(null);
    return this.context.run(async () => {
      const document = await this.model
        .findOne(this.scoped(scope, [{ _id: id }]))
        .maxTimeMS(this.context.timeoutMs)
        .lean<Document>()
        .exec();
      return document ? this.toRecord(document) : null;
    });
  }

  list(scope: OwnerScope, query: ListQuery): Promise<ResourcePage<RecordOf<F>>> {
    const filtered = query.where.map((condition) => this.condition(condition));
    const searchScan = query.search === undefined ? undefined : this.searchScan(scope, filtered, query.search);
    return this.context.run(() =>
      listPage<RecordOf<F>>(query, (field) => this.definition(field)?.optional === true, {
        ...(searchScan ? { searchScan } : {}),
        read: async (segment, limit, offset) => {
          const documents = await this.model
            .find(this.scoped(scope, [...filtered, ...segment.where.map((condition) => this.keyCondition(condition))]))
            .sort(
              Object.fromEntries(
                indexOrder(segment, scope.ownerId !== undefined).map(({ field, descending }) => [
                  path(field),
                  descending ? -1 : 1,
                ]),
              ),
            )
            .skip(offset)
            .limit(limit)
            .maxTimeMS(this.context.timeoutMs)
            .lean<Document[]>()
            .exec();
          return documents.map((document) => this.toRecord(document));
        },
        count: (upTo) =>
          this.model
            .countDocuments(this.scoped(scope, filtered), { limit: upTo })
            .maxTimeMS(this.context.timeoutMs)
            .exec(),
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
    const guarded = (options.guard ?? []).map((condition) => this.condition(condition));
    const run = <T>(operation: () => Promise<T>) => this.context.run(operation);
    return updateUnderRules(this.plain, changes as Record<string, unknown>, options, this.lookups, {
      read: () =>
        run(async () =>
          this.recordOrNull(
            await this.model
              .findOne(this.scoped(scope, [{ _id: id }, ...guarded]))
              .maxTimeMS(this.context.timeoutMs)
              .lean<Document>()
              .exec(),
          ),
        ),
      write: (stored, values, updatedAt) =>
        run(async () => {
          // The stored updatedAt in the filter: of two writes judged on the same record, one lands, the other reads again.
          // updatedAt is ours, the write's one time (stamped fields hold the same): mongoose's own timestamp would be another instant.
          const filter = this.scoped(scope, [{ _id: id, updatedAt: stored.updatedAt }]);
          const set = { $set: { ...this.withShadows(values), updatedAt } };
          return this.recordOrNull(
            await this.model
              .findOneAndUpdate(filter, set, { returnDocument: 'after', runValidators: true, timestamps: false })
              .maxTimeMS(this.context.timeoutMs)
              .lean<Document>()
              .exec(),
          );
        }),
    });
  }

  private recordOrNull(document: Document | null): RecordOf<F> | null {
    return document ? this.toRecord(document) : null;
  }

  delete(id: string, scope: OwnerScope): Promise<boolean> {
    if (!isId(id)) return Promise.resolve(false);
    return this.context.run(async () => {
      const found = await this.model
        .exists(this.scoped(scope, [{ _id: id }]))
        .maxTimeMS(this.context.timeoutMs)
        .exec();
      if (!found) return false;
      await deleteWithReferrers(this.context, this.plain, [id]);
      return true;
    });
  }

  /** The write rules' look-ups (write-rules.ts) in this family's terms. */
  private readonly lookups: WriteLookups = {
    recordInScope: async (target, id, scope) =>
      (await this.context.run(() =>
        referencedModel(this.context, target)
          .exists({ _id: id, ...scope })
          .maxTimeMS(this.context.timeoutMs)
          .exec(),
      )) !== null,
    keyHeld: async (key, values, ownerId, exceptId) => {
      const filter = this.scoped({ ownerId }, [
        ...key.map((name) => this.equals(name, values[name])),
        ...(exceptId ? [{ _id: { $ne: exceptId } }] : []),
      ]);
      return (
        (await this.context.run(() => this.model.exists(filter).maxTimeMS(this.context.timeoutMs).exec())) !== null
      );
    },
  };
}

/**
 * Deletes these records of a resource after applying the rules of those pointing at them, as foreign keys
 * would: every 'restrict' is checked over the whole tree before anything is deleted, then 'cascade'
 * records go, deepest first. (Without a replica set there is no transaction: a record pointing at one of
 * these, written between the check and the delete, is left pointing at nothing.)
 */
async function deleteWithReferrers(
  { connection, timeoutMs }: MongoStoreContext,
  resource: Resource,
  ids: string[],
): Promise<void> {
  const plan: { model: AnyModel; ids: string[] }[] = [];
  const visit = async (current: Resource, currentIds: string[]): Promise<void> => {
    for (const referrer of referrersOf(current)) {
      const model = connection.models[referrer.resource.modelName] as AnyModel | undefined;
      if (!model) continue; // that resource's module is not mounted here: nothing of it is kept
      const pointing = (
        await model
          .find({ [referrer.field]: { $in: currentIds } }, { _id: 1 })
          .maxTimeMS(timeoutMs)
          .lean<Document[]>()
          .exec()
      ).map((document) => document._id);
      if (pointing.length === 0) continue;
      if (referrer.onDelete === 'restrict') throw new ReferencedRecordError(referrer.resource.name);
      await visit(referrer.resource, pointing);
      plan.push({ model, ids: pointing });
    }
  };
  await visit(resource, ids);
  for (const step of plan) await step.model.deleteMany({ _id: { $in: step.ids } }).exec();
  await (connection.models[resource.modelName] as AnyModel).deleteMany({ _id: { $in: ids } }).exec();
}
/* eslint-enable @typescript-eslint/no-explicit-any */
