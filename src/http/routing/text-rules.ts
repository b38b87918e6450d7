import type { FieldError } from '../envelope';

// One rule for every text a request carries, whatever its schema says: no U+0000. PostgreSQL cannot
// store it in text (the driver writes the two characters `\0`), SQLite keeps it, MongoDB keeps it, and
// C-string APIs cut at it: the same input would give different records on different engines.

const MAX_DEPTH = 64;
const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** Field errors for every string (and property name) in `value` that holds U+0000; `prefix` as in the 422 paths. */
export function nulCharacterErrors(value: unknown, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (node: unknown, path: string, depth: number) => {
    if (typeof node === 'string') {
      if (node.includes('\u0000')) errors.push({ field: path || 'body', message: NUL_MESSAGE });
    } else if (node !== null && typeof node === 'object' && depth < MAX_DEPTH) {
      for (const [key, child] of Object.entries(node)) {
        const childPath = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) errors.push({ field: childPath, message: NUL_MESSAGE });
        else visit(child, childPath, depth + 1);
      }
    }
  };
  visit(value, prefix, 0);
  return errors;
}
