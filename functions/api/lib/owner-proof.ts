// What private.prove_factor_owner answers (supabase/schemas/31_second_factor_checks.sql): `{proved: true}`, or a
// refusal it answers rather than raises, so that the wrong attempt it counted is kept (shaped as PostgREST
// shapes an error: code PT<status>, the stable code in hint).
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from './errors.ts';

interface Refusal {
  code: string;
  hint: string;
  message: string;
}

/** Throws the refusal as the facade's error; returns when the owner proved it is them. */
export function ownerProof(answer: { proved: true } | Refusal): void {
  if ('proved' in answer && answer.proved) return;
  const refusal = answer as Refusal;
  throw new ApiError(Number(refusal.code.slice(2)) as ContentfulStatusCode, refusal.hint, refusal.message);
}
