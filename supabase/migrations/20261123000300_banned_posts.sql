-- A banned post is frozen: its author can no longer rewrite what a moderator banned, through edit_post or a
-- direct update. (Unbanning touches only the ban columns.) Deleting it stays possible.
create function private.refuse_banned_post_edit()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'post_banned', 'A moderator banned this post: it cannot be edited');
  return null;
end;
$$;
revoke execute on function private.refuse_banned_post_edit() from public;

create trigger refuse_banned_post_edit
before update of body, media, emotion, privacy on public.posts
for each row
when (old.banned_at is not null)
execute function private.refuse_banned_post_edit();
