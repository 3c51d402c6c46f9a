-- audit_links_by_kind: one row per link kind and tag of the selected run: how
-- many links, to how many distinct targets, how many internal, and the links
-- the per-kind limits left out (records' links_dropped_by_kind).
with

links as (
    select * from stg_links
),

records as (
    select * from stg_records
),

selected_run as (
    select * from int_selected_run
),

kept as (
    select
        links.kind,
        links.tag,
        count(*) as links,
        count(distinct links.target_url) as distinct_targets,
        count(*) filter (where links.is_internal) as internal_links
    from links
    inner join selected_run
        on links.run_id = selected_run.run_id
    group by links.kind, links.tag
),

dropped as (
    select
        dropped_kind.key as kind,
        sum(cast(dropped_kind.value as bigint)) as dropped_links
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
    cross join json_each(records.links_dropped_by_kind) as dropped_kind
    where records.links_dropped_by_kind is not null
    group by dropped_kind.key
),

final as (
    select
        kept.kind,
        kept.tag,
        kept.links,
        kept.distinct_targets,
        kept.internal_links,
        coalesce(dropped.dropped_links, 0) as dropped_links_of_kind
    from kept
    left join dropped
        on kept.kind = dropped.kind
    order by kept.kind, kept.links desc, kept.tag
)

select * from final
