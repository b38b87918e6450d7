// orval (a fetch client, one file) from the committed document: generated/orval/api.ts, read by orval-flow.ts.
// The base URL is read when a call is made (API_BASE_URL), so one generated client serves any port.
export default {
  api: {
    input: { target: '../../openapi.json' },
    output: {
      target: 'generated/orval/api.ts',
      client: 'fetch',
      mode: 'single',
      baseUrl: { runtime: 'process.env.API_BASE_URL' },
    },
  },
};
