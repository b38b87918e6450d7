/** The npm package a loaded file belongs to (`@scope/name` or `name`), or undefined for the project's own files. */
export function packageName(file: string): string | undefined {
  const marker = '/node_modules/';
  const at = file.lastIndexOf(marker);
  if (at < 0) return undefined;
  const [scope, name] = file.slice(at + marker.length).split('/');
  return scope?.startsWith('@') ? `${scope}/${name}` : scope;
}
