import type { AuthMetrics } from '../../observability/metrics';
import type { AuthEventListener } from './auth-events';

/**
 * Counts auth events (the same points that write the auth log lines). Subscribed only when metrics are on.
 * The switch is exhaustive: a new kind of AuthEvent does not compile until it is counted here.
 */
export function countAuthEvents(metrics: AuthMetrics): AuthEventListener {
  return (event) => {
    switch (event.action) {
      case 'login':
        return metrics.login(event.outcome);
      case 'refresh':
        if (event.outcome === 'reuse-detected') {
          metrics.refreshReuseDetected();
          return metrics.refresh('reused-token');
        }
        return metrics.refresh(event.outcome === 'success' ? 'success' : event.reason);
      case 'logout':
        return metrics.logout();
      case 'logout-all':
        return metrics.logoutAll();
      case 'password-change':
        return metrics.passwordChange(event.outcome);
      case 'password-reset-request':
        return metrics.passwordReset(event.outcome === 'success' ? 'link-sent' : 'link-ignored');
      case 'password-reset':
        return metrics.passwordReset(event.outcome);
      case 'verification-request':
        return metrics.emailVerification(event.outcome === 'success' ? 'link-sent' : 'link-ignored');
      case 'email-verification':
        return metrics.emailVerification(event.outcome);
      case 'mfa-verify':
        if (event.outcome === 'refused') return metrics.mfa(event.reason);
        return metrics.mfa(
          event.outcome === 'success' ? (event.via === 'code' ? 'success' : 'recovery-code') : 'throttled',
        );
      case 'mfa-enroll':
        return metrics.mfa(
          event.outcome === 'confirmed' ? 'enabled' : event.outcome === 'started' ? 'enrolment-started' : 'wrong-code',
        );
      case 'mfa-disable':
        return metrics.mfa('disabled');
      case 'mfa-recovery-codes':
        return metrics.mfa('recovery-codes-renewed');
      case 'register':
        if (event.outcome === 'success') metrics.registration(); // a taken address is no registration
        return;
      case 'oidc-login':
        return metrics.oidc(event.outcome === 'refused' ? event.reason : event.outcome);
      case 'oidc-link':
        return metrics.oidc('linked');
      case 'oidc-unlink':
        return metrics.oidc(event.outcome === 'success' ? 'unlinked' : 'unlink-refused');
      case 'passkey-login':
        return metrics.passkey(event.outcome === 'success' ? 'success' : event.reason);
      case 'passkey-register':
        if (event.outcome === 'started') return;
        return metrics.passkey(event.outcome === 'success' ? 'added' : 'add-refused');
      case 'passkey-remove':
        return metrics.passkey(event.outcome === 'success' ? 'removed' : 'remove-refused');
      case 'owner-proof':
        return metrics.ownerProof(event.reason);
      case 'reauth':
        return metrics.ownerProof(event.outcome === 'success' ? 'reauthenticated' : 'reauth-refused');
      case 'rate-limit':
        return metrics.rateLimited();
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  };
}
