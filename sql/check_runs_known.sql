-- check_runs_known: returns every run id that has records or errors but no
-- row in runs (a run that did not finish its accounting). Must return no rows.
with

runs as (
    select * from stg_runs
),

records as (
    select * from stg_records
),

errors as (
    select * from stg_errors
),

used_run_ids as (
    select distinct run_id from records
    union
    select distinct run_id from errors
),

final as (
    select used_run_ids.run_id
    from used_run_ids
    left join runs
        on used_run_ids.run_id = runs.run_id
    where runs.run_id is null
)

select * from final
