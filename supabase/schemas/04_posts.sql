-- Posts about a day, and their likes.

create type public.post_privacy as enum ('public', 'close_friends', 'private');

comment on type public.post_privacy is 'Who sees a post: public, close_friends (the author''s list) or private (the author only).';

-- Media are up to five paths in the project's storage bucket (private.is_storage_path).
create function private.is_media_list(p_media text[])
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(cardinality(p_media), 0) <= 5
     and coalesce(array_ndims(p_media), 1) = 1
     and not exists (
       select 1 from unnest(p_media) m
       where not coalesce(private.is_storage_path(m), false)
     )
$$;
revoke execute on function private.is_media_list(text[]) from public;
grant execute on function private.is_media_list(text[]) to anon, authenticated, service_role;
comment on function private.is_media_list(text[]) is 'True for a flat list of at most 5 storage paths.';

create function private.all_in_own_folder(p_owner uuid, p_paths text[])
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(bool_and(private.in_own_folder(p_owner, m)), true) from unnest(p_paths) m
$$;
revoke execute on function private.all_in_own_folder(uuid, text[]) from public;
grant execute on function private.all_in_own_folder(uuid, text[]) to anon, authenticated, service_role;
comment on function private.all_in_own_folder(uuid, text[]) is 'True when every path is in the owner''s own folder.';

create table public.posts (
  id uuid primary key default gen_random_uuid(),
  author_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 1000),
  media text[] not null default '{}' check (private.is_media_list(media)),
  emotion smallint check (emotion between 0 and 100),
  privacy public.post_privacy not null default 'public',
  -- Always today in the author's time zone (set_post_day); the default only tells generated types, and so
  -- typed supabase-js inserts, that a client does not send it (it may not: the column is not granted).
  day date not null default current_date,
  likes_count integer not null default 0 check (likes_count >= 0),
  comments_count integer not null default 0 check (comments_count >= 0),
  banned_at timestamptz,
  created_at timestamptz not null default now(),
  edited_at timestamptz,
  -- The `simple` configuration: words as written, lowercased, in any language; no stemming, no stop words.
  body_search tsvector not null generated always as (to_tsvector('simple', body)) stored,
  constraint posts_media_in_own_folder check (private.all_in_own_folder(author_id, media))
)
-- A tenth of each page kept free for the new versions of rows whose counters change (a like, a comment):
-- they stay on their page (HOT updates, no index touched), so the table keeps the time order it was
-- written in, and a newest-first walk (feed, search, direct lists) reads neighbouring rows.
with (fillfactor = 90);
alter table public.posts enable row level security;
-- Who may read a media object: the posts that reference it (private.may_read_media).
create index posts_media_idx on public.posts using gin (media);
-- Newest posts of everyone (what a direct client asks first), of an author, of an author's day.
create index posts_created_idx on public.posts (created_at desc, id desc);
create index posts_author_idx on public.posts (author_id, created_at desc, id desc);
create index posts_author_day_idx on public.posts (author_id, day, created_at desc, id desc);
create index posts_banned_idx on public.posts (banned_at desc, id desc) where banned_at is not null;
-- Full-text search of post bodies (22_api_search.sql), two ways that never read a post hidden by its own privacy
-- or ban from whoever may not see it: the public, unbanned posts holding a word in time order (RUM), and their
-- walk by time for a common word; the other posts by author and word at once (GIN, with btree_gin for the uuid),
-- so a search reads only those of the caller and of whoever counts the caller a close friend.
create index posts_body_search_idx on public.posts
  using rum (body_search extensions.rum_tsvector_addon_ops, created_at)
  with (attach = 'created_at', to = 'body_search')
  where privacy = 'public' and banned_at is null;
create index posts_public_created_idx on public.posts (created_at desc, id desc) where privacy = 'public' and banned_at is null;
create index posts_circle_search_idx on public.posts using gin (author_id, body_search) where privacy <> 'public';

