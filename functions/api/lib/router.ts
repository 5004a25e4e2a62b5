// Every router of the app is an OpenAPIHono whose request validation failures become the one error envelope.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './context.ts';
import { ApiError } from './errors.ts';

export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const details = result.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      }));
      throw new ApiError(
        400,
        'validation_failed',
        `Invalid request: ${details[0]?.path || 'input'}: ${details[0]?.message}`,
        details,
      );
    },
  });
}
