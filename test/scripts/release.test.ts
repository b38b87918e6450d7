import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// scripts/release.sh run for real in a scratch clone, with `docker` and `npx` replaced by recorders (no
// registry here): the image's source label (a public OCI annotation) and every line the script prints
// must carry no user or token from the git remote.

const root = path.resolve(__dirname, '../..');
const TOKEN = 'ghp_R3leaseT0kenN0tForLabels';

const recorder = (log: string) => `#!/usr/bin/env bash
printf '%s\\n' "$*" >>"${log}"
case "$1 $2" in
  "manifest inspect") echo "no such manifest: $*" >&2; exit 1 ;; # the version is not in the registry yet
  "image inspect") case "$*" in *RepoDigests*) echo "127.0.0.1:5000/app@sha256:${'a'.repeat(64)}" ;; *) echo 1048576 ;; esac ;;
  "history "*) echo "  1MB	COPY . ." ;;
esac
`;

function scratchClone(remote: string): { dir: string; calls: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'release-'));
  const calls = path.join(dir, 'calls.log');
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(root, 'scripts/release.sh'), path.join(dir, 'scripts/release.sh'));
  for (const folder of ['docker/release', 'docker/mysql', 'docker/mssql', 'bin'])
    mkdirSync(path.join(dir, folder), { recursive: true });
  writeFileSync(path.join(dir, 'docker/release/env.example'), 'PORT=3000\n');
  writeFileSync(path.join(dir, 'docker/mysql/charset.cnf'), '[mysqld]\n');
  writeFileSync(path.join(dir, 'docker/mssql/init.sql'), 'SELECT 1;\n');
  writeFileSync(
    path.join(dir, 'docker-compose.yml'),
    'services:\n  app:\n    image: ${APP_IMAGE:-koa-api-service:local}\n  build:\n    context: .\n',
  );
  writeFileSync(path.join(dir, '.gitignore'), 'bin/\ncalls.log\nrelease/\n');
  for (const tool of ['docker', 'npx']) {
    writeFileSync(path.join(dir, 'bin', tool), tool === 'npx' ? '#!/usr/bin/env bash\necho "{}"\n' : recorder(calls));
    chmodSync(path.join(dir, 'bin', tool), 0o755);
  }
  const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'scratch');
  git('remote', 'add', 'origin', remote);
  return { dir, calls };
}

function release(remote: string, env: Record<string, string> = {}) {
  const { dir, calls } = scratchClone(remote);
  try {
    const result = spawnSync('bash', ['scripts/release.sh'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
        HOME: dir,
        REGISTRY: '127.0.0.1:5000/app',
        VERSION: '1.2.3',
        ...env,
      },
    });
    const out = path.join(dir, 'release/1.2.3');
    const written = readdirSync(out, { recursive: true, encoding: 'utf8' })
      .filter((file) => statSync(path.join(out, file)).isFile())
      .map((file) => readFileSync(path.join(out, file), 'utf8'))
      .join('\n');
    const build =
      readFileSync(calls, 'utf8')
        .split('\n')
        .find((line) => line.startsWith('build ')) ?? '';
    return { status: result.status, output: result.stdout + result.stderr, build, written };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('scripts/release.sh and the git remote', () => {
  it.each([
    ['https://ci-bot:TOKEN@github.com/acme/api.git', 'https://github.com/acme/api'],
    ['https://TOKEN@github.com/acme/api', 'https://github.com/acme/api'],
    ['https://x-access-token:TOKEN@gitlab.example.com/acme/api.git', 'https://gitlab.example.com/acme/api'],
    ['ssh://git@gitlab.example.com:2222/acme/api.git', 'https://gitlab.example.com/acme/api'],
    ['git@github.com:acme/api.git', 'https://github.com/acme/api'],
  ])('labels the image with %s as %s, and prints no credential', (remote, expected) => {
    const { status, output, build, written } = release(remote.replace('TOKEN', TOKEN));
    expect(status).toBe(0);
    expect(build).toContain(`--build-arg SOURCE=${expected} `);
    for (const text of [output, build, written]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('ci-bot');
    }
  });

  it('strips credentials from an explicit SOURCE_URL too', () => {
    const { build } = release('https://github.com/acme/api.git', {
      SOURCE_URL: `https://bot:${TOKEN}@github.com/acme/fork`,
    });
    expect(build).toContain('--build-arg SOURCE=https://github.com/acme/fork ');
    expect(build).not.toContain(TOKEN);
  });
});
