// The module kit: everything a module imports, from one place. Routes and access rules, the errors a
// handler throws, the shared route schemas (id params, page query, record and page shapes), the module and
// store declarations, the shared store behaviour (ids, owner scope, pagination), resources (declared fields →
// stores on both engine families, routes, schemas, migrations' columns), and TypeBox's `Type`. docs/modules.md
// walks through it.

export { Type, type Static } from '@sinclair/typebox';

export { HttpError, badRequest, conflict, forbidden, notFound, unauthorized, unprocessable } from '../http/errors';
export { callerOf } from '../http/routing/caller';
export { idParams, ownedRecordSchema, pageQuery, pageSchema, timestamp } from '../http/routing/record-schemas';
export {
  route,
  type Access,
  type AnyRoute,
  type ErrorDoc,
  type ErrorResponses,
  type HeaderDoc,
  type JsonSchema,
  type ModuleDefinition,
  type RouteContext,
  type RouteDefinition,
} from '../http/routing/route';
export { defineModule, type ModuleFactory, type Services } from '../services';
export { DuplicateKeyError, StoreUnavailableError } from '../stores/errors';
export { isId, newId } from '../stores/ids';
export {
  defineStore,
  type MongoStoreContext,
  type SqlStoreContext,
  type StoreDefinition,
} from '../stores/kit/definition';
export { ADMIN_ROLE, ownerScope, type OwnerScope } from '../stores/kit/owner-scope';
export {
  field,
  type FieldDefinition,
  type FieldKind,
  type Fields,
  type FieldsOf,
  type OnDelete,
  type RecordOf,
  type ValuesOf,
} from '../stores/kit/fields';
export type { ActionDeclaration, ActionValue, StateValue } from '../stores/kit/actions';
export type { FieldRules } from '../stores/kit/field-rules';
export type { Include, JoinInclude, ReferenceInclude } from '../stores/kit/includes';
export { defineResource, type AnyResource, type Resource, type ResourceDeclaration } from '../stores/kit/resource';
export { resourceStore } from '../stores/kit/resource-definition';
export { removedMigrations, type RemovedHistory } from '../stores/kit/removed-histories';
export type { ResourcePage, ResourceStore } from '../stores/kit/resource-store';
export type { Comparison, Condition, ListQuery, SortKey } from '../stores/kit/list-query';
export { resourceModule } from './resource-module';
export type { FieldErrors, RecordReader, WriteCheck, WriteCheckInput } from '../http/routing/write-check';
export type { CheckDeclaration, CheckOperator } from '../stores/kit/field-checks';
export type { UpdateOptions } from '../stores/kit/write-rules';
export {
  addFieldColumns,
  createResourceTable,
  fieldColumns,
  indexReferences,
} from '../stores/sql/migrations/resource-columns';
export { addUniqueKey, removeUniqueKey } from '../stores/sql/migrations/unique-key';
export { addSearchColumn, setFieldDefault } from '../stores/sql/migrations/field-changes';
export { dropFieldColumn, renameFieldColumn, restoreFieldColumns } from '../stores/sql/migrations/field-rename-drop';
export { setFieldRequired } from '../stores/sql/migrations/field-nullability';
export { addFieldCheck, removeFieldCheck, setFieldRules } from '../stores/sql/migrations/check-constraints';
export { makeCatalogue } from '../stores/sql/migrations/catalogue-owner';
export {
  addListIndexes,
  createListIndexes,
  listIndexColumns,
  removeListIndexes,
} from '../stores/sql/migrations/list-index-steps';
export { addSearchIndex, removeSearchIndex, type SearchIndexShape } from '../stores/sql/migrations/search-index';
export {
  DEFAULT_LIST_SETTINGS,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_OFFSET,
  MAX_PAGE_SIZE,
  type ListSettings,
  type Page,
  type PageRequest,
} from '../stores/kit/pagination';
export type { OwnedRecord } from '../stores/kit/record-store';
export { dataTypesOf, millisecondTimestamp } from '../stores/sql/migrations/column-types';
export type { SqlMigration } from '../stores/sql/migrations/migration';
export { createRecordTable } from '../stores/sql/migrations/record-table';
export { defineRecordModel } from '../stores/sql/record-model';
export { SqlResourceStore } from '../stores/sql/resource-sql-store';
export { MongoResourceStore } from '../stores/mongo/resource-mongo-store';
