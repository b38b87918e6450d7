import { CheckViolationError, DuplicateKeyError, StoreUnavailableError } from '../errors';

// Told apart by name and code, never by `instanceof`: mongoose bundles its own copy of the mongodb driver,
// and an error from that copy is not an instance of the `mongodb` package this project would import.
/** Duplicate key (11000), and its legacy form from old servers' updates (11001). */
const DUPLICATE_KEY_CODES = new Set([11000, 11001]);
/** Error names for "no server to talk to right now": network, selection, pool and timeouts. */
const UNAVAILABLE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoTopologyClosedError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
]);
/** Server codes: operation exceeded time limit (maxTimeMS), shutdown in progress, not primary. */
const UNAVAILABLE_CODES = new Set([50, 91, 189, 10107, 11600, 11602, 13435, 13436]);

/** A server error's numeric code, for errors from any copy of the driver (`MongoServerError`, `MongoBulkWriteError`, …). */
function serverCode(error: Error): number | undefined {
  const { code } = error as { code?: unknown };
  return /^Mongo/.test(error.name) && typeof code === 'number' ? code : undefined;
}

function isMongoUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  const code = serverCode(error);
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return true;
  // bufferCommands is off: an operation before the connection is open fails with this MongooseError.
  return (
    error.name === 'MongooseError' && /before initial connection|buffering timed out|not connected/i.test(error.message)
  );
}

export function translateMongoError(error: unknown): unknown {
  if (error instanceof Error && DUPLICATE_KEY_CODES.has(serverCode(error) ?? -1))
    return new DuplicateKeyError(undefined, { cause: error });
  // Document failed validation (121): the collection's $jsonSchema validator (collection-validator.ts) refused it.
  if (error instanceof Error && serverCode(error) === 121) return new CheckViolationError(undefined, { cause: error });
  if (isMongoUnavailable(error)) return new StoreUnavailableError(undefined, { cause: error });
  return error;
}
