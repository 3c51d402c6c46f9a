-- check_record_key_unique: returns every (run_id, record_id) that occurs more
-- than once in records. Must return no rows.
with

records as (
    select * from stg_records
),

final as (
    select
        run_id,
        record_id,
        count(*) as occurrences
    from records
    group by run_id, record_id
    having count(*) > 1
)

select * from final
