// The running test stack, as `npm test` (supabase/cli/main.ts) describes it in the environment.
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with \`npm test\`, which starts the stack`);
  return value;
}

export const stack = {
  apiUrl: required('STACK_API_URL'),
  /** The facade's base URL: http://127.0.0.1:<port>/functions/v1/api */
  functionsUrl: required('STACK_FUNCTIONS_URL'),
  dbUrl: required('STACK_DB_URL'),
  /** PgBouncer in front of the primary (superuser), '' when the stack runs none. */
  poolerUrl: process.env.STACK_POOLER_URL ?? '',
  /** The streaming read replica (superuser), '' when the stack runs none. */
  replicaUrl: process.env.STACK_REPLICA_URL ?? '',
  mailpitUrl: required('STACK_MAILPIT_URL'),
  anonKey: required('STACK_ANON_KEY'),
  serviceRoleKey: required('STACK_SERVICE_ROLE_KEY'),
  /** The private ES256 key Auth signs with (a JWK), for forging tokens in tests. */
  signingKey: JSON.parse(required('STACK_SIGNING_KEY')) as Record<string, string>,
  /** Empty when Supabase Auth runs; otherwise why it does not. */
  authUnavailable: process.env.STACK_AUTH_UNAVAILABLE ?? '',
};

export const authIsRunning = stack.authUnavailable === '';
