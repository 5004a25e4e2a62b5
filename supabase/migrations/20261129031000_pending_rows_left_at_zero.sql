-- Issue 55: a pending counter change is written only on a row left at 0, never added to a row still holding a
-- change: a fold skips the rows writers hold, so a committed change on such a row could not be taken, and the
-- fold could take the column below zero (clamped, one change lost) while it waited there.
create or replace function private.leave_pending(p_counter text, p_target uuid, p_delta integer)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  update private.pending_counts d set delta = d.delta + p_delta
  where d.id = (
    select f.id from private.pending_counts f where f.counter = p_counter and f.target_id = p_target and f.delta = 0
    limit 1 for no key update skip locked
  );
  if not found then
    insert into private.pending_counts (counter, target_id, delta) values (p_counter, p_target, p_delta);
  end if;
end;
$$;
comment on function private.leave_pending(text, uuid, integer) is
  'Leaves a counter change pending, on a free row of its counter left at 0 or on a new one.';
