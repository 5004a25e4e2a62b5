// The Error schema every route declares its error answers with; lib/openapi.ts then names, per answer, the
// codes it may carry. Apart from openapi.ts, which the app loads only to serve the document.
import { z } from '@hono/zod-openapi';

/** What the document's error examples show besides a code and its message: a request validation failure's detail, a request id. */
export const errorExample = {
  detail: { path: 'username', message: 'a username is 3 to 30 of a-z, 0-9, dot and underscore' },
  request_id: '5f0c6a5e-6f1e-4d8e-9a43-2b7f1f0e9b1c',
};

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'post_not_found' }),
      message: z.string().openapi({ example: 'Post not found' }),
      details: z.array(z.object({
        path: z.string().openapi({ example: errorExample.detail.path }),
        message: z.string().openapi({ example: errorExample.detail.message }),
      })).optional(),
      request_id: z.string().optional().openapi({ example: errorExample.request_id }),
    }),
  })
  .openapi('Error');

/** An OpenAPI response entry for an error status, so every route declares its errors. */
export function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: ErrorSchema } } };
}

/** The error entries of a route's responses, from status to description. */
export function errorResponses<S extends number>(descriptions: Record<S, string>) {
  return Object.fromEntries(
    Object.entries(descriptions).map(([status, description]) => [status, errorResponse(description as string)]),
  ) as Record<S, ReturnType<typeof errorResponse>>;
}
