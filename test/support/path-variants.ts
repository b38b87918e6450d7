import { request as httpRequest } from 'node:http';

// Used by the security tests: a path as a client could spell it to slip past a prefix check.

/** Spellings of `path` that a lax router or a normalising proxy might treat as the same path. */
export function pathVariants(path: string): string[] {
  const segments = path.split('/').slice(1);
  const percent = (text: string, index: number) =>
    `${text.slice(0, index)}%${text.charCodeAt(index).toString(16)}${text.slice(index + 1)}`;
  const letterAt = (text: string) => text.search(/[a-z]/i);
  const variants = new Set<string>([
    path.toUpperCase(),
    `/${segments.map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join('/')}`,
    path.replace(/[a-z]/, (c) => c.toUpperCase()),
    path.slice(0, -1) + path.slice(-1).toUpperCase(),
    `${path}/`,
    `${path}//`,
    `/${path}`,
    path.replace('/', '//'),
    path.replace(/\/([^/]*)$/, '//$1'),
    `/${segments.map((s, i) => (i === segments.length - 1 ? s : `${s}/.`)).join('/')}`,
    `/${segments[0]}/x/../${segments.slice(1).join('/')}`,
    `${path};x=1`,
    `/${segments.join('%2F')}`,
    `/${segments[0]}%2F${segments.slice(1).join('/')}`,
    `${path}%00`,
    `${path}%20`,
    `/${segments.join('\\')}`,
  ]);
  for (let i = 0; i < segments.length; i += 1) {
    const index = letterAt(segments[i]);
    if (index < 0) continue;
    const changed = [...segments];
    changed[i] = percent(segments[i], index);
    variants.add(`/${changed.join('/')}`);
    changed[i] = percent(segments[i], index).toUpperCase();
    variants.add(`/${changed.join('/')}`);
  }
  variants.delete(path);
  return [...variants];
}

/** Sends `path` exactly as written (supertest and fetch would parse and normalise it); resolves the status. */
export function sendRaw(port: number, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' || method === 'DELETE' ? undefined : '{}');
  });
}
