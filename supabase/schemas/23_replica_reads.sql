-- Reads on a streaming replica, with read-your-writes across every facade instance (docs/PRODUCT.md, "Reads
-- and replicas"). Each write request of a signed-in caller counts one more write in private.write_marks, in
-- the transaction of the write, on the primary: the facade's, and PostgREST's (its pre-request hook,
-- private.check_request in 27_sessions.sql), so a write through supabase-js counts too. A replica serves a
-- signed-in caller's read only once it holds the caller's session and has replayed as many of their writes as
-- the facade asks for (private.replica_ready); otherwise it raises SQLSTATE DKLAG and the facade reads from the
-- primary, whose session check refuses an ended session at once.
--
-- What a replica within the staleness bound may lack is what committed within the bound. The facade learns the
-- callers' write counts from the primary itself, one statement for the reads that wait meanwhile
-- (on its listening connection), so a write announces nothing: Postgres commits notifying
-- transactions one at a time, and a notice per write put a ceiling on the primary's commits. The rare events a
-- count cannot show are pushed on the channel `replica_reads` as they commit: each session ended ('ended
-- <user>': a sign-out, a ban, a deletion, a session cut short) and each account just blocked ('blocked <user>':
-- what it may see shrank); the facade keeps them for the bound (functions/api/lib/caller-events.ts). (How far
-- behind a replica may be at most is the facade's to measure: functions/api/lib/replica-lag.ts.) Anyone who may
-- LISTEN hears user ids: only the database's own login roles can, not API callers.

create table private.write_marks (
  user_id uuid primary key references auth.users (id) on delete cascade,
  writes bigint not null default 0 check (writes >= 0)
);
alter table private.write_marks enable row level security;
-- The facade reads its callers' counts on its listening connection, as service_role (a plain index look-up costs
-- the primary what `select 1` does; a function in front of it, twice that).
grant select on private.write_marks to service_role;

comment on table private.write_marks is
  'How many write requests each signed-in caller has made through the facade or PostgREST: a replica serves their reads once it has replayed as many.';

create function private.note_write()
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  insert into private.write_marks as m (user_id, writes)
  select auth.uid(), 1
  where auth.uid() is not null
  on conflict (user_id) do update set writes = m.writes + 1;
$$;
revoke execute on function private.note_write() from public;
grant execute on function private.note_write() to anon, authenticated, service_role;
comment on function private.note_write() is
  'Counts one more write by the caller, in the transaction of the write (the facade and PostgREST''s pre-request hook call it on every request that may write).';

create function private.read_mark()
returns bigint
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce((select m.writes from private.write_marks m where m.user_id = auth.uid()), 0);
$$;
revoke execute on function private.read_mark() from public;
grant execute on function private.read_mark() to anon, authenticated, service_role;
comment on function private.read_mark() is
  'The caller''s count of writes, read on the primary after the session check: a replica must have replayed as many.';

create function private.replica_ready(p_writes bigint)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if not pg_is_in_recovery() or p_writes is null then
    return; -- the primary itself is never behind; an anonymous caller has nothing of their own to see
  end if;
  if private.session_uid() is null then
    raise exception 'this replica has not replayed the caller''s session yet' using errcode = 'DKLAG';
  end if;
  if private.read_mark() < p_writes then
    raise exception 'this replica has not replayed the caller''s writes yet' using errcode = 'DKLAG';
  end if;
end;
$$;
revoke execute on function private.replica_ready(bigint) from public;
grant execute on function private.replica_ready(bigint) to anon, authenticated, service_role;
comment on function private.replica_ready(bigint) is
  'On a replica, for a signed-in caller (p_writes: their count of writes on the primary): raises DKLAG unless it holds their session and as many of their writes.';

-- A session ends when Auth deletes it (sign-out, password reset, the account deleted) or cuts it short, and every
-- session of an account when it is banned or marked deleted: what private.uid() reads.
create function private.announce_session_end()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  if tg_table_name = 'users' then
    perform pg_notify('replica_reads', 'ended ' || old.id);
  else
    perform pg_notify('replica_reads', 'ended ' || old.user_id);
  end if;
  return null;
end;
$$;
revoke execute on function private.announce_session_end() from public;
comment on function private.announce_session_end() is
  'Trigger on auth.sessions and auth.users: tells the facade instances, when it commits, that an account''s session ended.';

create trigger announce_session_end
after delete or update of not_after on auth.sessions
for each row execute function private.announce_session_end();

create trigger announce_session_end
after update of banned_until, deleted_at on auth.users
for each row
when (old.banned_until is distinct from new.banned_until or old.deleted_at is distinct from new.deleted_at)
execute function private.announce_session_end();

-- A block hides the blocker from the blocked account on every read at once: the blocked account's reads go to the
-- primary for the bound, as after a session end. (What a block lets the blocker see is only less, never more.)
create function private.announce_block()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform pg_notify('replica_reads', 'blocked ' || new.blocked_id);
  return null;
end;
$$;
revoke execute on function private.announce_block() from public;
comment on function private.announce_block() is
  'Trigger on public.blocks: tells the facade instances, when it commits, to read the blocked account on the primary for the bound.';

create trigger announce_block
after insert on public.blocks
for each row execute function private.announce_block();
