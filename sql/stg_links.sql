-- stg_links: one row per link found in a decoded record (links table).
with

source as (
    select * from links
),

final as (
    select
        run_id,
        record_id,
        url,
        target_url,
        anchor_text,
        rel,
        tag,
        attr,
        kind,
        coalesce(internal, false) as is_internal,
        coalesce(nofollow, false) as is_nofollow
    from source
)

select * from final
