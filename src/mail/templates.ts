// The mails the service sends, in plain text and HTML. Replace the wording here (or the whole functions) to
// make them yours; each gets the link to put in it and how long it works. Every value that reaches the HTML
// goes through `escape`.

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function minutes(ms: number): string {
  const value = Math.round(ms / 60_000);
  return value % 60 === 0 ? `${value / 60} hour${value === 60 ? '' : 's'}` : `${value} minutes`;
}

export function passwordResetMail(link: string, validForMs: number): RenderedMail {
  const valid = minutes(validForMs);
  return {
    subject: 'Reset your password',
    text: [
      'Someone asked to reset the password of the account with this address.',
      '',
      `To choose a new password, open this link within ${valid}:`,
      link,
      '',
      'It works once. If you did not ask for this, ignore this mail: your password stays as it is.',
    ].join('\n'),
    html: `<p>Someone asked to reset the password of the account with this address.</p>
<p>To choose a new password, open this link within ${escape(valid)}:<br><a href="${escape(link)}">${escape(link)}</a></p>
<p>It works once. If you did not ask for this, ignore this mail: your password stays as it is.</p>`,
  };
}

export function emailVerificationMail(link: string, validForMs: number): RenderedMail {
  const valid = minutes(validForMs);
  return {
    subject: 'Confirm your email address',
    text: [
      'Confirm that this address is yours by opening this link within ' + valid + ':',
      link,
      '',
      'If you did not create an account, ignore this mail.',
    ].join('\n'),
    html: `<p>Confirm that this address is yours by opening this link within ${escape(valid)}:<br><a href="${escape(link)}">${escape(link)}</a></p>
<p>If you did not create an account, ignore this mail.</p>`,
  };
}

/** To the owner of an address someone tried to register again (EMAIL_VERIFICATION on: registration answers alike). */
export function registrationAttemptMail(): RenderedMail {
  const lines = [
    'Someone tried to create an account with this address, which already has one. Nothing was changed.',
    'If it was you: log in with your password, or ask for a password reset if you forgot it.',
    'If it was not you, ignore this mail: nobody can use the address without access to this mailbox.',
  ];
  return {
    subject: 'Someone tried to register with your address',
    text: lines.join('\n\n'),
    html: lines.map((line) => `<p>${escape(line)}</p>`).join('\n'),
  };
}

/** To a user whose account just got two-factor login: every other session has ended. */
export function twoFactorEnabledMail(): RenderedMail {
  const lines = [
    'Two-factor login was turned on for your account: from now on, logging in asks for a code from an authenticator app.',
    'Every other session of the account was ended.',
    'If you did not do this, someone else knows your password: reset it at once and contact the administrators.',
  ];
  return {
    subject: 'Two-factor login was turned on',
    text: lines.join('\n\n'),
    html: lines.map((line) => `<p>${escape(line)}</p>`).join('\n'),
  };
}

/** To a user whose account no longer asks for a second factor. */
export function twoFactorDisabledMail(): RenderedMail {
  const lines = [
    'Two-factor login was turned off for your account: logging in asks for the password alone again.',
    'If you did not do this, someone else knows your password and has your authenticator or a recovery code: reset your password at once and contact the administrators.',
  ];
  return {
    subject: 'Two-factor login was turned off',
    text: lines.join('\n\n'),
    html: lines.map((line) => `<p>${escape(line)}</p>`).join('\n'),
  };
}

/** To a user whose account gained or lost a way to sign in (a provider linked or unlinked, a passkey added or removed). */
export function signInMethodMail(change: 'added' | 'removed', method: string): RenderedMail {
  const lines =
    change === 'added'
      ? [
          `A new way to sign in was added to your account: ${method}.`,
          'If you did not do this, someone else can sign in to your account: remove it, reset your password at once and contact the administrators.',
        ]
      : [
          `A way to sign in was removed from your account: ${method}.`,
          'If you did not do this, someone else has access to your account: reset your password at once and contact the administrators.',
        ];
  const subject =
    change === 'added'
      ? 'A way to sign in was added to your account'
      : 'A way to sign in was removed from your account';
  return { subject, text: lines.join('\n\n'), html: lines.map((line) => `<p>${escape(line)}</p>`).join('\n') };
}
