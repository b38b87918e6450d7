import { Type } from '@sinclair/typebox';

// The passkey routes' bodies and answers (docs/authentication.md): the WebAuthn JSON forms browsers produce
// and take (`PublicKeyCredential.toJSON()`, `parseCreationOptionsFromJSON`, `parseRequestOptionsFromJSON`).
// Binary values travel as base64url; lengths are bounded so that a body is checked before anything is parsed.

const base64url = (maxLength: number, description?: string) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]+$', minLength: 1, maxLength, ...(description ? { description } : {}) });
const transports = Type.Array(Type.String({ maxLength: 16 }), { maxItems: 8 });
const credentialBase = {
  id: base64url(1400, 'The credential id (base64url)'),
  rawId: base64url(1400),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
  clientExtensionResults: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Extension outputs; none are asked for',
  }),
};

/** A new credential, as `navigator.credentials.create()` gives it (`.toJSON()`). */
export const registrationCredentialSchema = Type.Object(
  {
    ...credentialBase,
    response: Type.Object({
      clientDataJSON: base64url(4000),
      attestationObject: base64url(20_000),
      authenticatorData: Type.Optional(base64url(20_000)),
      transports: Type.Optional(transports),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
      publicKey: Type.Optional(base64url(20_000)),
    }),
  },
  { description: "The new credential: `PublicKeyCredential.toJSON()` of navigator.credentials.create()'s answer" },
);

/** A sign-in, as `navigator.credentials.get()` gives it (`.toJSON()`). */
export const authenticationCredentialSchema = Type.Object(
  {
    ...credentialBase,
    response: Type.Object({
      clientDataJSON: base64url(4000),
      authenticatorData: base64url(20_000),
      signature: base64url(8000), // an ML-DSA-44 signature is 2,420 bytes
      userHandle: Type.Optional(base64url(100)),
    }),
  },
  { description: "The assertion: `PublicKeyCredential.toJSON()` of navigator.credentials.get()'s answer" },
);

const credentialDescriptor = Type.Object({
  id: Type.String(),
  type: Type.String({ description: '`public-key`' }),
  transports: Type.Optional(transports),
});

/** `PublicKeyCredentialCreationOptionsJSON`: what `PublicKeyCredential.parseCreationOptionsFromJSON` takes. */
export const creationOptionsSchema = Type.Object(
  {
    rp: Type.Object({ id: Type.Optional(Type.String({ description: 'WEBAUTHN_RP_ID' })), name: Type.String() }),
    user: Type.Object({
      id: Type.String({ description: 'The user handle (base64url of the account id)' }),
      name: Type.String(),
      displayName: Type.String(),
    }),
    challenge: Type.String({ description: 'base64url, single-use, for WEBAUTHN_CHALLENGE_TTL' }),
    pubKeyCredParams: Type.Array(Type.Object({ type: Type.String(), alg: Type.Integer() })),
    timeout: Type.Optional(Type.Integer()),
    excludeCredentials: Type.Optional(Type.Array(credentialDescriptor)),
    authenticatorSelection: Type.Optional(
      Type.Object({
        residentKey: Type.Optional(Type.String()),
        requireResidentKey: Type.Optional(Type.Boolean()),
        userVerification: Type.Optional(Type.String()),
        authenticatorAttachment: Type.Optional(Type.String()),
      }),
    ),
    hints: Type.Optional(Type.Array(Type.String())),
    attestation: Type.Optional(Type.String()),
    extensions: Type.Optional(Type.Object({}, { description: 'None are asked for' })),
  },
  {
    description:
      'PublicKeyCredentialCreationOptionsJSON: pass it to PublicKeyCredential.parseCreationOptionsFromJSON (or @simplewebauthn/browser startRegistration)',
  },
);

/** `PublicKeyCredentialRequestOptionsJSON`: what `PublicKeyCredential.parseRequestOptionsFromJSON` takes. */
export const requestOptionsSchema = Type.Object(
  {
    challenge: Type.String({ description: 'base64url, single-use, for WEBAUTHN_CHALLENGE_TTL' }),
    rpId: Type.Optional(Type.String()),
    timeout: Type.Optional(Type.Integer()),
    allowCredentials: Type.Optional(
      Type.Array(credentialDescriptor, {
        description: 'Empty for a usernameless sign-in; the user’s passkeys for a second factor',
      }),
    ),
    userVerification: Type.Optional(Type.String()),
    hints: Type.Optional(Type.Array(Type.String())),
    extensions: Type.Optional(Type.Object({}, { description: 'None are asked for' })),
  },
  {
    description:
      'PublicKeyCredentialRequestOptionsJSON: pass it to PublicKeyCredential.parseRequestOptionsFromJSON (or @simplewebauthn/browser startAuthentication)',
  },
);

/** One of the caller's passkeys, as listed (never its key). */
export const passkeySchema = Type.Object({
  id: Type.String({ description: 'What DELETE /api/auth/passkeys/{id} takes' }),
  name: Type.String(),
  transports: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** A passkey's name: what the user calls it. */
export const passkeyNameSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '\\S',
  examples: ['Work laptop'],
});
