-- Reports by users, and the ban history admins write.

create type public.report_target as enum ('user', 'post', 'comment');

create table public.reports (
  id uuid primary key default gen_random_uuid(),
  reporter_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  target_type public.report_target not null,
  target_user_id uuid references public.profiles (id) on delete cascade,
  target_post_id uuid references public.posts (id) on delete cascade,
  target_comment_id uuid references public.comments (id) on delete cascade,
  reason text not null check (char_length(reason) between 1 and 1000),
  created_at timestamptz not null default now(),
  -- Exactly the target its type names.
  check (
    (target_type = 'user') = (target_user_id is not null)
    and (target_type = 'post') = (target_post_id is not null)
    and (target_type = 'comment') = (target_comment_id is not null)
  ),
  check (target_user_id is distinct from reporter_id)
);
alter table public.reports enable row level security;
-- One open report per reporter per element; dismissing deletes the report, so another may follow.
create unique index reports_one_per_reporter_idx
  on public.reports (reporter_id, target_type, coalesce(target_user_id, target_post_id, target_comment_id));
create index reports_reporter_idx on public.reports (reporter_id, created_at desc);
create index reports_user_idx on public.reports (target_user_id) where target_user_id is not null;
create index reports_post_idx on public.reports (target_post_id) where target_post_id is not null;
create index reports_comment_idx on public.reports (target_comment_id) where target_comment_id is not null;
create index reports_created_idx on public.reports (target_type, created_at desc, id desc);

comment on table public.reports is 'A user''s complaint about a user, post or comment. Seen by its reporter and admins.';
comment on column public.reports.reason is 'Why, 1 to 1000 characters.';

create type public.ban_element as enum ('user', 'post');
create type public.ban_action as enum ('ban', 'unban');

create table public.ban_history (
  id uuid primary key default gen_random_uuid(),
  element_type public.ban_element not null,
  -- No foreign key: the history outlives the element.
  element_id uuid not null,
  action public.ban_action not null,
  reason text not null default '' check (char_length(reason) <= 1000),
  admin_id uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now()
);
alter table public.ban_history enable row level security;
create index ban_history_element_idx on public.ban_history (element_id, created_at desc, id desc);
create index ban_history_admin_idx on public.ban_history (admin_id, created_at desc, id desc);

comment on table public.ban_history is 'Every ban and unban of a user or post: who, when, why. Admins only.';
comment on column public.ban_history.element_id is 'The user or post id; kept after the element is deleted.';
