-- audit_decision_sources: one row per decision step and encoding of the
-- selected run: which step decided how many pages.
with

records as (
    select * from stg_records
),

selected_run as (
    select * from int_selected_run
),

final as (
    select
        records.encoding_source,
        records.encoding,
        count(*) as pages,
        count(*) filter (where records.has_fffd) as fffd_pages,
        count(*) filter (where records.is_browser_mismatch)
            as browser_mismatch_pages
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
    group by records.encoding_source, records.encoding
    order by pages desc, records.encoding_source, records.encoding
)

select * from final
