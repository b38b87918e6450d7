import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// scripts/release.sh's order and refusals, in a scratch git repository holding what the script reads, with
// `docker` and `npx` stand-ins first on PATH: the docker one keeps a registry as a file (tag → digest) and logs
// every call, so the test sees what would have been pushed, in which order, and what was never touched.
// scripts/ci/release.sh runs the same script against a real registry with real images (CI).

const REPO = join(__dirname, '../..');
const REGISTRY = '127.0.0.1:5999/koa-api-service';
const DIGEST = 'sha256:' + 'ab'.repeat(32);

const FAKE_DOCKER = `#!/usr/bin/env bash
# A stand-in for the docker CLI: the registry is $FAKE_STATE/registry ("ref digest" lines), calls go to $FAKE_STATE/log.
state=$FAKE_STATE
echo "$*" >>"$state/log"
case "$1 $2" in
  "manifest inspect")
    ref=\${!#}
    [ -z "\${FAKE_REGISTRY_DOWN:-}" ] || { echo "failed to configure transport: dial tcp: connection refused" >&2; exit 1; }
    if grep -q "^$ref " "$state/registry" 2>/dev/null; then echo '{"schemaVersion":2}'; exit 0; fi
    echo "no such manifest: $ref" >&2; exit 1 ;;
  "image inspect")
    case "$4" in
      *RepoDigests*) [ -n "\${FAKE_NO_DIGEST:-}" ] || echo "\${5%:*}@${DIGEST}" ;;
      *Size*) echo 123456789 ;;
    esac ;;
esac
case "$1" in
  push)
    ref=\${!#}
    # The compose file's state when each tag moves: pinned and checked already, or not.
    if grep -qs "${DIGEST}" release/*/docker-compose.yml; then echo "pushed $ref after the compose file" >>"$state/log"; else echo "pushed $ref before the compose file" >>"$state/log"; fi
    echo "$ref ${DIGEST}" >>"$state/registry" ;;
esac
exit 0
`;

interface Run {
  status: number | null;
  stderr: string;
  log: string[];
  registry: string;
}

describe('scripts/release.sh', () => {
  let work: string;
  let repo: string;
  let state: string;

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'release-script-'));
    repo = join(work, 'repo');
    state = join(work, 'state');
    const bin = join(work, 'bin');
    for (const path of ['scripts/release.sh', 'docker-compose.yml', 'docker/release', 'docker/mysql', 'docker/mssql'])
      cpSync(join(REPO, path), join(repo, path), { recursive: true });
    cpSync(join(REPO, 'package.json'), join(repo, 'package.json'));
    spawnSync('mkdir', ['-p', state, bin]);
    writeFileSync(join(bin, 'docker'), FAKE_DOCKER);
    writeFileSync(join(bin, 'npx'), '#!/usr/bin/env bash\necho \'{"bomFormat":"CycloneDX","components":[]}\'\n');
    chmodSync(join(bin, 'docker'), 0o755);
    chmodSync(join(bin, 'npx'), 0o755);
    const git = (...args: string[]) =>
      spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'release fixture');
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  const release = (version: string, env: Record<string, string> = {}): Run => {
    const result = spawnSync('bash', ['scripts/release.sh'], {
      cwd: repo,
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${join(work, 'bin')}:${process.env.PATH}`,
        FAKE_STATE: state,
        REGISTRY,
        VERSION: version,
        ...env,
      },
    });
    const read = (name: string) => (existsSync(join(state, name)) ? readFileSync(join(state, name), 'utf8') : '');
    return {
      status: result.status,
      stderr: result.stderr,
      log: read('log').trim().split('\n'),
      registry: read('registry'),
    };
  };

  it('pushes the commit tag, then the version, and moves the channel tag last, after the compose file is pinned', () => {
    const run = release('1.2.3');
    expect(run.stderr).not.toMatch(/failed/);
    expect(run.status).toBe(0);
    const pushes = run.log.filter((line) => line.startsWith('pushed '));
    expect(pushes).toEqual([
      expect.stringMatching(new RegExp(`^pushed ${REGISTRY}:sha-[0-9a-f]{12} before the compose file$`)),
      `pushed ${REGISTRY}:1.2.3 after the compose file`,
      `pushed ${REGISTRY}:stable after the compose file`,
    ]);
    const compose = readFileSync(join(repo, 'release/1.2.3/docker-compose.yml'), 'utf8');
    expect(compose).toContain(`${REGISTRY}@${DIGEST}`);
    expect(compose).not.toMatch(/build:|^ {2}oidc-dev:|^ {2}OIDC_DEV_/m); // nothing built from the source: the development provider and its settings stay behind
  });

  it('refuses a version the registry holds already, before building or pushing anything', () => {
    writeFileSync(join(state, 'registry'), `${REGISTRY}:1.2.3 sha256:${'cd'.repeat(32)}\n`);
    const run = release('1.2.3');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /koa-api-service:1\.2\.3 is in the registry already: a version is released once \(nothing was pushed\)/,
    );
    expect(run.log).toEqual([`manifest inspect --insecure ${REGISTRY}:1.2.3`]); // asked the registry, then nothing
    expect(run.registry).toBe(`${REGISTRY}:1.2.3 sha256:${'cd'.repeat(32)}\n`);
    expect(existsSync(join(repo, 'release/1.2.3'))).toBe(false);
  });

  it('says why when the registry cannot be asked, and pushes nothing', () => {
    const run = release('1.2.3', { FAKE_REGISTRY_DOWN: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /could not ask the registry whether .*:1\.2\.3 exists \(nothing was pushed\): failed to configure transport/,
    );
    expect(run.registry).toBe('');
  });

  it('says the registry returned no digest (not a silent pipefail exit), and neither the version nor the channel moves', () => {
    const run = release('1.2.3', { FAKE_NO_DIGEST: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/the registry returned no digest for .*:sha-[0-9a-f]{12}/);
    expect(run.registry).not.toMatch(/:1\.2\.3 |:stable /);
    expect(existsSync(join(repo, 'release/1.2.3'))).toBe(false); // the partial folder is removed
  });
});
