-- audit_header_meta_conflicts: one row per record of the selected run whose
-- HTTP charset and in-document charset name different encodings.
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
        records.http_charset,
        records.meta_charset,
        records.encoding,
        records.encoding_source,
        records.encoding_browser,
        records.replacement_chars,
        round(records.mojibake_score, 4) as mojibake_score
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
    where records.has_declared_conflict
    order by records.url_host_name, records.url
)

select * from final
