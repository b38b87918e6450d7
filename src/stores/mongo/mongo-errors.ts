import { MongoError } from 'mongodb';
import { DuplicateKeyError, StoreUnavailableError } from '../errors';

const DUPLICATE_KEY = 11000;
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

function isMongoUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  if (error instanceof MongoError && typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code)) return true;
  // bufferCommands is off: an operation before the connection is open fails with this MongooseError.
  return error.name === 'MongooseError' && /before initial connection|buffering timed out|not connected/i.test(error.message);
}

export function translateMongoError(error: unknown): unknown {
  if (error instanceof MongoError && error.code === DUPLICATE_KEY) return new DuplicateKeyError(undefined, { cause: error });
  if (isMongoUnavailable(error)) return new StoreUnavailableError(undefined, { cause: error });
  return error;
}
