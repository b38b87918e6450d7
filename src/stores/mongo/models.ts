import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';

// Mongoose models for the MongoDB variant. Indexes are declared here and built by MongoDatabase.migrate()
// (autoIndex is off, so a running service never builds indexes behind anyone's back).

export interface UserDocument {
  _id: string;
  email: string;
  passwordHash: string;
  role: string;
  name: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RefreshTokenDocument {
  token: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
}

const userSchema = new Schema<UserDocument>(
  {
    // A UUID string, like the relational engines' ids, so user ids look the same on every engine.
    _id: { type: String, default: () => randomUUID() },
    email: { type: String, required: true },
    passwordHash: { type: String, required: true },
    role: { type: String, required: true },
    name: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);
userSchema.index({ email: 1 }, { unique: true, name: 'users_email_unique' });

const refreshTokenSchema = new Schema<RefreshTokenDocument>(
  {
    token: { type: String, required: true },
    userId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
refreshTokenSchema.index({ token: 1 }, { unique: true, name: 'refreshtokens_token_unique' });
// TTL index: MongoDB's monitor deletes a document once expiresAt has passed (it runs about every 60 s,
// so lookups still filter on expiresAt themselves).
refreshTokenSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'refreshtokens_expires_at_ttl' });

export interface MongoModels {
  User: Model<UserDocument>;
  RefreshToken: Model<RefreshTokenDocument>;
}

/** Models bound to one connection; collections `users` and `refreshtokens`. */
export function defineMongoModels(connection: Connection): MongoModels {
  return {
    User: connection.model<UserDocument>('User', userSchema, 'users'),
    RefreshToken: connection.model<RefreshTokenDocument>('RefreshToken', refreshTokenSchema, 'refreshtokens'),
  };
}
