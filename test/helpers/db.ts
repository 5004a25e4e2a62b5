// The database as PostgREST uses it: a connection as `authenticator`, and per transaction the caller's
// role and JWT claims set with set_config(..., true). `asRoot` is the cluster superuser, for arranging data.
import postgres from 'postgres';
import { stack } from './stack.ts';

function asRole(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  return parsed.toString();
}

export const asRoot = postgres(stack.dbUrl, { max: 4, onnotice: () => {} });
const authenticator = postgres(asRole(stack.dbUrl, 'authenticator'), { max: 8, prepare: false, onnotice: () => {} });

export type Tx = postgres.TransactionSql;

export interface Actor {
  name: string;
  role: 'anon' | 'authenticated';
  claims: Record<string, unknown>;
}

export const anon: Actor = { name: 'anon', role: 'anon', claims: {} };

/** Runs `work` in one transaction exactly as PostgREST would for this actor. */
export function as<T>(actor: Actor, work: (tx: Tx) => Promise<T>): Promise<T> {
  const claims = JSON.stringify({ ...actor.claims, role: actor.role });
  return authenticator.begin(async (tx) => {
    await tx`select set_config('role', ${actor.role}, true), set_config('request.jwt.claims', ${claims}, true)`;
    return work(tx);
  }) as Promise<T>;
}

/** The SQLSTATE and hint of the error `work` raises (fails the test if it raises none). */
export async function errorOf(work: Promise<unknown>): Promise<{ code: string; hint?: string; message: string }> {
  try {
    await work;
  } catch (error) {
    const { code, hint, message } = error as { code: string; hint?: string; message: string };
    return { code, hint, message };
  }
  throw new Error('expected an error, but the statement succeeded');
}
