import type { OidcProviderSettings } from '../../config/oidc-settings';
import type { Logger } from '../../logger';
import { OidcDiscoveryError } from './provider-types';

// The configured OpenID Connect providers and which of them are discovered. A provider's outage is that
// provider's: start-up serves the ones that answered, keeps discovering the others in the background (their
// routes answer 503 meanwhile, /health/ready lists them), and stops at once only for a configuration mistake
// (an issuer that answers something other than its discovery document), naming the variable.

/** How one discovery attempt failed: the provider could not be reached (retried), or it answered wrongly (a mistake). */
export interface DiscoveryFailure {
  outage: boolean;
  reason: string;
}

export interface DiscoveryParts<Provider> {
  discover(settings: OidcProviderSettings): Promise<Provider>;
  classify(error: unknown): DiscoveryFailure;
  logger: Logger;
  /** The first background retry, doubling to `maxRetryMs`. */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

/** `Provider` is what a discovery gives (providers.ts: OidcProvider); the directory only keeps it by name. */
export class ProviderDirectory<Provider> {
  private readonly found = new Map<string, Provider>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly providers: readonly OidcProviderSettings[],
    private readonly parts: DiscoveryParts<Provider>,
  ) {}

  /** Every provider once, all at once. Throws (naming the variable) for a configuration mistake; an outage is retried in the background. */
  async start(): Promise<this> {
    const outcomes = await Promise.allSettled(this.providers.map((provider) => this.parts.discover(provider)));
    const mistakes: OidcDiscoveryError[] = [];
    outcomes.forEach((outcome, index) => {
      const provider = this.providers[index]!;
      if (outcome.status === 'fulfilled') return this.record(provider, outcome.value);
      const failure = this.parts.classify(outcome.reason);
      if (!failure.outage) {
        mistakes.push(
          new OidcDiscoveryError(
            `${provider.prefix}ISSUER: ${provider.issuer.href} did not answer with its OpenID Connect discovery document: ${failure.reason}`,
            { cause: outcome.reason },
          ),
        );
        return;
      }
      this.parts.logger.warn(
        { provider: provider.name, reason: failure.reason },
        `OpenID Connect provider not reachable: its sign-in answers 503 until it is discovered (${provider.prefix}ISSUER)`,
      );
      this.retry(provider, this.parts.firstRetryMs ?? 1_000);
    });
    if (mistakes.length > 0) {
      this.close();
      throw mistakes[0];
    }
    return this;
  }

  /** The provider when discovered, 'pending' while it is not yet, undefined when it is not configured. */
  get(name: string): Provider | 'pending' | undefined {
    return this.found.get(name) ?? (this.providers.some((provider) => provider.name === name) ? 'pending' : undefined);
  }

  /** The discovered providers, in configuration order. */
  discovered(): Provider[] {
    return this.providers.flatMap((provider) => this.found.get(provider.name) ?? []);
  }

  /** The names of the providers not discovered yet. */
  pending(): string[] {
    return this.providers.filter((provider) => !this.found.has(provider.name)).map((provider) => provider.name);
  }

  /** Stops the background discovery (the service closes). */
  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private record(provider: OidcProviderSettings, found: Provider): void {
    this.found.set(provider.name, found);
    this.parts.logger.info(
      { provider: provider.name, issuer: provider.issuer.href },
      'OpenID Connect provider discovered',
    );
  }

  private retry(provider: OidcProviderSettings, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(provider.name);
      this.parts.discover(provider).then(
        (found) => !this.closed && this.record(provider, found),
        (error: unknown) => {
          const failure = this.parts.classify(error);
          // Once running, even a mistake cannot stop the service: it is logged as an error and tried again.
          this.parts.logger[failure.outage ? 'warn' : 'error'](
            { provider: provider.name, reason: failure.reason, retryInMs: delayMs },
            `OpenID Connect provider still not discovered (${provider.prefix}ISSUER)`,
          );
          this.retry(provider, Math.min(delayMs * 2, this.parts.maxRetryMs ?? 60_000));
        },
      );
    }, delayMs);
    timer.unref();
    this.timers.set(provider.name, timer);
  }
}
