import ts from 'typescript';

// The generator edits a declaration file through its syntax tree: it finds the node it changes (a property
// of the object given to defineResource, an element of a list, an import) by parsing, and splices new text
// at that node's position. The rest of the file keeps its spelling: a file formatted or commented by hand,
// with entries reordered or trailing commas, takes the same edits as one the generator wrote.

export type ListNode = ts.ArrayLiteralExpression | ts.ObjectLiteralExpression;

export function parse(source: string): ts.SourceFile {
  return ts.createSourceFile('declaration.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** A property's name as written (`title`, `'archive-all'`), or undefined for a computed or spread one. */
export function propertyName(property: ts.ObjectLiteralElementLike): string | undefined {
  const name = property.name;
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** The `key: value` property of an object literal. */
export function propertyOf(object: ts.ObjectLiteralExpression, key: string): ts.PropertyAssignment | undefined {
  return object.properties.find(
    (property): property is ts.PropertyAssignment =>
      ts.isPropertyAssignment(property) && propertyName(property) === key,
  );
}

/** The first node below `node` (itself included) that `test` accepts, depth first. */
export function findNode<T extends ts.Node>(
  node: ts.Node,
  test: (candidate: ts.Node) => candidate is T,
): T | undefined {
  if (test(node)) return node;
  return ts.forEachChild(node, (child) => findNode(child, test));
}

/** The object literal given to the first call of `callee` (`defineResource({ … })`). */
export function callArgumentObject(file: ts.SourceFile, callee: string): ts.ObjectLiteralExpression | undefined {
  const call = findNode(
    file,
    (node): node is ts.CallExpression => ts.isCallExpression(node) && node.expression.getText() === callee,
  );
  const argument = call?.arguments[0];
  return argument && ts.isObjectLiteralExpression(argument) ? argument : undefined;
}

/** The initializer of `const <name> … = …` at the top level, if it is an array literal. */
export function constantArray(file: ts.SourceFile, name: string): ts.ArrayLiteralExpression | undefined {
  const declaration = findNode(
    file,
    (node): node is ts.VariableDeclaration => ts.isVariableDeclaration(node) && node.name.getText() === name,
  );
  const initializer = declaration?.initializer;
  return initializer && ts.isArrayLiteralExpression(initializer) ? initializer : undefined;
}

/** The text of a string literal, or undefined for any other expression. */
export function stringValue(node: ts.Node): string | undefined {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined;
}

/** A string as a literal in the file's own quote style (single quotes unless it writes double ones). */
export function quoted(file: ts.SourceFile, text: string): string {
  const double = findNode(
    file,
    (node): node is ts.StringLiteral => ts.isStringLiteral(node) && !ts.isImportDeclaration(node.parent),
  )
    ?.getText()
    .startsWith('"');
  return double ? JSON.stringify(text) : `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

export function splice(source: string, { start, end, text }: Splice): string {
  return source.slice(0, start) + text + source.slice(end);
}

/** The whitespace before `node` on its line (its indentation), or undefined when something else precedes it there. */
function indentOf(source: string, node: ts.Node): string | undefined {
  const start = node.getStart();
  const lineStart = source.lastIndexOf('\n', start - 1) + 1;
  const before = source.slice(lineStart, start);
  return /^\s*$/.test(before) ? before : undefined;
}

const elementsOf = (list: ListNode): ts.NodeArray<ts.Node> =>
  ts.isArrayLiteralExpression(list) ? list.elements : list.properties;

/** Whether a list puts its elements on lines of their own. */
function multiline(source: string, list: ListNode): boolean {
  const first = elementsOf(list)[0];
  return first !== undefined && indentOf(source, first) !== undefined;
}

/** The source with `text` added as the list's last element, in the list's own layout. */
export function appendElement(source: string, list: ListNode, text: string): string {
  const elements = elementsOf(list);
  const last = elements.at(-1);
  if (!last) {
    const open = list.getStart() + 1;
    const close = list.getEnd() - 1;
    return splice(source, { start: open, end: close, text: ts.isArrayLiteralExpression(list) ? text : ` ${text} ` });
  }
  const indent = multiline(source, list) ? indentOf(source, last) : undefined;
  if (indent === undefined) return splice(source, { start: last.getEnd(), end: last.getEnd(), text: `, ${text}` });
  // On a line of its own below the last element, after that one's comma and the comment that may end its line.
  const lineEnd = source.indexOf('\n', last.getEnd());
  const rest = lineEnd < 0 ? undefined : source.slice(last.getEnd(), lineEnd);
  if (rest === undefined || !/^\s*,?\s*(\/\/.*|\/\*.*\*\/\s*)?$/.test(rest))
    return splice(source, { start: last.getEnd(), end: last.getEnd(), text: `,\n${indent}${text}` });
  const trailing = elements.hasTrailingComma;
  const edited = splice(source, { start: lineEnd, end: lineEnd, text: `\n${indent}${text}${trailing ? ',' : ''}` });
  return trailing ? edited : splice(edited, { start: last.getEnd(), end: last.getEnd(), text: ',' });
}

/** The source with `text` added as the list's first element. */
export function prependElement(source: string, list: ListNode, text: string): string {
  const first = elementsOf(list)[0];
  if (!first) return appendElement(source, list, text);
  const indent = multiline(source, list) ? indentOf(source, first) : undefined;
  return splice(source, {
    start: first.getStart(),
    end: first.getStart(),
    text: indent !== undefined ? `${text},\n${indent}` : `${text}, `,
  });
}

/** The source with `text` inserted as an element just before `element` (its leading comments stay with it). */
export function insertBefore(source: string, list: ListNode, element: ts.Node, text: string): string {
  if (multiline(source, list)) {
    const at = lineOf(source, element);
    return splice(source, { start: at, end: at, text: `${indentOf(source, element)}${text},\n` });
  }
  return splice(source, { start: element.getStart(), end: element.getStart(), text: `${text}, ` });
}

/** The start of the line `node` begins on, or of the first line of the comments right above it. */
function lineOf(source: string, node: ts.Node): number {
  const comments = (ts.getLeadingCommentRanges(source, node.getFullStart()) ?? []).filter((comment) =>
    /^[ \t]*$/.test(source.slice(source.lastIndexOf('\n', comment.pos - 1) + 1, comment.pos)),
  );
  return source.lastIndexOf('\n', (comments[0]?.pos ?? node.getStart()) - 1) + 1;
}

/** The source without `element` (with its leading comments and the comma that separated it). */
export function removeElement(source: string, list: ListNode, element: ts.Node): string {
  const elements = elementsOf(list);
  const index = elements.indexOf(element);
  const next = elements[index + 1];
  if (next) {
    const start = multiline(source, list) ? lineOf(source, element) : element.getStart();
    const end = multiline(source, list) ? lineOf(source, next) : next.getStart();
    return splice(source, { start, end, text: '' });
  }
  const previous = elements[index - 1];
  if (previous) return splice(source, { start: previous.getEnd(), end: element.getEnd(), text: '' });
  return splice(source, { start: list.getStart() + 1, end: list.getEnd() - 1, text: '' });
}

/** The source with a node's text replaced. */
export function replaceNode(source: string, node: ts.Node, text: string): string {
  return splice(source, { start: node.getStart(), end: node.getEnd(), text });
}

/** The named imports of the file: imported name → module specifier. */
export function namedImports(file: ts.SourceFile): Map<string, string> {
  const imports = new Map<string, string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) imports.set(element.name.text, statement.moduleSpecifier.text);
  }
  return imports;
}

/** The source with an import statement added after the last one. */
export function withImportStatement(source: string, statement: string): string {
  const imports = parse(source).statements.filter(ts.isImportDeclaration);
  const last = imports.at(-1);
  if (!last) return `${statement}\n${source}`;
  return splice(source, { start: last.getEnd(), end: last.getEnd(), text: `\n${statement}` });
}

/** The source without the named import `name` (the whole statement when it was its only name). */
export function withoutImport(source: string, name: string): string {
  const file = parse(source);
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const element = bindings.elements.find((candidate) => candidate.name.text === name);
    if (!element) continue;
    if (bindings.elements.length > 1 || statement.importClause?.name) {
      const index = bindings.elements.indexOf(element);
      const start = index > 0 ? bindings.elements[index - 1]!.getEnd() : element.getStart();
      const end = index > 0 ? element.getEnd() : bindings.elements[1]!.getStart();
      return splice(source, { start, end, text: '' });
    }
    const end = source[statement.getEnd()] === '\n' ? statement.getEnd() + 1 : statement.getEnd();
    return splice(source, { start: statement.getStart(), end, text: '' });
  }
  return source;
}
