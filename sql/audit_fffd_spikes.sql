-- audit_fffd_spikes: one row per host and fetch day of the selected run whose
-- share of pages with U+FFFD spiked against the host's own baseline: its other
-- days in the selected run and its earlier nights in the other runs of the
-- folder (each host and day counted once: the selected run's figures, else the
-- newest run's that holds that day); when those hold too few pages, the other
-- hosts of the selected run.
-- Spike: at least redecode_spike_min_records pages, a share of at least
-- redecode_spike_min_rate, and redecode_spike_ratio times the baseline.
with

host_days as (
    select * from int_host_days
),

run_order as (
    select * from int_run_order
),

selected_run as (
    select * from int_selected_run
),

ranked_host_days as (
    select
        host_days.*,
        run_order.run_rank,
        host_days.run_id = selected_run.run_id as is_selected
    from host_days
    inner join run_order
        on host_days.run_id = run_order.run_id
    cross join selected_run
),

nights as (
    select *
    from ranked_host_days
    qualify row_number() over (
        partition by url_host_name, fetch_day
        order by is_selected desc, run_rank asc
    ) = 1
),

run_host_days as (
    select * from ranked_host_days
    where is_selected
),

own_baselines as (
    select
        run_host_days.url_host_name,
        run_host_days.fetch_day,
        sum(nights.records) as other_days_records,
        sum(nights.fffd_records) as other_days_fffd_records,
        count(distinct nights.run_id) filter (where not nights.is_selected)
            as earlier_runs
    from run_host_days
    inner join nights
        on
            run_host_days.url_host_name = nights.url_host_name
            and run_host_days.fetch_day != nights.fetch_day
            and (
                nights.is_selected
                or nights.fetch_day < run_host_days.fetch_day
            )
    group by run_host_days.url_host_name, run_host_days.fetch_day
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
        coalesce(own_baselines.other_days_records, 0) as other_days_records,
        coalesce(own_baselines.other_days_fffd_records, 0)
            as other_days_fffd_records,
        coalesce(own_baselines.earlier_runs, 0) as earlier_runs,
        run_totals.run_records - host_totals.host_records
            as other_hosts_records,
        run_totals.run_fffd_records - host_totals.host_fffd_records
            as other_hosts_fffd_records
    from run_host_days
    inner join host_totals
        on run_host_days.url_host_name = host_totals.url_host_name
    left join own_baselines
        on
            run_host_days.url_host_name = own_baselines.url_host_name
            and run_host_days.fetch_day = own_baselines.fetch_day
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
            when has_own_baseline and earlier_runs > 0
                then 'host-earlier-nights'
            when has_own_baseline then 'host-other-days'
            else 'other-hosts'
        end as baseline_kind,
        case when has_own_baseline then earlier_runs else 0 end
            as baseline_runs
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
