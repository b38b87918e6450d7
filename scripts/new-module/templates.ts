import { spelling } from './field-types';
import type { FieldSpec, ModuleSpec } from './spec';

// The files of a generated module, as text. Each function writes one file in this repository's style;
// `npm run new:module` checks them with lint, typecheck and their own tests in CI (scripts/ci/new-module.sh).

const lines = (items: string[], indent: string) => items.map((item) => `${indent}${item}`).join('\n');
const optionalSuffix = (field: FieldSpec) => (field.optional ? ' | null' : '');

function names(spec: ModuleSpec) {
  const { singular, camel } = spec;
  return {
    record: singular,
    fields: `${singular}Fields`,
    store: `${singular}Store`,
    storeConst: `${singular[0]!.toLowerCase()}${singular.slice(1)}Store`,
    sqlStore: `Sql${singular}Store`,
    mongoStore: `Mongo${singular}Store`,
    createBody: `Create${singular}Body`,
    updateBody: `Update${singular}Body`,
    createSchema: `create${singular}Schema`,
    recordSchema: `${singular[0]!.toLowerCase()}${singular.slice(1)}Schema`,
    pageSchema: `${singular[0]!.toLowerCase()}${singular.slice(1)}PageSchema`,
    updateSchema: `update${singular}Schema`,
    routes: `${singular[0]!.toLowerCase()}${singular.slice(1)}Routes`,
    module: `${camel}Module`,
    migration: `create${singular === camel ? `${singular}Table` : camel[0]!.toUpperCase() + camel.slice(1)}`,
    migrationFile: `0001-create-${spec.name}`,
    label: spec.name.replace(/-/g, ' '),
  };
}

export function typesFile(spec: ModuleSpec): string {
  const n = names(spec);
  return `import type { OwnedRecord, RecordStore } from '../kit';

/** One of the ${n.label} as stored and as answered (dates become ISO 8601 strings in JSON). */
export interface ${n.record} extends OwnedRecord {
${lines(spec.fields.map((f) => `${f.name}: ${spelling(f).recordType}${optionalSuffix(f)};`), '  ')}
}

/** What a caller sets: the required fields on create, any of them on update (null empties an optional one). */
export interface ${n.fields} {
${lines(spec.fields.map((f) => `${f.name}${f.optional ? '?' : ''}: ${spelling(f).recordType}${optionalSuffix(f)};`), '  ')}
}

/** The ${n.label} store: CRUD of owned records, the same on every engine. Add query methods here and in both implementations. */
export type ${n.store} = RecordStore<${n.record}, ${n.fields}>;
`;
}

export function storeFile(spec: ModuleSpec): string {
  const n = names(spec);
  return `import { defineStore } from '../kit';
import { ${n.migration} } from './migrations/${n.migrationFile}';
import { ${n.mongoStore} } from './mongo-store';
import { ${n.sqlStore} } from './sql-store';
import type { ${n.store} } from './types';

/** The ${n.label} store, opened by the service on the configured engine. A new migration goes at the end of the list. */
export const ${n.storeConst} = defineStore<${n.store}>({
  name: '${spec.name}',
  migrations: [${n.migration}],
  relational: (context) => new ${n.sqlStore}(context),
  mongodb: (context) => new ${n.mongoStore}(context),
});
`;
}

export function sqlStoreFile(spec: ModuleSpec): string {
  const n = names(spec);
  return `import { defineRecordModel, SqlRecordStore, type SqlStoreContext } from '../kit';
import type { ${n.record}, ${n.fields} } from './types';

/** The ${n.label} on SQLite, PostgreSQL, MySQL/MariaDB and SQL Server: table \`${spec.table}\` (see migrations/). */
export class ${n.sqlStore} extends SqlRecordStore<${n.record}, ${n.fields}> {
  constructor(context: SqlStoreContext) {
    const { DataTypes } = context; // Sequelize's, from the connection: a service on MongoDB never loads it
    super(
      context,
      defineRecordModel(context.sequelize, '${n.record}', '${spec.table}', {
${lines(spec.fields.map((f) => `${f.name}: { type: ${spelling(f).model}, allowNull: ${f.optional} },`), '        ')}
      }),
    );
  }
}
`;
}

