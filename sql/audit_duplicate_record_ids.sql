-- audit_duplicate_record_ids: one row per record id that more than one
-- record of the selected run carries (a crawler that reused an id, or the
-- same records in two archives), with the files that hold them.
with

records as (
    select * from stg_records
),

selected_run as (
    select * from int_selected_run
),

final as (
    select
        records.record_id,
        count(*) as records,
        count(distinct records.warc_filename) as files,
        string_agg(
            distinct records.warc_filename, ', ' order by records.warc_filename
        ) as warc_filenames
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
    group by records.record_id
    having count(*) > 1
    order by records desc, files desc, records.record_id
)

select * from final
