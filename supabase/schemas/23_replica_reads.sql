-- Reads on a streaming replica, with read-your-writes across every facade instance (docs/PRODUCT.md,
-- "Replicas"). Each write request of a signed-in caller counts one more write in private.write_marks, in
-- its own transaction, on the primary. A read request asks the primary for the caller's count (with the
-- session check, which never reads a replica), then runs on a replica only once that replica has replayed
-- as many of the caller's writes, holds the caller's session, and is not further behind than the bound: the
-- commit that raised the count is then replayed, and so is everything the caller committed before it.
-- Anything else makes private.replica_ready raise SQLSTATE DKLAG and the facade reads from the primary.

create table private.write_marks (
  user_id uuid primary key references auth.users (id) on delete cascade,
  writes bigint not null default 0 check (writes >= 0)
);
alter table private.write_marks enable row level security;

comment on table private.write_marks is
  'How many write requests each signed-in caller has made through the facade: a replica serves their reads once it has replayed as many.';

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
  'Counts one more write by the caller, in the transaction of the write (the facade calls it on every request that may write).';

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

create function private.replica_ready(p_writes bigint, p_max_lag interval)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if not pg_is_in_recovery() then
    return; -- the primary itself is never behind
  end if;
  -- Cut off from the primary, a standby cannot tell how far behind it is.
  if not exists (select 1 from pg_stat_wal_receiver w where w.status = 'streaming') then
    raise exception 'this replica is not streaming from the primary' using errcode = 'DKLAG';
  end if;
  -- WAL received but not replayed yet (replay paused, or slower than the primary): behind by the age of the
  -- last transaction it replayed.
  if pg_last_wal_receive_lsn() is distinct from pg_last_wal_replay_lsn()
     and now() - pg_last_xact_replay_timestamp() > p_max_lag then
    raise exception 'this replica is further behind than %', p_max_lag using errcode = 'DKLAG';
  end if;
  if p_writes is not null then
    if private.uid() is null then
      raise exception 'this replica has not replayed the caller''s session yet' using errcode = 'DKLAG';
    end if;
    if private.read_mark() < p_writes then
      raise exception 'this replica has not replayed the caller''s writes yet' using errcode = 'DKLAG';
    end if;
  end if;
end;
$$;
revoke execute on function private.replica_ready(bigint, interval) from public;
grant execute on function private.replica_ready(bigint, interval) to anon, authenticated, service_role;
comment on function private.replica_ready(bigint, interval) is
  'On a replica: raises DKLAG unless it streams, is within p_max_lag, and (for a signed-in caller, p_writes not null) holds their session and p_writes of their writes.';