export function mongoStoreFile(spec: ModuleSpec): string {
  const n = names(spec);
  const field = (f: FieldSpec) => `${f.name}: { type: ${spelling(f).mongo}, ${f.optional ? 'default: null' : 'required: true'} },`;
  return `import { MongoRecordStore, type MongoStoreContext } from '../kit';
import type { ${n.record}, ${n.fields} } from './types';

/** The ${n.label} on MongoDB: collection \`${spec.table}\`, indexed on (ownerId, createdAt, _id): its list order. */
export class ${n.mongoStore} extends MongoRecordStore<${n.record}, ${n.fields}> {
  constructor(context: MongoStoreContext) {
    const schema = context.ownedRecordSchema({
${lines(spec.fields.map(field), '      ')}
    });
    super(context, context.connection.model('${n.record}', schema, '${spec.table}'));
  }
}
`;
}

export function migrationFile(spec: ModuleSpec): string {
  const n = names(spec);
  const usesDataTypes = spec.fields.some((f) => f.type !== 'datetime');
  const usesTimestamp = spec.fields.some((f) => f.type === 'datetime');
  const kitImports = ['createRecordTable', ...(usesDataTypes ? ['dataTypesOf'] : []), ...(usesTimestamp ? ['millisecondTimestamp'] : []), 'type SqlMigration'];
  return `import { ${kitImports.join(', ')} } from '../../kit';

// The ${n.label} table: id, owner_id, created_at and updated_at come with createRecordTable. Never edit this
// file once it has run anywhere: add 0002-… beside it and list it in ../store.ts.
export const ${n.migration}: SqlMigration = {
  name: '${spec.name}-${n.migrationFile}',
  async up(queryInterface) {
${usesDataTypes ? '    const DataTypes = dataTypesOf(queryInterface); // not imported: a service on MongoDB never loads Sequelize\n' : ''}    await createRecordTable(queryInterface, '${spec.table}', {
${lines(spec.fields.map((f) => `${f.column}: { type: ${spelling(f).column}, allowNull: ${f.optional} },`), '      ')}
    });
  },
  async down(queryInterface) {
    await queryInterface.dropTable('${spec.table}');
  },
};
`;
}

export function schemasFile(spec: ModuleSpec): string {
  const n = names(spec);
  const nullable = (schema: string, f: FieldSpec) => (f.optional ? `Type.Union([${schema}, Type.Null()])` : schema);
  const bodyField = (f: FieldSpec) => `${f.name}: ${nullable(spelling(f).schema, f)},`;
  // In the record a datetime is a Date (JSON: an ISO string); every other field is as in the body.
  const recordField = (f: FieldSpec) => `${f.name}: ${spelling(f).recordSchema ? nullable(spelling(f).recordSchema!, f) : `fields.${f.name}`},`;
  const usesTimestamp = spec.fields.some((f) => spelling(f).recordSchema === 'timestamp');
  const kit = ['ownedRecordSchema', 'pageSchema', ...(usesTimestamp ? ['timestamp'] : []), 'Type', 'type Static'];
  return `import { ${kit.join(', ')} } from '../kit';

// What the ${n.label} routes take and answer, from one list of fields: the bodies (validated, typed for the
// handlers) and the record (for the API document). Optional fields may be null, which empties them.

const fields = {
${lines(spec.fields.map(bodyField), '  ')}
};

/** POST: the required fields and any optional ones, nothing else. */
export const ${n.createSchema} = Type.Object(
  {
${lines(spec.fields.map((f) => `${f.name}: ${f.optional ? `Type.Optional(fields.${f.name})` : `fields.${f.name}`},`), '    ')}
  },
  { additionalProperties: false },
);
export type ${n.createBody} = Static<typeof ${n.createSchema}>;

/** PATCH: any of the fields, at least one. */
export const ${n.updateSchema} = Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1 });
export type ${n.updateBody} = Static<typeof ${n.updateSchema}>;

/** One record as answered; datetimes are ISO 8601 strings with milliseconds. */
export const ${n.recordSchema} = ownedRecordSchema({
${lines(spec.fields.map(recordField), '  ')}
});

export const ${n.pageSchema} = pageSchema(${n.recordSchema});
`;
}