comment on table public.posts is 'A post about a day. Visible per its privacy, its author''s privacy, blocks and bans.';
comment on column public.posts.id is 'The post''s id.';
comment on column public.posts.author_id is 'The author; the caller by default.';
comment on column public.posts.body is 'Text, 1 to 1000 characters.';
comment on column public.posts.media is 'Up to 5 object paths in the media bucket, in the author''s own folder (<author id>/…).';
comment on column public.posts.emotion is 'Optional mood, 0 to 100.';
comment on column public.posts.privacy is 'public, close_friends (the author''s list) or private (the author only).';
comment on column public.posts.day is 'The date of creation in the author''s time zone at that moment. Set by the database; never changes.';
comment on column public.posts.likes_count is 'Likes (kept by triggers).';
comment on column public.posts.comments_count is 'Comments and replies (kept by triggers).';
comment on column public.posts.banned_at is 'Set while an admin bans the post; then only admins and the author see it.';
comment on column public.posts.created_at is 'When the post was made (set by the database).';
comment on column public.posts.edited_at is 'Last edit of body, media, emotion or privacy.';
comment on column public.posts.body_search is 'The words of the body for full-text search (simple configuration; generated).';

-- The day is the author's calendar date when the post is made; neither clients nor edits choose it. The body
-- is stored without surrounding spaces, however it is written (the API, supabase-js, Studio): one of spaces
-- only is then empty, which the length check refuses.
create function private.stamp_post()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  new.body := btrim(new.body);
  if tg_op = 'INSERT' then
    new.created_at := now();
    new.day := (now() at time zone (select p.time_zone from public.profiles p where p.id = new.author_id))::date;
    -- No profile: a Studio insert for a deleted account (a signed-out caller has no author: RLS refuses it).
    if new.day is null and new.author_id is not null then
      perform private.fail(404, 'user_not_found', 'No account has this author_id (deleted, or never made): a post needs its author');
    end if;
    new.edited_at := null;
    new.banned_at := null;
    new.likes_count := 0;
    new.comments_count := 0;
    return new;
  end if;
  new.author_id := old.author_id;
  new.day := old.day;
  new.created_at := old.created_at;
  -- edited_at says when the text, media, emotion or privacy last changed: only such a change sets it (an edit
  -- of edited_at alone keeps the old value); one outside the post's life (before its creation, in the future:
  -- a load or an edit made before this rule) is cleared by any update, the integrity report's repair.
  new.edited_at := case
    when (new.body, new.media, new.emotion, new.privacy) is distinct from (old.body, old.media, old.emotion, old.privacy) then now()
    when old.edited_at between old.created_at and now() then old.edited_at
  end;
  return new;
end;
$$;
revoke execute on function private.stamp_post() from public;
comment on function private.stamp_post() is
  'Trigger: trims the body; sets day and created_at on insert (with no likes or comments yet), keeps author, day and creation on update; edited_at changes only with the content.';

create trigger stamp_post
before insert or update on public.posts
for each row execute function private.stamp_post();

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
comment on function private.refuse_banned_post_edit() is 'Trigger: refuses every edit of a banned post (403).';

create trigger refuse_banned_post_edit
before update of body, media, emotion, privacy on public.posts
for each row
when (old.banned_at is not null)
execute function private.refuse_banned_post_edit();

create table public.post_likes (
  post_id uuid not null references public.posts (id) on delete cascade,
  user_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (post_id, user_id)
);
alter table public.post_likes enable row level security;
create index post_likes_post_idx on public.post_likes (post_id, created_at desc, user_id desc);
create index post_likes_user_idx on public.post_likes (user_id, created_at desc);

comment on table public.post_likes is 'One like per user per post.';
comment on column public.post_likes.post_id is 'The liked post.';
comment on column public.post_likes.user_id is 'Who liked it; the caller by default.';
comment on column public.post_likes.created_at is 'When it was liked.';

-- The accounts a post's text mentions (@username), resolved when it is written or its text edited
-- (20_mentions.sql).
create table public.post_mentions (
  post_id uuid not null references public.posts (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  primary key (post_id, user_id)
);
alter table public.post_mentions enable row level security;
create index post_mentions_user_idx on public.post_mentions (user_id);

comment on table public.post_mentions is 'The accounts a post mentions (@username), at most 20; kept by triggers from its text.';
comment on column public.post_mentions.post_id is 'The post.';
comment on column public.post_mentions.user_id is 'The account it mentions.';
