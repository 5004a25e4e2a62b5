// The API's own description: GET /openapi.json (declared here, served by app.ts, which builds the document)
// and GET /docs, Swagger UI over it. Swagger UI's script and styles come from the swagger-ui-dist package
// through this function, never from a CDN: the page renders wherever the function itself can be reached.
// A hosted Edge Function has only the files it imports and those `static_files` lists, so the two files are
// listed there (supabase/config.toml) and read where the upload keeps them, the repository's node_modules/
// (which `npm ci` fills), never from the package's own folder, which a hosted function does not have.
import { readFile } from 'node:fs/promises';
import type { MiddlewareHandler } from 'hono';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../lib/router.ts';

// The one route declared apart from its handler, which app.ts writes: it builds the document from every group.
const openApiRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  description: 'This document (OpenAPI 3.1), which the typed client is generated from and GET /docs renders.',
  tags: ['docs'],
  summary: 'This OpenAPI 3.1 document (rendered at GET /docs)',
  security: [],
  responses: {
    200: {
      description: 'The document',
      content: { 'application/json': { schema: z.looseObject({ openapi: z.string().openapi({ example: '3.1.0' }) }) } },
    },
  },
});

const assetTypes: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};
const assets = new Map<string, Promise<string>>();

/** A file of swagger-ui-dist (the version package.json pins), read once, when first asked. */
function asset(name: string): Promise<string> {
  let text = assets.get(name);
  if (!text) {
    text = readFile(new URL(`../../../node_modules/swagger-ui-dist/${name}`, import.meta.url), 'utf8');
    assets.set(name, text);
    text.catch(() => assets.delete(name));
  }
  return text;
}

let page: Promise<MiddlewareHandler> | undefined;

/** The Swagger UI page, built when first asked: a cold start that serves another route does not import it. */
function swaggerPage(): Promise<MiddlewareHandler> {
  // Relative URLs, so the page works under any prefix: …/api/docs loads …/api/openapi.json and
  // …/api/docs/swagger-ui-dist/<file>.
  return page ??= import('@hono/swagger-ui').then(({ swaggerUI }) =>
    swaggerUI({ title: 'DayKeeper API', url: 'openapi.json', baseUrl: 'docs' })
  );
}

export const docs = createRouter();
// In this group's part of the document; app.ts serves it, before users' /{username}, which would catch it.
docs.openAPIRegistry.registerPath(openApiRoute);
docs
  .get('/docs', async function swaggerUi(c, next) {
    return (await swaggerPage())(c, next);
  })
  .get('/docs/swagger-ui-dist/:file{swagger-ui\\.css|swagger-ui-bundle\\.js}', async function swaggerUiAsset(c) {
    const name = c.req.param('file');
    return c.body(await asset(name), 200, {
      'Content-Type': assetTypes[name],
      'Cache-Control': 'public, max-age=3600',
    });
  });
