-- audit_http_notes: one row per HTTP note of the selected run (what parsing
-- noticed about a stored response's framing: lines ended by LF alone, a body
-- stored de-chunked under a chunked header, a coding header over a plain
-- body, ...): how many pages and files carry it, and one example.
with

records as (
    select * from stg_records
),

selected_run as (
    select * from int_selected_run
),

noted as (
    select
        records.warc_filename,
        records.url,
        unnest(string_split(records.http_notes, ',')) as http_note
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
    where records.http_notes is not null
),

final as (
    select
        http_note,
        count(*) as pages,
        count(distinct warc_filename) as files,
        min(url) as example_url
    from noted
    group by http_note
    order by pages desc, http_note
)

select * from final
