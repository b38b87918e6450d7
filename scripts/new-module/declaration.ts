import ts from 'typescript';
import { SpecError, type FieldType } from './field-spec';
import {
  appendElement,
  callArgumentObject,
  insertBefore,
  namedImports,
  parse,
  prependElement,
  propertyName,
  propertyOf,
  quoted,
  removeElement,
  replaceNode,
  stringValue,
} from './syntax-tree';

// A kit module's resource.ts read and edited through its syntax tree: the object given to defineResource,
// its `fields` (each `name: field.<kind>(…)`), its lists (filters, sort, search, unique), its actions and
// its migrations. Every edit takes the file's text and gives the edited text; the layout of the rest stays.

export type DeclaredList = 'filters' | 'sort' | 'search' | 'checks';

/** A field as declared: `pinned: field.boolean({ optional: true })`, `note: field.reference(() => notesResource, { onDelete: 'cascade' })`. */
export interface DeclaredField {
  name: string;
  type: FieldType;
  /** The options object as written (`{ optional: true }`), or '' when there is none. */
  options: string;
  /** Each option's value as written: `optional` → `true`, `default` → `'x'`. */
  option: Record<string, string>;
  /** For a reference: the resource constant it points at (`notesResource`) and the module that file imports it from. */
  reference?: { resource: string; module: string | undefined };
}

interface Parsed {
  file: ts.SourceFile;
  resource: ts.ObjectLiteralExpression;
}

function parsed(source: string, where = 'resource.ts'): Parsed {
  const file = parse(source);
  const resource = callArgumentObject(file, 'defineResource');
  if (!resource) throw new SpecError(`${where}: cannot find the object given to defineResource({ … })`);
  return { file, resource };
}

/** The initializer of one of the resource's properties, when it is of the wanted kind. */
function entry<T extends ts.Node>({ resource }: Parsed, key: string, is: (node: ts.Node) => node is T): T | undefined {
  const initializer = propertyOf(resource, key)?.initializer;
  return initializer && is(initializer) ? initializer : undefined;
}

function fieldsObject(declaration: Parsed, where = 'resource.ts'): ts.ObjectLiteralExpression {
  const fields = entry(declaration, 'fields', ts.isObjectLiteralExpression);
  if (!fields) throw new SpecError(`${where}: cannot find its 'fields: { … }' object`);
  return fields;
}

function readField(property: ts.ObjectLiteralElementLike, imports: Map<string, string>, where: string): DeclaredField {
  const name = propertyName(property);
  const call = ts.isPropertyAssignment(property) ? property.initializer : undefined;
  if (!name || !call || !ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression))
    throw new SpecError(`${where}: cannot read the field declared as '${property.getText()}'`);
  const type = call.expression.name.text as FieldType;
  const options = call.arguments.find(ts.isObjectLiteralExpression);
  const assignments = options
    ? options.properties.filter((item): item is ts.PropertyAssignment => ts.isPropertyAssignment(item))
    : [];
  const option = Object.fromEntries(assignments.map((item) => [propertyName(item) ?? '', item.initializer.getText()]));
  const field: DeclaredField = { name, type, options: options?.getText() ?? '', option };
  const target = call.arguments[0];
  if (type === 'reference' && target && ts.isArrowFunction(target) && ts.isIdentifier(target.body)) {
    const specifier = imports.get(target.body.text);
    field.reference = {
      resource: target.body.text,
      module: /^\.\.\/([a-z0-9-]+)\/resource$/.exec(specifier ?? '')?.[1],
    };
  }
  return field;
}

/** The fields declared, in their order. */
export function declaredFields(source: string, where = 'resource.ts'): DeclaredField[] {
  const declaration = parsed(source, where);
  const imports = namedImports(declaration.file);
  return fieldsObject(declaration, where).properties.map((property) => readField(property, imports, where));
}

/** A list of names (`filters`, `sort`, `search`), empty when the declaration has none. */
export function declaredList(source: string, key: DeclaredList): string[] {
  const list = entry(parsed(source), key, ts.isArrayLiteralExpression);
  return (list?.elements ?? []).map((element) => stringValue(element) ?? element.getText());
}

