-- check_record_key_unique: returns every record locator (run_id,
-- warc_filename, warc_record_offset, warc_record_offset_in_member) that
-- occurs more than once in records: one archive record written twice. Must
-- return no rows. (Record ids that repeat are real in crawls:
-- audit_duplicate_record_ids reports them.)
with

records as (
    select * from stg_records
),

final as (
    select
        run_id,
        warc_filename,
        warc_record_offset,
        warc_record_offset_in_member,
        count(*) as occurrences
    from records
    group by
        run_id,
        warc_filename,
        warc_record_offset,
        warc_record_offset_in_member
    having count(*) > 1
)

select * from final