export function routesFile(spec: ModuleSpec): string {
  const n = names(spec);
  const convert = (f: FieldSpec, value: string) => (f.type === 'datetime' ? (f.optional ? `${value} === null ? null : new Date(${value})` : `new Date(${value})`) : value);
  const copy = (f: FieldSpec) => `if (body.${f.name} !== undefined) fields.${f.name} = ${convert(f, `body.${f.name}`)};`;
  const required = spec.fields.filter((f) => !f.optional).map((f) => `${f.name}: ${convert(f, `ctx.request.body.${f.name}`)}`);
  return `import { callerOf, idParams, notFound, ownerScope, pageQuery, route, type ModuleDefinition } from '../kit';
import { ${n.createSchema}, ${n.pageSchema}, ${n.recordSchema}, ${n.updateSchema}, type ${n.updateBody} } from './schemas';
import type { ${n.fields}, ${n.store} } from './types';

const NOT_FOUND = 'No such record, or not yours';

/** Someone else's record, an unknown id and a malformed one all answer the same 404. */
function missing(): never {
  throw notFound(NOT_FOUND);
}

/** The body's fields as the store keeps them (only the declared ones; datetimes as Date). */
function toFields(body: ${n.updateBody}): Partial<${n.fields}> {
  const fields: Partial<${n.fields}> = {};
${lines(spec.fields.map(copy), '  ')}
  return fields;
}

/** CRUD under /api/${spec.name}: every signed-in user works on their own records; role admin on all of them. */
export function ${n.routes}(store: ${n.store}): ModuleDefinition['routes'] {
  return [
    route({
      method: 'POST',
      path: '/',
      access: 'authenticated',
      summary: 'Create a record owned by the caller',
      body: ${n.createSchema},
      responses: { 201: ${n.recordSchema} },
      location: (created) => \`/api/${spec.name}/\${created.id}\`,
      handler: (ctx) => store.create(callerOf(ctx).id, { ...toFields(ctx.request.body), ${required.join(', ')} }),
    }),
    route({
      method: 'GET',
      path: '/',
      access: 'authenticated',
      summary: "The caller's records (an admin's: everyone's), newest first, a page at a time",
      query: pageQuery,
      responses: { 200: ${n.pageSchema} },
      handler: (ctx) => store.list(ownerScope(callerOf(ctx)), ctx.query),
    }),
    route({
      method: 'GET',
      path: '/:id',
      access: 'authenticated',
      summary: 'One record',
      params: idParams,
      responses: { 200: ${n.recordSchema} },
      errors: { 404: NOT_FOUND },
      handler: async (ctx) => (await store.findById(ctx.params.id, ownerScope(callerOf(ctx)))) ?? missing(),
    }),
    route({
      method: 'PATCH',
      path: '/:id',
      access: 'authenticated',
      summary: 'Change some fields of a record',
      params: idParams,
      body: ${n.updateSchema},
      responses: { 200: ${n.recordSchema} },
      errors: { 404: NOT_FOUND },
      handler: async (ctx) => (await store.update(ctx.params.id, ownerScope(callerOf(ctx)), toFields(ctx.request.body))) ?? missing(),
    }),
    route({
      method: 'DELETE',
      path: '/:id',
      access: 'authenticated',
      summary: 'Delete a record',
      params: idParams,
      responses: { 204: null },
      errors: { 404: NOT_FOUND },
      handler: async (ctx) => {
        if (!(await store.delete(ctx.params.id, ownerScope(callerOf(ctx))))) missing();
      },
    }),
  ];
}
`;
}

export function indexFile(spec: ModuleSpec): string {
  const n = names(spec);
  return `import { defineModule } from '../kit';
import { ${n.routes} } from './routes';
import { ${n.storeConst} } from './store';

/** The ${n.label}, mounted at /api/${spec.name}: owned records (generated by \`npm run new:module\`). */
export const ${n.module} = defineModule([${n.storeConst}], ({ database }) => ({
  name: '${spec.name}',
  description: 'The ${n.label}: each signed-in user works on their own records, role admin on all of them',
  routes: ${n.routes}(database.store(${n.storeConst})),
}));
`;
}

export { names };
