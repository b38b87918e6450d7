import { MongoDBContainer } from '@testcontainers/mongodb';
import { MSSQLServerContainer } from '@testcontainers/mssqlserver';
import { MySqlContainer } from '@testcontainers/mysql';
import { PostgreSqlContainer } from '@testcontainers/postgresql';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Sequelize } from 'sequelize';
import type { DatabaseEngine } from '../../src/config/config';

// Where each database engine comes from in the store contract suite, decided per engine:
//   1. its env URL (TEST_POSTGRES_URL, TEST_MYSQL_URL, TEST_MSSQL_URL, TEST_MONGO_URL) wins;
//   2. else a throw-away container through testcontainers, when the run asks for containers
//      (TEST_CONTAINERS=1, as `make test-all-dbs` does) and a container runtime answers; the image comes
//      from POSTGRES_IMAGE / MYSQL_IMAGE / MSSQL_IMAGE / MONGO_IMAGE (default: the official image);
//   3. else the engine is skipped, with one printed line saying why.
// SQLite is embedded and always runs (in memory).

export interface StartedEngine {
  url: string;
  stop(): Promise<void>;
}

export interface EngineTarget {
  engine: DatabaseEngine;
  /** e.g. "postgres (TEST_POSTGRES_URL)" or "mysql (container local/mysql:mariadb)". */
  label: string;
  /** Why this engine does not run here, or undefined when it does. */
  skipReason?: string;
  start(): Promise<StartedEngine>;
}

interface NetworkEngine {
  engine: Exclude<DatabaseEngine, 'sqlite'>;
  urlVariable: string;
  imageVariable: string;
  defaultImage: string;
  startContainer(image: string): Promise<StartedEngine>;
}

const CONTAINER_START_TIMEOUT_MS = 180_000;

/** A URL-safe password that satisfies SQL Server's complexity rules too. */
function containerPassword(): string {
  return `Ct-${Math.random().toString(36).slice(2, 10)}-X9a`;
}

const NETWORK_ENGINES: NetworkEngine[] = [
  {
    engine: 'postgres',
    urlVariable: 'TEST_POSTGRES_URL',
    imageVariable: 'POSTGRES_IMAGE',
    defaultImage: 'postgres:15',
    async startContainer(image) {
      const container = await new PostgreSqlContainer(image).withStartupTimeout(CONTAINER_START_TIMEOUT_MS).start();
      return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
    },
  },
  {
    engine: 'mysql',
    urlVariable: 'TEST_MYSQL_URL',
    imageVariable: 'MYSQL_IMAGE',
    defaultImage: 'mysql:8.4',
    async startContainer(image) {
      // Extra arguments go to the server in both the official image and the MariaDB stand-in.
      const container = await new MySqlContainer(image)
        .withCommand(['--character-set-server=utf8mb4', '--collation-server=utf8mb4_unicode_ci'])
        .withStartupTimeout(CONTAINER_START_TIMEOUT_MS)
        .start();
      return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
    },
  },
  {
    engine: 'mssql',
    urlVariable: 'TEST_MSSQL_URL',
    imageVariable: 'MSSQL_IMAGE',
    defaultImage: 'mcr.microsoft.com/mssql/server:2022-latest',
    async startContainer(image) {
      const password = containerPassword();
      const container = await new MSSQLServerContainer(image)
        .acceptLicense()
        .withPassword(password)
        .withStartupTimeout(CONTAINER_START_TIMEOUT_MS)
        .start();
      const server = `${container.getHost()}:${container.getPort()}`;
      // The server's certificate is self-signed: encrypt, but trust it (test only).
      const options = 'encrypt=true&trustServerCertificate=true';
      const admin = new Sequelize(`mssql://sa:${encodeURIComponent(password)}@${server}/master`, {
        logging: false,
        dialectOptions: { options: { encrypt: true, trustServerCertificate: true } },
      });
      await admin.query('CREATE DATABASE contract_suite');
      await admin.close();
      return {
        url: `mssql://sa:${encodeURIComponent(password)}@${server}/contract_suite?${options}`,
        stop: async () => void (await container.stop()),
      };
    },
  },
  {
    engine: 'mongodb',
    urlVariable: 'TEST_MONGO_URL',
    imageVariable: 'MONGO_IMAGE',
    defaultImage: 'mongo:7',
    async startContainer(image) {
      const container = await new MongoDBContainer(image).withStartupTimeout(CONTAINER_START_TIMEOUT_MS).start();
      // The container is a one-member replica set that knows itself by its container hostname:
      // connect directly, without discovering the set's members.
      return {
        url: `${container.getConnectionString()}/contract_suite?directConnection=true`,
        stop: async () => void (await container.stop()),
      };
    },
  },
];

interface ProbeResult {
  runtime: boolean;
  reason: string;
  images: Record<string, { available: boolean; reason?: string }>;
}

let probeResult: ProbeResult | undefined;

/**
 * Can containers run here, and from which of these images? Asked once per test process, synchronously
 * (jest collects suites synchronously), in a child process bounded in time: see probe-containers.cjs.
 */
function probeContainers(images: string[]): ProbeResult {
  if (probeResult) return probeResult;
  const probe = spawnSync(process.execPath, [path.join(__dirname, 'probe-containers.cjs'), ...images], {
    cwd: __dirname,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, TESTCONTAINERS_RYUK_DISABLED: process.env.TESTCONTAINERS_RYUK_DISABLED ?? 'true' },
  });
  try {
    probeResult = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '') as ProbeResult;
  } catch {
    probeResult = {
      runtime: false,
      reason: `the container probe failed (${probe.error?.message ?? probe.stderr.trim().slice(0, 200)})`,
      images: {},
    };
  }
  return probeResult;
}

function imageOf(spec: NetworkEngine): string {
  return process.env[spec.imageVariable]?.trim() || spec.defaultImage;
}

function containersRequested(): boolean {
  return ['1', 'true', 'yes'].includes((process.env.TEST_CONTAINERS ?? '').toLowerCase());
}

/** The engines the contract suite runs against, in a fixed order, each with its source or skip reason. */
export function testEngines(): EngineTarget[] {
  const targets: EngineTarget[] = [
    {
      engine: 'sqlite',
      label: 'sqlite (in memory)',
      start: async () => ({ url: 'sqlite::memory:', stop: async () => undefined }),
    },
  ];
  for (const spec of NETWORK_ENGINES) {
    const url = process.env[spec.urlVariable]?.trim();
    if (url) {
      targets.push({
        engine: spec.engine,
        label: `${spec.engine} (${spec.urlVariable})`,
        start: async () => ({ url, stop: async () => undefined }),
      });
      continue;
    }
    const image = imageOf(spec);
    const label = `${spec.engine} (container ${image})`;
    if (!containersRequested()) {
      targets.push({
        engine: spec.engine,
        label: spec.engine,
        skipReason: `${spec.urlVariable} is not set and containers were not requested (TEST_CONTAINERS=1, e.g. make test-all-dbs)`,
        start: () => Promise.reject(new Error('skipped')),
      });
      continue;
    }
    const probe = probeContainers(NETWORK_ENGINES.filter((e) => !process.env[e.urlVariable]?.trim()).map(imageOf));
    const reason = !probe.runtime
      ? probe.reason
      : probe.images[image]?.available
        ? undefined
        : (probe.images[image]?.reason ?? `image ${image} was not probed`);
    targets.push({
      engine: spec.engine,
      label,
      skipReason: reason ? `${spec.urlVariable} is not set and ${reason}` : undefined,
      start: () => spec.startContainer(image),
    });
  }
  return targets;
}
