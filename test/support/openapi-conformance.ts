import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';

// Checks a real response against the API document: finds the operation (path template + method), the
// response for the status the service really sent, and validates the body with ajv against that
// response's schema (JSON Schema 2020-12, the dialect of OpenAPI 3.1) and each documented header that was
// sent against its schema (and each one it says is required, present). A status the document does not list
// for that operation is a failure too.

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'openapi.json';

function pointer(...segments: string[]): string {
  return segments.map((segment) => `/${encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

export class DocumentConformance {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  private get paths(): Record<string, Record<string, Json>> {
    return this.document.paths as Record<string, Record<string, Json>>;
  }

  /** The operation of `method pathTemplate` (`GET /api/probe/items/{id}`), or a thrown error naming what is missing. */
  operation(method: string, pathTemplate: string): Json {
    const operation = this.paths[pathTemplate]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the document has no operation ${method} ${pathTemplate}`);
    return operation;
  }

  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    return target as Json;
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${ref}` });
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  /** Problems with this response against the document (empty when it conforms). */
  problems(method: string, pathTemplate: string, res: Response): string[] {
    const where = `${method} ${pathTemplate} → ${res.status}`;
    const responses = this.operation(method, pathTemplate).responses as Record<string, Json>;
    const documented = responses[String(res.status)];
    if (!documented) return [`${where}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
    const problems: string[] = [];
    const content = documented.content as Record<string, unknown> | undefined;
    if (content) {
      if (!String(res.headers['content-type']).startsWith('application/json'))
        problems.push(`${where}: content type ${res.headers['content-type']}`);
      const validate = this.validator(
        pointer(
          'paths',
          pathTemplate,
          method.toLowerCase(),
          'responses',
          String(res.status),
          'content',
          'application/json',
          'schema',
        ),
      );
      if (!validate(res.body))
        problems.push(`${where}: body ${JSON.stringify(res.body)}: ${this.ajv.errorsText(validate.errors)}`);
    } else if (res.text) {
      problems.push(`${where}: documented without a body, got ${res.text}`);
    }
    for (const [name, header] of Object.entries((documented.headers ?? {}) as Record<string, Json>)) {
      const sent = res.headers[name.toLowerCase()] as string | string[] | undefined;
      const schema = this.resolve(header).schema as Json;
      if (sent === undefined && this.resolve(header).required === true)
        problems.push(`${where}: required header ${name} missing`);
      for (const one of sent === undefined ? [] : Array.isArray(sent) ? sent : [sent]) {
        const value = schema.type === 'integer' ? Number(one) : one;
        if (!this.ajv.validate(schema, value))
          problems.push(`${where}: header ${name}: ${one} does not match ${JSON.stringify(schema)}`);
      }
    }
    return problems;
  }

  /** Fails the test unless the response conforms to the document. */
  expectConforms(method: string, pathTemplate: string, res: Response): void {
    const problems = this.problems(method, pathTemplate, res);
    if (problems.length) throw new Error(problems.join('\n'));
  }
}