/** The unique keys, each a list of field names. */
export function declaredUnique(source: string): string[][] {
  const list = entry(parsed(source), 'unique', ts.isArrayLiteralExpression);
  return (list?.elements ?? []).map((key) =>
    ts.isArrayLiteralExpression(key) ? key.elements.map((element) => stringValue(element) ?? element.getText()) : [],
  );
}

/** The actions' names and text (`close: { … }`). */
export function declaredActions(source: string): { name: string; text: string }[] {
  const actions = entry(parsed(source), 'actions', ts.isObjectLiteralExpression);
  return (actions?.properties ?? []).map((property) => ({
    name: propertyName(property) ?? '',
    text: property.getText(),
  }));
}

/** The migrations listed, in order, each with the file it is imported from (`./migrations/0001-create-notes`). */
export function declaredMigrations(
  source: string,
  where = 'resource.ts',
): { constant: string; from: string | undefined }[] {
  const declaration = parsed(source, where);
  const list = entry(declaration, 'migrations', ts.isArrayLiteralExpression);
  if (!list) throw new SpecError(`${where}: cannot find its 'migrations: [ … ]' list`);
  const imports = namedImports(declaration.file);
  return list.elements.map((element) => ({ constant: element.getText(), from: imports.get(element.getText()) }));
}

/** The source with a property added to the resource object, before `migrations` (or last). */
function withProperty(source: string, key: string, value: string): string {
  const declaration = parsed(source);
  const migrations = propertyOf(declaration.resource, 'migrations');
  return migrations
    ? insertBefore(source, declaration.resource, migrations, `${key}: ${value}`)
    : appendElement(source, declaration.resource, `${key}: ${value}`);
}

/** The source without one of the resource object's properties. */
function withoutProperty(source: string, key: string): string {
  const { resource } = parsed(source);
  const property = propertyOf(resource, key);
  return property ? removeElement(source, resource, property) : source;
}

/** The declaration with one more field, last. */
export function withField(source: string, name: string, declaration: string): string {
  return appendElement(source, fieldsObject(parsed(source)), `${name}: ${declaration}`);
}

function fieldProperty(
  source: string,
  name: string,
): { fields: ts.ObjectLiteralExpression; property: ts.PropertyAssignment } {
  const fields = fieldsObject(parsed(source));
  const property = propertyOf(fields, name);
  if (!property) throw new SpecError(`resource.ts declares no field '${name}'`);
  return { fields, property };
}

export function withoutField(source: string, name: string): string {
  const { fields, property } = fieldProperty(source, name);
  return removeElement(source, fields, property);
}

export function withFieldRenamed(source: string, from: string, to: string): string {
  return replaceNode(source, fieldProperty(source, from).property.name, to);
}

/**
 * The field with one option set to `value` (a TypeScript expression), or removed when `value` is undefined;
 * a new option goes first or last among the others; an options object left empty goes too.
 */
export function withFieldOption(
  source: string,
  name: string,
  key: string,
  value: string | undefined,
  position: 'first' | 'last' = 'last',
): string {
  const call = fieldProperty(source, name).property.initializer as ts.CallExpression;
  const options = call.arguments.find(ts.isObjectLiteralExpression);
  const present = options ? propertyOf(options, key) : undefined;
  if (value === undefined) {
    if (!options || !present) return source;
    if (options.properties.length > 1) return removeElement(source, options, present);
    const index = call.arguments.indexOf(options);
    const start = index > 0 ? call.arguments[index - 1]!.getEnd() : options.getStart();
    return (
      source.slice(0, start) +
      source.slice(call.arguments.hasTrailingComma ? source.indexOf(',', options.getEnd()) + 1 : options.getEnd())
    );
  }
  if (present) return replaceNode(source, present.initializer, value);
  if (options)
    return position === 'first'
      ? prependElement(source, options, `${key}: ${value}`)
      : appendElement(source, options, `${key}: ${value}`);
  const last = call.arguments.at(-1);
  const at = last ? last.getEnd() : call.arguments.pos;
  return source.slice(0, at) + `${last ? ', ' : ''}{ ${key}: ${value} }` + source.slice(at);
}

