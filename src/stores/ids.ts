import { v7 as uuidv7, validate } from 'uuid';

/**
 * A new record id: a UUIDv7 string (RFC 9562), the same kind on every engine. Time-ordered, so new rows land
 * at the end of a B-tree index instead of at random pages, and ids sort roughly by creation; within one
 * process ids are strictly increasing (the library keeps a counter inside each millisecond).
 * docs/decisions/006-record-ids-uuidv7.md says why this kind and not another.
 */
export function newId(): string {
  return uuidv7();
}

/**
 * True for a UUID in canonical form (any version, lower or upper case). Lookups skip the database for
 * anything else: an id that cannot exist is simply not found, whatever the column type of the engine.
 */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && validate(value);
}
