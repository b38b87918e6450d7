// The response rules every check in the reliability suite applies (fuzz tests, soak, outage, shutdown):
// an X-Request-Id on every answer, and either the documented empty 204 (or a HEAD answer) or a JSON
// envelope of the right shape: {status:'success', data} with 2xx, {status:'fail', message, errors?} with 4xx/5xx.

/** The parts of an answer the rules look at. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text?: string;
}

function isFieldError(item: unknown): boolean {
  return typeof item === 'object' && item !== null && typeof (item as { field?: unknown }).field === 'string';
}

/** What is wrong with the answer's shape, or undefined when it is well-formed. Says nothing about the status's class. */
export function envelopeProblem(res: Answer, method: string): string | undefined {
  if (!res.headers['x-request-id']) return 'no X-Request-Id';
  if (res.status === 204 || method.toUpperCase() === 'HEAD')
    return res.text ? 'a body where none is allowed' : undefined;
  if (!/^application\/json\b/.test(String(res.headers['content-type']))) return 'a non-JSON content type';
  let body: unknown;
  try {
    body = JSON.parse(res.text ?? '');
  } catch {
    return 'a body that is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'a body that is not an object';
  const envelope = body as Record<string, unknown>;
  const keys = Object.keys(envelope).sort().join(',');
  if (envelope.status === 'success') {
    return res.status >= 400 || keys !== 'data,status' ? 'a malformed success envelope' : undefined;
  }
  if (envelope.status === 'fail') {
    const errorsOk =
      envelope.errors === undefined || (Array.isArray(envelope.errors) && envelope.errors.every(isFieldError));
    if (
      res.status < 400 ||
      typeof envelope.message !== 'string' ||
      !['message,status', 'errors,message,status'].includes(keys) ||
      !errorsOk
    ) {
      return 'a malformed fail envelope';
    }
    return res.status === 422 && !Array.isArray(envelope.errors) ? 'a 422 without errors' : undefined;
  }
  return 'an envelope without a valid status';
}
