-- audit_mojibake_candidates: one row per record of the selected run whose
-- mojibake_score is above the threshold (redecode_mojibake_threshold, set
-- from pipeline.encoding.mojibake.MOJIBAKE_THRESHOLD), worst first.
with

records as (
    select * from stg_records
),

selected_run as (
    select * from int_selected_run
),

candidates as (
    select
        records.run_id,
        records.record_id,
        records.url,
        records.url_host_name,
        records.encoding,
        records.encoding_source,
        records.encoding_browser,
        records.http_charset,
        records.meta_charset,
        round(records.mojibake_score, 4) as mojibake_score,
        records.replacement_chars,
        records.title
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
    where records.is_mojibake
),

final as (
    select * from candidates
    order by mojibake_score desc, url
)

select * from final
