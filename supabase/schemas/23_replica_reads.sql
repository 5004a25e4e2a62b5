-- Reads on a streaming replica, with read-your-writes across every facade instance (docs/PRODUCT.md, "Reads
-- and replicas"). Each write request of a signed-in caller counts one more write in private.write_marks, in
-- the transaction of the write, on the primary: the facade's, and PostgREST's (its pre-request hook,
-- private.check_request in 27_sessions.sql), so a write through supabase-js counts too. A read request asks the primary for the caller's count (with the
-- session check, which never reads a replica), then runs on a replica only once that replica has replayed as
-- many of the caller's writes and holds the caller's session: the commit that raised the count is then
-- replayed, and so is everything the caller committed before it. Otherwise private.replica_ready raises
-- SQLSTATE DKLAG and the facade reads from the primary. (How far behind a replica may be at most is the
-- facade's to measure: functions/api/lib/replica-lag.ts.)

create table private.write_marks (
  user_id uuid primary key references auth.users (id) on delete cascade,
  writes bigint not null default 0 check (writes >= 0)
);
alter table private.write_marks enable row level security;

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
  if private.uid() is null then
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
