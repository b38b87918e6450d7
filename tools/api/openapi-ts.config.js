// @hey-api/openapi-ts (its fetch client) from the committed document: generated/hey-api/, read by hey-api-flow.ts.
export default {
  input: '../../openapi.json',
  output: 'generated/hey-api',
  plugins: ['@hey-api/client-fetch'],
};
