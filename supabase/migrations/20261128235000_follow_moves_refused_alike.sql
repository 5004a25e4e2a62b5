-- Issue 53: a follow moved to another pair in Studio is refused as every other row's move is (row_cannot_move),
-- not as a follow request's transition.
create or replace function private.check_follow_update()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  -- A follow moved to another pair is refused by private.refuse_row_move (32_direct_edit_guards.sql).
  if (new.follower_id, new.followee_id) is distinct from (old.follower_id, old.followee_id) then
    return new;
  end if;
  if not (old.status = 'pending' and new.status = 'accepted') then
    perform private.fail(400, 'invalid_transition', 'Only a pending follow request can be accepted');
  end if;
  new.since := now();
  return new;
end;
$$;

create trigger refuse_row_move
before update of follower_id, followee_id on public.follows
for each row
when (old.follower_id is distinct from new.follower_id or old.followee_id is distinct from new.followee_id)
execute function private.refuse_row_move('follower_id', 'followee_id');
