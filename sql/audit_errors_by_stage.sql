-- audit_errors_by_stage: one row per stage and error type of the selected
-- run, with one example locator.
with

errors as (
    select * from stg_errors
),

selected_run as (
    select * from int_selected_run
),

final as (
    select
        errors.stage,
        errors.error_type,
        count(*) as errors,
        min(errors.warc_filename) as example_warc_filename,
        min(errors.message) as example_message
    from errors
    inner join selected_run
        on errors.run_id = selected_run.run_id
    group by errors.stage, errors.error_type
    order by errors desc, errors.stage, errors.error_type
)

select * from final
