-- Written by hand from supabase/schemas/23_replica_reads.sql (all new): a block is honoured on the blocked
-- account's reads at once, with the replica behind (issue 51).

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
