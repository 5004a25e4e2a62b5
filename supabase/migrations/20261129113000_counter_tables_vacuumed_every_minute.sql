-- Issue 55: the tables holding counters are vacuumed once a minute while they have 100 dead versions. A hot row's
-- versions carry multixacts whose dead index entries no scan marks dead; only a vacuum removes them, and by default
-- none comes until a fifth of the table is dead (10_counters.sql says why, with the figures).
alter table public.posts set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 100);
alter table public.comments set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 100);
alter table public.profiles set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 100);
