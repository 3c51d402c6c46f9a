-- audit_mojibake_by_host: one row per host of the selected run with pages
-- flagged as mojibake, U+FFFD or garbled by a naive decode, worst first.
with

records as (
    select * from stg_records
),

selected_run as (
    select * from int_selected_run
),

run_records as (
    select records.*
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
),

by_host as (
    select
        url_host_name,
        count(*) as records,
        count(*) filter (where is_mojibake) as mojibake_records,
        count(*) filter (where has_fffd) as fffd_records,
        count(*) filter (where is_naive_decode_garbled)
            as naive_garbled_records,
        round(max(mojibake_score), 4) as max_mojibake_score
    from run_records
    group by url_host_name
),

final as (
    select
        *,
        round(mojibake_records / records, 4) as mojibake_rate
    from by_host
    where
        mojibake_records > 0
        or fffd_records > 0
        or naive_garbled_records > 0
    order by mojibake_records desc, fffd_records desc, url_host_name
)

select * from final
