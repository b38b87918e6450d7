import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

// A minimal OTLP/HTTP trace receiver on loopback, in the test process: it keeps every export request and,
// for http/json, the spans in it (OTLP/JSON: ids as hex strings, attribute values typed).

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  scope: string;
  serviceName: string | undefined;
  attributes: Record<string, unknown>;
}

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: (Omit<ReceivedSpan, 'attributes' | 'scope' | 'serviceName'> & { attributes?: OtlpAttribute[] })[];
    }[];
  }[];
}

function attributes(list: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));
}

export interface OtlpReceiver {
  endpoint: string;
  requests: { path: string; headers: IncomingHttpHeaders; body: Buffer }[];
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.headers['content-type']?.startsWith('application/json')) {
        for (const resourceSpans of (JSON.parse(body.toString()) as OtlpJson).resourceSpans ?? []) {
          const serviceName = attributes(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                ...span,
                scope: scopeSpans.scope?.name ?? '',
                serviceName,
                attributes: attributes(span.attributes),
              });
            }
          }
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      } else {
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end(); // an empty ExportTraceServiceResponse
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
