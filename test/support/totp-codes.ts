import { generate } from 'otplib';

// TOTP codes for the two-factor tests: the right one for a step, and wrong ones that are wrong for certain.
// A fixed "wrong" code such as '000000' is right about three times in a million (the server takes the
// steps around now), which over the suite's forty-odd wrong codes is a chance failure now and then.

/** The code of the step `offsetSteps` × 30 s from now. */
export const codeAt = (secret: string, offsetSteps = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

/** `count` distinct codes, none of them the code of a step within two of now (the server takes one either side). */
export async function wrongCodes(secret: string, count = 1): Promise<string[]> {
  const near = new Set(await Promise.all([-2, -1, 0, 1, 2].map((step) => codeAt(secret, step))));
  const codes: string[] = [];
  for (let candidate = 100_000; codes.length < count; candidate += 1)
    if (!near.has(String(candidate))) codes.push(String(candidate));
  return codes;
}
