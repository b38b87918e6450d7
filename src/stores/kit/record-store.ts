/** What every owned record carries besides its own fields. */
export interface OwnedRecord {
  /** A UUIDv7 string on every engine. */
  id: string;
  /** The id of the user who created it. */
  ownerId: string;
  /** Millisecond precision on every engine. */
  createdAt: Date;
  updatedAt: Date;
}
