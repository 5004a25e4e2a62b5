-- A follow row is readable by others only when both accounts' lists are: "A follows P" belongs to P's
-- followers list as much as to A's following list, and a private account's lists are for its followers
-- alone. (Before, a public follower's row was readable, so one query rebuilt a private account's followers.)
drop policy "parties, and viewers of either account's lists, read follows" on public.follows;

create policy "parties, and viewers of both accounts' lists, read follows" on public.follows
for select to anon, authenticated
using (
  (select private.uid()) in (follower_id, followee_id)
  or (select private.is_admin())
  or status = 'accepted'
     and private.can_see_user((select private.uid()), follower_id)
     and private.can_see_user((select private.uid()), followee_id)
     and private.can_see_activity_of((select private.uid()), followee_id)
     and private.can_see_activity_of((select private.uid()), follower_id)
);
