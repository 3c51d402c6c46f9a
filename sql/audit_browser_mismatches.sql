-- audit_browser_mismatches: one row per record of the selected run where the
-- browser's encoding differs from the chosen one: what real visitors saw
-- broken.
with

records as (
    select * from stg_records
),

selected_run as (
    select * from int_selected_run
),

final as (
    select
        records.run_id,
        records.record_id,
        records.url,
        records.url_host_name,
        records.encoding_browser,
        records.encoding,
        records.encoding_source,
        records.http_charset,
        records.meta_charset,
        records.title
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
    where records.is_browser_mismatch
    order by records.url_host_name, records.url
)

select * from final
