-- check_accounting_invariant: returns every run whose accounting does not
-- add up: seen = written + skipped + errors (records lost), and the written,
-- error and partial error counts equal the rows in records and errors. Must
-- return no rows.
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

record_rows as (
    select run_id, count(*) as record_rows
    from records
    group by run_id
),

error_rows as (
    select
        run_id,
        count(*) filter (where not is_partial) as error_rows,
        count(*) filter (where is_partial) as partial_error_rows
    from errors
    group by run_id
),

accounted as (
    select
        runs.run_id,
        runs.records_seen,
        runs.records_written,
        runs.records_skipped,
        runs.errors,
        runs.partial_errors,
        coalesce(record_rows.record_rows, 0) as record_rows,
        coalesce(error_rows.error_rows, 0) as error_rows,
        coalesce(error_rows.partial_error_rows, 0) as partial_error_rows,
        runs.invariant_ok
    from runs
    left join record_rows
        on runs.run_id = record_rows.run_id
    left join error_rows
        on runs.run_id = error_rows.run_id
),

final as (
    select * from accounted
    where
        records_seen <> records_written + records_skipped + errors
        or records_written <> record_rows
        or errors <> error_rows
        or partial_errors <> partial_error_rows
        or invariant_ok is distinct from true
)

select * from final
