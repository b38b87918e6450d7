import mongoose, { type Connection } from 'mongoose';
import type { Logger } from '../../logger';
import { connectWithRetry } from '../connect-retry';
import { describeLocation } from '../describe-location';
import { StoreUnavailableError } from '../errors';
import { guarded } from '../guard';
import type { Database } from '../types';
import { defineMongoModels, type MongoModels } from './models';
import { translateMongoError } from './mongo-errors';
import { MongoRefreshTokenStore } from './mongo-refresh-token-store';
import { MongoUserStore } from './mongo-user-store';

export interface MongoDatabaseOptions {
  url: string;
  timeoutMs: number;
  connectAttempts: number;
}

/** MongoDB through mongoose: collections `users` and `refreshtokens`. */
export class MongoDatabase implements Database {
  readonly engine = 'mongodb' as const;
  readonly description: string;
  readonly refreshTokens: MongoRefreshTokenStore;
  readonly users: MongoUserStore;
  readonly connection: Connection;
  readonly models: MongoModels;

  constructor(
    private readonly options: MongoDatabaseOptions,
    private readonly logger: Logger,
  ) {
    this.description = `mongodb ${describeLocation(options.url).replace(/^mongodb(\+srv)?:\/\//, '')}`;
    // One connection object per database (not mongoose's global one), opened by connect().
    this.connection = mongoose.createConnection();
    this.models = defineMongoModels(this.connection);
    this.refreshTokens = new MongoRefreshTokenStore(this.models.RefreshToken, options.timeoutMs);
    this.users = new MongoUserStore(this.models.User, options.timeoutMs);
  }

  async connect(): Promise<void> {
    const { url, timeoutMs, connectAttempts } = this.options;
    await connectWithRetry(
      async () => {
        await this.connection.openUri(url, {
          // Fail fast instead of queueing: with no server to select, an operation errors after timeoutMs.
          serverSelectionTimeoutMS: timeoutMs,
          connectTimeoutMS: timeoutMs,
          // A socket that stops answering mid-operation is dropped (the pool reconnects on the next use).
          socketTimeoutMS: timeoutMs * 2,
          maxPoolSize: 10,
          // No mongoose-side buffering: the driver's server selection (above) bounds waiting instead.
          bufferCommands: false,
          // Indexes and collections are created by migrate(), not as a side effect of first use.
          autoIndex: false,
          autoCreate: false,
        });
      },
      this.description,
      this.logger,
      { attempts: connectAttempts },
    );
  }

  /** Creates the collections' indexes (idempotent): unique token, TTL on expiresAt, unique email. */
  async migrate(): Promise<void> {
    await guarded(
      async () => {
        await this.models.User.createIndexes();
        await this.models.RefreshToken.createIndexes();
      },
      Math.max(this.options.timeoutMs, 30_000),
      translateMongoError,
    );
    this.logger.info('mongodb indexes ensured');
  }

  ping(): Promise<void> {
    return guarded(
      async () => {
        const db = this.connection.db;
        if (!db) throw new StoreUnavailableError('MongoDB is not connected');
        await db.admin().ping({ maxTimeMS: this.options.timeoutMs });
      },
      this.options.timeoutMs,
      translateMongoError,
    );
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
