-- int_run_order: one row per run id seen in runs or records, numbered from
-- the newest (run_rank = 1) by start time, then by id.
with

runs as (
    select * from stg_runs
),

records as (
    select * from stg_records
),

run_ids as (
    select run_id, started_at from runs
    union
    select distinct run_id, cast(null as timestamptz) as started_at
    from records
    where run_id not in (select run_id from runs)
),

final as (
    select
        run_id,
        started_at,
        row_number() over (
            order by started_at desc nulls last, run_id desc
        ) as run_rank
    from run_ids
)

select * from final
