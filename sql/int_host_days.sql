-- int_host_days: one row per run, host and fetch day: pages, pages with
-- U+FFFD, replacement and mojibake counts.
with

records as (
    select * from stg_records
),

final as (
    select
        run_id,
        url_host_name,
        fetch_day,
        count(*) as records,
        count(*) filter (where has_fffd) as fffd_records,
        sum(replacement_chars) as replacement_chars,
        sum(text_length) as text_length,
        count(*) filter (where is_mojibake) as mojibake_records,
        count(*) filter (where is_naive_decode_garbled)
            as naive_garbled_records,
        count(*) filter (where has_fffd) / count(*) as fffd_rate
    from records
    group by run_id, url_host_name, fetch_day
)

select * from final
