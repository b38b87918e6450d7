import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runForAnswer } from '../../bench/child-process';

// The bench's one-job children (the argon2 reference): their answer once they have exited, or a reason.

describe('runForAnswer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'run-for-answer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const script = (name: string, body: string) => {
    const file = join(dir, `${name}.js`);
    writeFileSync(file, body);
    return file;
  };
  const env = { PATH: process.env.PATH };

  it("resolves with the child's message once it has exited", async () => {
    const file = script('answers', 'process.send({ figure: 42 }, () => process.exit(0));');
    await expect(runForAnswer('answers', file, env, 10_000)).resolves.toEqual({ figure: 42 });
  });

  it('rejects a child that exits without answering, with its stderr', async () => {
    const file = script('silent', 'process.stderr.write("went wrong\\n"); process.exit(3);');
    await expect(runForAnswer('silent', file, env, 10_000)).rejects.toThrow(
      /silent: exited with no answer \(code 3.*went wrong/s,
    );
  });

  it('kills a child that takes too long, and says so', async () => {
    const file = script('slow', 'setTimeout(() => undefined, 60_000);');
    await expect(runForAnswer('slow', file, env, 300)).rejects.toThrow('slow: no answer within 300 ms');
  });
});
