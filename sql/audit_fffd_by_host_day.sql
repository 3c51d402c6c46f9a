-- audit_fffd_by_host_day: one row per run, host and fetch day: the share of
-- pages with U+FFFD over time (all runs; the report charts it).
with

host_days as (
    select * from int_host_days
),

final as (
    select
        run_id,
        url_host_name,
        fetch_day,
        records,
        fffd_records,
        replacement_chars,
        round(fffd_rate, 4) as fffd_rate
    from host_days
    order by run_id, url_host_name, fetch_day
)

select * from final
