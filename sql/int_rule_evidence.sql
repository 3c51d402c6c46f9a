-- int_rule_evidence: one row per decoded record of the selected run, with
-- the evidence `redecode suggest-rules` pools per host and URL prefix: the
-- page's own declaration, what its bytes alone decode as, on what evidence
-- and how much of it, and what the run decided. Grain: record.
with

records as (
    select * from stg_records
),

selected_run as (
    select run_id from int_selected_run
),

final as (
    select
        records.record_id,
        records.url,
        records.url_host_name as host,
        -- scheme, host and first path segment ("http://h/ja/"); '' for none
        regexp_extract(
            records.url,
            '^([A-Za-z][A-Za-z0-9+.-]*://[^/?#]*/[^/?#]+/)',
            1
        ) as url_prefix,
        records.bom,
        records.encoding_declared,
        records.encoding_bytes,
        records.encoding_bytes_evidence,
        records.encoding_bytes_weight,
        records.encoding_bytes_alike,
        records.encoding,
        records.encoding_source
    from records
    inner join selected_run on records.run_id = selected_run.run_id
)

select * from final
