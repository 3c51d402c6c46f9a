-- audit_fffd_spikes: one row per host and fetch day of the selected run whose
-- share of pages with U+FFFD spiked against the host's own baseline (its
-- other days; when those hold too few pages, the other hosts of the run).
-- Spike: at least redecode_spike_min_records pages, a share of at least
-- redecode_spike_min_rate, and redecode_spike_ratio times the baseline.
with

host_days as (
    select * from int_host_days
),

selected_run as (
    select * from int_selected_run
),

run_host_days as (
    select host_days.*
    from host_days
    inner join selected_run
        on host_days.run_id = selected_run.run_id
),

host_totals as (
    select
        url_host_name,
        sum(records) as host_records,
        sum(fffd_records) as host_fffd_records
    from run_host_days
    group by url_host_name
),

run_totals as (
    select
        sum(records) as run_records,
        sum(fffd_records) as run_fffd_records
    from run_host_days
),

baseline_counts as (
    select
        run_host_days.*,
        host_totals.host_records - run_host_days.records
            as other_days_records,
        host_totals.host_fffd_records - run_host_days.fffd_records
            as other_days_fffd_records,
        run_totals.run_records - host_totals.host_records
            as other_hosts_records,
        run_totals.run_fffd_records - host_totals.host_fffd_records
            as other_hosts_fffd_records
    from run_host_days
    inner join host_totals
        on run_host_days.url_host_name = host_totals.url_host_name
    cross join run_totals
),

baselines as (
    select
        *,
        other_days_records >= redecode_spike_min_records()
            as has_own_baseline,
        case
            when other_days_records
                >= redecode_spike_min_records()
                then other_days_fffd_records / other_days_records
            else other_hosts_fffd_records / nullif(other_hosts_records, 0)
        end as baseline_rate
    from baseline_counts
),

spikes as (
    select
        run_id,
        url_host_name,
        fetch_day,
        records,
        fffd_records,
        replacement_chars,
        round(fffd_rate, 4) as fffd_rate,
        round(coalesce(baseline_rate, 0), 4) as baseline_rate,
        case
            when has_own_baseline then 'host-other-days'
            else 'other-hosts'
        end as baseline_kind
    from baselines
    where
        records >= redecode_spike_min_records()
        and fffd_rate >= redecode_spike_min_rate()
        and fffd_rate
        >= redecode_spike_ratio() * coalesce(baseline_rate, 0)
),

final as (
    select * from spikes
    order by fffd_rate desc, records desc, url_host_name, fetch_day
)

select * from final
