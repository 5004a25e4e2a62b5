// What every POST …/report route declares (users, posts, comments): the reason, an optional Idempotency-Key, 201
// with the report, and 409 for a second open report. Each route file still names its own path, operationId and
// SQL function (`rpc(…, 'report_post', …)`), which the generators read from the route's handler.
import type { z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { IdempotencyHeaders } from '../lib/idempotency.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { body, json, Reason, ReportSchema } from './schemas.ts';

/**
 * The shared part of a report route (its method and path stay beside its operationId, where the generators read
 * them): `reported` says what is (`an account`), `per` and `kind` name it in the sentences, `params` locate it,
 * `tags` its group, `errors` its group's other answers.
 */
export function reportRoute<P extends z.ZodObject, E extends Record<number, unknown>>(
  { reported, per, kind, tags, params, errors }: {
    reported: string;
    per: string;
    kind: string;
    tags: string[];
    params: P;
    errors: E;
  },
) {
  // In the order the routes declare these, which is the order of the document's keys.
  return {
    description:
      `Reports ${reported} to the admins, with a reason; one open report per reporter and ${per} (a second is a 409).`,
    tags,
    security: [{ bearerAuth: [] }],
    summary: `Report a ${kind} to the admins`,
    middleware: [requireUser] as [typeof requireUser],
    request: { params, headers: IdempotencyHeaders, ...body(Reason) },
    responses: {
      201: json(ReportSchema, 'Reported'),
      ...errors,
      ...errorResponses({
        409: `You already reported this ${kind}, or the Idempotency-Key was sent with another request`,
      }),
    },
  };
}
