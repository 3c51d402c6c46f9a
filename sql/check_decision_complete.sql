-- check_decision_complete: returns every record missing a part of its
-- encoding decision. Must return no rows.
with

records as (
    select * from stg_records
),

final as (
    select
        run_id,
        record_id,
        url,
        encoding,
        encoding_source,
        encoding_browser,
        encoding_confidence
    from records
    where
        record_id is null
        or encoding is null
        or encoding_source is null
        or encoding_browser is null
        or encoding_confidence is null
)

select * from final