/** The declaration with `name` added to a list (created before `migrations` when missing), unless it is there. */
export function withListEntry(source: string, key: DeclaredList, name: string): string {
  const declaration = parsed(source);
  const list = entry(declaration, key, ts.isArrayLiteralExpression);
  if (!list) return withProperty(source, key, `[${quoted(declaration.file, name)}]`);
  if (list.elements.some((element) => stringValue(element) === name)) return source;
  return appendElement(source, list, quoted(declaration.file, name));
}

/** The declaration without one entry of a list (the list gone with its last entry). */
export function withoutListEntry(source: string, key: DeclaredList, name: string): string {
  const list = entry(parsed(source), key, ts.isArrayLiteralExpression);
  const element = list?.elements.find((candidate) => stringValue(candidate) === name);
  if (!list || !element) return source;
  return list.elements.length === 1 ? withoutProperty(source, key) : removeElement(source, list, element);
}

/** Every mention of a field in a list or unique key renamed (`from` → `to`). */
export function withListsRenamed(source: string, from: string, to: string): string {
  let edited = source;
  for (;;) {
    const declaration = parsed(edited);
    const lists = ['filters', 'sort', 'search', 'unique']
      .map((key) => entry(declaration, key, ts.isArrayLiteralExpression))
      .filter((list) => list !== undefined);
    const mention = lists
      .flatMap((list) => [
        ...list.elements,
        ...list.elements.flatMap((element) => (ts.isArrayLiteralExpression(element) ? [...element.elements] : [])),
      ])
      .find((element) => stringValue(element) === from);
    if (!mention) return edited;
    edited = replaceNode(edited, mention, quoted(declaration.file, to));
  }
}

/** The field gone from every list, and every unique key holding it gone (an empty `unique` or `search` goes too). */
export function withoutListed(source: string, name: string): string {
  let edited = source;
  for (const key of ['filters', 'sort', 'search', 'unique']) {
    for (;;) {
      const list = entry(parsed(edited), key, ts.isArrayLiteralExpression);
      const element = list?.elements.find(
        (candidate) =>
          stringValue(candidate) === name ||
          (ts.isArrayLiteralExpression(candidate) && candidate.elements.some((part) => stringValue(part) === name)),
      );
      if (!list || !element) break;
      edited =
        list.elements.length === 1 && (key === 'unique' || key === 'search')
          ? withoutProperty(edited, key)
          : removeElement(edited, list, element);
    }
  }
  return edited;
}

/** The declaration with one more action (`archive: { … }`), the `actions` object created when missing. */
export function withAction(source: string, action: string): string {
  const text = action.replace(/,\s*$/, '');
  const actions = entry(parsed(source), 'actions', ts.isObjectLiteralExpression);
  if (!actions) return withProperty(source, 'actions', `{\n    ${text},\n  }`);
  return appendElement(source, actions, text);
}

/** The `access` object as written (`{ read: 'authenticated', write: 'admin' }`): each key's string value. */
export function declaredAccess(source: string): Record<string, string | undefined> {
  const access = entry(parsed(source), 'access', ts.isObjectLiteralExpression);
  return Object.fromEntries(
    (access?.properties ?? []).flatMap((property) =>
      ts.isPropertyAssignment(property) ? [[propertyName(property) ?? '', stringValue(property.initializer)]] : [],
    ),
  );
}

/** The declaration with a property of the resource object set to `value` (replaced where it is, else added before `migrations`), or removed. */
export function withResourceProperty(source: string, key: string, value: string | undefined): string {
  const present = propertyOf(parsed(source).resource, key);
  if (value === undefined) return withoutProperty(source, key);
  return present ? replaceNode(source, present.initializer, value) : withProperty(source, key, value);
}

/** The declaration with one more migration listed, last. */
export function withMigrationListed(source: string, constant: string): string {
  const list = entry(parsed(source), 'migrations', ts.isArrayLiteralExpression);
  if (!list) throw new SpecError("resource.ts: cannot find its 'migrations: [ … ]' list");
  return appendElement(source, list, constant);
}
