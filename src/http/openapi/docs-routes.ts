import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { RequestState } from '../routing/route';
import type { OpenApiDocument } from './document';

// GET /openapi.json and GET /docs (Swagger UI, from the swagger-ui-dist package's own files: no CDN).
// Mounted only when API_DOCS is on. They are not routes of the API (no envelope), so they are not in the
// document either. See docs/decisions/004-route-contract-and-api-document.md.

/** The only files the page needs, read once when docs are mounted: nothing else under /docs is served. */
const UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * The page's policy, relaxed from the API's `default-src 'none'` for these responses only: its own scripts
 * and styles (Swagger UI sets inline style attributes), data: images and fonts (its icons), and requests to
 * this origin (and PUBLIC_URL's, the document's server) for "Try it out".
 */
export function docsContentSecurityPolicy(publicUrl: string | undefined): string {
  const connect = ["'self'", ...(publicUrl ? [new URL(publicUrl).origin] : [])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

interface Asset {
  type: string;
  body: Buffer | string;
}

let loaded: { version: string; assets: Map<string, Asset> } | undefined;

/** Read on first use and kept: every app built in the process (tests build many) shares the ~1.5 MB. */
function uiAssets(): { version: string; assets: Map<string, Asset> } {
  return (loaded ??= readUiAssets());
}

function readUiAssets(): { version: string; assets: Map<string, Asset> } {
  // Resolved here, not imported at the top: a service with API_DOCS off never touches the package.
  const root = dirname(require.resolve('swagger-ui-dist/package.json'));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const assets = new Map<string, Asset>(
    Object.entries(UI_FILES).map(([file, type]) => [file, { type, body: readFileSync(join(root, file)) }]),
  );
  // Started from a file, not an inline script, so the policy needs no 'unsafe-inline' for scripts.
  // validatorUrl null: the page never sends the document to the public validator.
  const init = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;
  assets.set('init.js', { type: 'text/javascript; charset=utf-8', body: init });
  return { version, assets };
}

function page(title: string, version: string): string {
  const asset = (file: string) => `/docs/${file}?v=${encodeURIComponent(version)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · API documentation</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('init.js')}"></script>
</body>
</html>
`;
}

/** Adds GET /openapi.json, GET /docs and the page's files to the router. */
export function mountApiDocs(
  router: Router<RequestState>,
  document: OpenApiDocument,
  publicUrl: string | undefined,
): void {
  const json = JSON.stringify(document);
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = json;
  });

  const { version, assets } = uiAssets();
  const html = page(String((document.info as { title?: unknown }).title ?? 'API'), version);
  const policy = docsContentSecurityPolicy(publicUrl);
  const send = (ctx: Context, asset: Asset, cacheControl: string) => {
    ctx.set('Content-Security-Policy', policy);
    ctx.set('Cache-Control', cacheControl);
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
  router.get('/docs', (ctx) => send(ctx, { type: 'text/html; charset=utf-8', body: html }, 'no-cache'));
  router.get('/docs/:file', (ctx, next) => {
    const asset = assets.get(ctx.params.file);
    // URLs carry the package version, so a file can be cached for a day; an unknown name falls through to 404.
    return asset ? send(ctx, asset, 'public, max-age=86400') : next();
  });
}
