import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

// The real OpenID Connect provider of the tests (dev/oidc-provider/server.mjs, oidc-provider) in a child
// process on loopback, and a minimal browser that signs in on its development login and consent pages.

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export class OidcTestProvider {
  private child: ChildProcess | undefined;
  issuer = '';

  constructor(private readonly clients: TestClient[]) {}

  async start(): Promise<string> {
    const child = spawn(process.execPath, [path.join(__dirname, '../../dev/oidc-provider/server.mjs')], {
      env: { PATH: process.env.PATH ?? '', OIDC_DEV_CLIENTS: JSON.stringify(this.clients) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the test OIDC provider exited (${code}): ${stderr}`)));
    });
    this.issuer = (JSON.parse(first) as { issuer: string }).issuer;
    return this.issuer;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

/** How the end-user answers the provider's pages: who they sign in as, and whether they consent. */
export interface ProviderAnswer {
  /** `<sub>~<email>~<1 verified | 0 not>`, or a plain name (see dev/oidc-provider/server.mjs). */
  account: string;
  consent?: boolean;
}

/**
 * A browser at the provider: its own cookie jar, redirects followed by hand. From the authorization URL
 * through the login and consent pages to the redirect back to the service, which it answers (not followed).
 */
export class ProviderBrowser {
  private readonly jar = new Map<string, string>();

  /**
   * `reach` maps a URL to the one actually fetched: a name this machine cannot resolve (the Compose profile's
   * `oidc-dev.localhost`, which browsers send to loopback themselves) to where the provider listens.
   */
  constructor(
    private readonly returnsTo: string,
    private readonly reach: (url: string) => string = (url) => url,
  ) {}

  async signIn(authorizationUrl: string, answer: ProviderAnswer): Promise<URL> {
    let response = await this.go(authorizationUrl);
    for (let step = 0; step < 20; step += 1) {
      const location = response.headers.get('location');
      if (location) {
        const next = new URL(location, response.url);
        if (next.href.startsWith(this.returnsTo)) return next;
        response = await this.go(next.href);
        continue;
      }
      const page = await response.text();
      if (response.status !== 200) throw new Error(`the provider answered ${response.status}: ${page.slice(0, 500)}`);
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      if (!prompt || !action) throw new Error(`not a login or consent page: ${page.slice(0, 500)}`);
      if (prompt === 'consent' && answer.consent === false) {
        const abort = /href="([^"]*\/abort)"/.exec(page)?.[1];
        response = await this.go(new URL(abort!.replace(/&amp;/g, '&'), response.url).href);
        continue;
      }
      const form: Record<string, string> =
        prompt === 'login' ? { prompt, login: answer.account, password: 'any' } : { prompt };
      response = await this.go(new URL(action, response.url).href, new URLSearchParams(form));
    }
    throw new Error('the provider never sent the browser back');
  }

  private async go(url: string, form?: URLSearchParams): Promise<Response> {
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(this.reach(url), {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form?.toString(),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return response;
  }
}
