-- audit_errors_by_file: one row per input file, stage and error type of the
-- selected run: how many records failed there, where the first one is, and
-- one message (which files, which stages, why).
with

errors as (
    select * from stg_errors
),

selected_run as (
    select * from int_selected_run
),

final as (
    select
        errors.warc_filename,
        errors.stage,
        errors.error_type,
        count(*) as errors,
        min(errors.warc_record_offset) as first_offset,
        min(errors.message) as example_message
    from errors
    inner join selected_run
        on errors.run_id = selected_run.run_id
    group by errors.warc_filename, errors.stage, errors.error_type
    order by errors.warc_filename, errors.stage, errors.error_type
)

select * from final
