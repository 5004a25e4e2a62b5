// A caller as PostgREST runs one: a role, the JWT claims, and the role's own settings (statement timeout, and
// jit off for anon and authenticated: supabase/schemas/00_schemas_and_privileges.sql), all set with
// set_config(..., true) at the start of the request's transaction (research/supabase-stack.md §4.2).
export interface Identity {
  role: 'anon' | 'authenticated' | 'service_role';
  claims: Record<string, unknown>;
}

/** PostgREST applies the role's own settings per transaction; supabase/stack/bootstrap.sql gives anon 3 s, authenticated 8 s. */
export const statementTimeout: Record<Identity['role'], string> = {
  anon: '3s',
  authenticated: '8s',
  service_role: '8s',
};

export const anonIdentity: Identity = { role: 'anon', claims: { role: 'anon' } };

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The statement that makes a transaction run as `identity`. */
export function identitySql(identity: Identity): string {
  const claims = JSON.stringify({ ...identity.claims, role: identity.role });
  return `select set_config('role', ${literal(identity.role)}, true), ` +
    `set_config('request.jwt.claims', ${literal(claims)}, true), ` +
    `set_config('statement_timeout', ${literal(statementTimeout[identity.role])}, true), ` +
    // service_role runs only the set-based floors here: without JIT, like the API functions they are measured against.
    `set_config('jit', 'off', true)`;
}
