-- A write announces nothing: the facade reads its callers' write counts from the primary in the round trip a
-- replica read waits for anyway, so no write transaction notifies (Postgres commits notifying transactions one at a
-- time). Sessions ended and blocks are still pushed on replica_reads.
create or replace function private.note_write()
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

grant select on private.write_marks to service_role;
