// One statement as the caller, where it belongs. A request that only reads goes to a replica that has
// replayed what the caller must see; every other request, and every read no replica can take, goes to the
// primary. The rules (docs/PRODUCT.md, "Reads and replicas"):
// - the replica checks the caller's session and write count itself (supabase/schemas/23_replica_reads.sql);
//   what it may not have replayed yet, the sessions that just ended and the writes just counted, the primary
//   pushes to every instance (caller-events.ts), so a replica read asks the primary nothing of its own (a
//   round trip on the listening connection, shared, makes sure every notice sent before the read is heard). A
//   caller whose session just ended is read on the primary, which refuses them at once, and so is one just
//   blocked, whom the primary shows the block;
// - when this instance cannot know (it has not listened for a whole staleness bound), the caller's count of
//   writes is read on the primary with the session check, as every instance would have to;
// - a replica behind the bound (replica-lag.ts) or down is skipped: the read goes to the primary.
import type postgres from 'postgres';
import type { RequestDeps } from './context.ts';
import { identity, lostConnection, queryOnPrimary, runOn } from './db.ts';
import type { Pool } from './pool.ts';
import { takeQuota } from './request-quota.ts';
import { sql, type SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

/** private.replica_ready's SQLSTATE: the replica is behind what this request must see. */
const replicaBehind = 'DKLAG';
/** A standby cancelled the read because replay had to change what it was reading (conflict with recovery). */
const recoveryConflict = '40001';

export async function queryAs(
  deps: RequestDeps,
  caller: Caller,
  statement: SqlText,
): Promise<postgres.RowList<postgres.Row[]>> {
  const replica = deps.request.readOnly ? await deps.db.replicas.pick() : undefined;
  return replica ? readOnReplica(deps, replica, caller, statement) : queryOnPrimary(deps, caller, statement);
}

async function readOnReplica(
  deps: RequestDeps,
  replica: Pool,
  caller: Caller,
  statement: SqlText,
): Promise<postgres.RowList<postgres.Row[]>> {
  let writes: number | string | null = null;
  if (caller.role === 'authenticated') {
    const known = await deps.db.callerEvents?.writesToSee(caller.userId);
    if (known === 'primary') return queryOnPrimary(deps, caller, statement);
    writes = known ?? (await queryOnPrimary(deps, caller, sql`select private.read_mark() as writes`))[0].writes;
  }
  const preamble = await identity(deps.db, caller, { checkSession: false, countWrite: false });
  const ready = sql`select private.replica_ready(${writes});`;
  // The quota, when it must be taken on the primary, is taken there alongside the read.
  const { signal, quota } = deps.request;
  const take = takeQuota(quota, caller);
  const taken = take.text ? runOn(deps.db, signal, take.text, quota) : Promise.resolve();
  // A replica that is behind or gone leaves the read to the primary (undefined here).
  const read = runOn(replica, signal, `${preamble.text} ${ready.text} ${statement.text}`).catch((error) => {
    if (lostConnection(error)) deps.db.replicas.failed(replica);
    else if (!isBehind(error)) throw error;
    return undefined;
  });
  const [rows] = await Promise.all([read, taken]);
  return rows ?? queryOnPrimary(deps, caller, statement);
}

function isBehind(error: unknown): boolean {
  const { code } = (error ?? {}) as { code?: unknown };
  return code === replicaBehind || code === recoveryConflict;
}
