-- stg_errors: one row per record (or file) that failed a stage (errors table).
with

source as (
    select * from errors
),

final as (
    select
        run_id,
        warc_filename,
        warc_record_offset,
        warc_record_offset_in_member,
        record_id,
        stage,
        error_type,
        message,
        coalesce(is_partial, false) as is_partial
    from source
)

select * from final
