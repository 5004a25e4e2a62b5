-- Comments on posts, replies to comments, and their likes.

create table public.comments (
  id uuid primary key default gen_random_uuid(),
  post_id uuid not null references public.posts (id) on delete cascade,
  parent_id uuid,
  author_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 500),
  likes_count integer not null default 0 check (likes_count >= 0),
  replies_count integer not null default 0 check (replies_count >= 0),
  created_at timestamptz not null default now(),
  unique (id, post_id),
  -- A reply belongs to the same post as the comment it answers, and goes with it.
  foreign key (parent_id, post_id) references public.comments (id, post_id) on delete cascade,
  check (parent_id is distinct from id)
);
alter table public.comments enable row level security;
create index comments_post_idx on public.comments (post_id, created_at desc, id desc) where parent_id is null;
-- Every comment of a post, replies included, newest first (a direct client's list; deleting a post).
create index comments_post_all_idx on public.comments (post_id, created_at desc, id desc);
create index comments_parent_idx on public.comments (parent_id, post_id, created_at desc, id desc);
create index comments_author_idx on public.comments (author_id);

comment on table public.comments is 'A comment on a post; a reply when parent_id names another comment of the same post.';
comment on column public.comments.id is 'The comment''s id.';
comment on column public.comments.post_id is 'The post it is under (a reply: its parent''s post).';
comment on column public.comments.parent_id is 'The comment it replies to; null for a top-level comment.';
comment on column public.comments.author_id is 'The author; the caller by default.';
comment on column public.comments.body is 'Text, 1 to 500 characters.';
comment on column public.comments.likes_count is 'Likes (kept by triggers).';
comment on column public.comments.replies_count is 'Direct replies (kept by triggers).';
comment on column public.comments.created_at is 'When the comment was made (set by the database).';

-- The body is stored without surrounding spaces, however it is written; one of spaces only is then empty,
-- which the length check refuses.
create function private.stamp_comment()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.body := btrim(new.body);
  new.created_at := now();
  new.likes_count := 0;
  new.replies_count := 0;
  return new;
end;
$$;
revoke execute on function private.stamp_comment() from public;
comment on function private.stamp_comment() is 'Trigger: a new comment, its body trimmed, starts now with no likes and no replies.';

create trigger stamp_comment
before insert on public.comments
for each row execute function private.stamp_comment();

create table public.comment_likes (
  comment_id uuid not null references public.comments (id) on delete cascade,
  user_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (comment_id, user_id)
);
alter table public.comment_likes enable row level security;
create index comment_likes_comment_idx on public.comment_likes (comment_id, created_at desc, user_id desc);
create index comment_likes_user_idx on public.comment_likes (user_id, created_at desc);

comment on table public.comment_likes is 'One like per user per comment.';
comment on column public.comment_likes.comment_id is 'The liked comment.';
comment on column public.comment_likes.user_id is 'Who liked it; the caller by default.';
comment on column public.comment_likes.created_at is 'When it was liked.';

-- The accounts a comment's text mentions (@username), resolved when it is written (20_mentions.sql).
create table public.comment_mentions (
  comment_id uuid not null references public.comments (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  primary key (comment_id, user_id)
);
alter table public.comment_mentions enable row level security;
create index comment_mentions_user_idx on public.comment_mentions (user_id);

comment on table public.comment_mentions is 'The accounts a comment mentions (@username), at most 20; kept by triggers from its text.';
comment on column public.comment_mentions.comment_id is 'The comment.';
comment on column public.comment_mentions.user_id is 'The account it mentions.';
