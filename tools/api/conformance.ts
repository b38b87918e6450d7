// Two independent verdicts on every answer of the client flow: our own check against the document (the
// status is listed for the operation, the body matches its schema), and Prism's, when the flow runs through
// `prism proxy`: its `sl-violations` header lists what it found wrong with the request or the answer.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const document = JSON.parse(readFileSync(process.env.API_DOCUMENT ?? new URL('../../openapi.json', import.meta.url), 'utf8'));
const ajv = addFormats.default(new Ajv2020.default({ strict: false, allErrors: true }));
ajv.addSchema(document, 'api');

export const statuses: number[] = [];
export const problems: string[] = [];
/** Exchanges on which Prism reported the request as breaking the document (the deliberately bad ones). */
let requestsFlagged = 0;

interface Answer {
  response: Response;
  data?: unknown;
  error?: unknown;
}

/** Prism's findings on one exchange: the answer must have none; a request made wrong on purpose, only request ones. */
function prismFindings(where: string, response: Response, badRequest: boolean): void {
  const header = response.headers.get('sl-violations');
  if (header === null) return;
  const violations = JSON.parse(header) as { location?: string[]; message?: string; severity?: string }[];
  for (const violation of violations) {
    const side = violation.location?.[0];
    if (side === 'request' && badRequest) {
      requestsFlagged += 1;
      continue;
    }
    problems.push(`${where}: Prism: ${violation.location?.join('.')}: ${violation.message}`);
  }
}

/**
 * Checks one answer. `badRequest`: the request breaks the document on purpose (a 413, 415 or 422 case),
 * so Prism may say so about the request, never about the answer.
 */
export async function conforms(method: string, template: string, { response, data, error }: Answer, badRequest = false): Promise<void> {
  statuses.push(response.status);
  const where = `${method.toUpperCase()} ${template} → ${response.status}`;
  prismFindings(where, response, badRequest);
  const escape = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');
  const listed = document.paths[template]?.[method]?.responses?.[String(response.status)];
  if (!listed) return void problems.push(`${where}: not in the document`);
  for (const name of Object.keys(listed.headers ?? {})) {
    if (listed.headers[name].required && !response.headers.has(name)) problems.push(`${where}: header ${name} missing`);
  }
  if (!listed.content) return;
  const body = data ?? error; // what openapi-fetch parsed from the answer
  const validate = ajv.compile({ $ref: `api#/paths/${escape(template)}/${method}/responses/${response.status}/content/application~1json/schema` });
  if (!validate(body)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
}

/** Throws unless the answer has this status. */
export function expectStatus(what: string, response: Response, status: number): void {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status}`);
}

export function summary(): string {
  const distinct = [...new Set(statuses)].sort().join(', ');
  return `${statuses.length} answers checked against the document (statuses ${distinct}); Prism flagged ${requestsFlagged} request findings on the deliberately bad requests and nothing else; ${problems.length} problems`;
}
