// What a log line says about an error. Database drivers put the statement and its bound values on their
// errors (Sequelize's `sql` and `parameters`, mysql2's `sql` and "Duplicate entry '<email>'" messages,
// PostgreSQL's `detail` "Key (email)=(…)", an argon2 hash in an INSERT): pino's default serializer writes
// all of it. This one writes, for the error and each cause, its kind and codes, and a message only when
// the error did not come from a database driver: never a statement or a value.

interface Described {
  type: string;
  /** The store call that failed (`users.findByEmail`), when a store threw it (src/stores/observed-database.ts). */
  operation?: string;
  message?: string;
  code?: string | number;
  stack?: string;
  cause?: Described;
}

const MAX_CAUSES = 5;

/** True for an error a database driver (or Sequelize, or mongoose) made: its message and fields may hold values. */
function fromDatabase(error: Record<string, unknown>, name: string): boolean {
  if (/^(Sequelize|Mongo|Mongoose)/.test(name) || name === 'RequestError' || name === 'ConnectionError') return true;
  return [
    'sql',
    'parameters',
    'sqlMessage',
    'sqlState',
    'original',
    'parent',
    'detail',
    'errorResponse',
    'routine',
  ].some((key) => key in error);
}

function describeOne(value: unknown, depth: number): Described {
  if (!(value instanceof Error) && (typeof value !== 'object' || value === null))
    return { type: typeof value, message: String(value) };
  const error = value as Error & Record<string, unknown>;
  const type = error.name || error.constructor?.name || 'Error';
  const database = fromDatabase(error, type);
  const code =
    typeof error.code === 'string' || typeof error.code === 'number'
      ? error.code
      : (error.number as number | undefined);
  const described: Described = { type };
  if (typeof error.storeOperation === 'string') described.operation = error.storeOperation;
  if (code !== undefined) described.code = code;
  if (!database) {
    described.message = error.message;
    if (typeof error.stack === 'string') described.stack = error.stack;
  } else if (typeof error.stack === 'string') {
    // The frames say where; the first line repeats the message, which is the driver's and may hold values.
    described.stack = [type, ...error.stack.split('\n').filter((line) => /^\s+at /.test(line))].join('\n');
  }
  const cause = error.cause ?? error.original ?? error.parent;
  if (cause !== undefined && cause !== error && depth < MAX_CAUSES) described.cause = describeOne(cause, depth + 1);
  return described;
}

/** pino's `err` serializer: see above. */
export function serializeError(error: unknown): Described {
  return describeOne(error, 0);
}
