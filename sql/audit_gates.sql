-- audit_gates: one row for the selected run with every number a CI gate can
-- test (`redecode audit --fail-on "name>value"`).
with

records as (
    select * from stg_records
),

errors as (
    select * from stg_errors
),

spikes as (
    select * from audit_fffd_spikes
),

selected_run as (
    select * from int_selected_run
),

duplicate_ids as (
    select * from audit_duplicate_record_ids
),

record_counts as (
    select
        count(*) as records,
        count(*) filter (where records.is_mojibake) as mojibake_records,
        count(*) filter (where records.has_fffd) as fffd_records,
        count(*) filter (where records.is_browser_mismatch)
            as browser_mismatch_records,
        count(*) filter (where records.is_naive_decode_garbled)
            as naive_garbled_records,
        count(*) filter (where records.has_declared_conflict)
            as declared_conflict_records
    from records
    inner join selected_run
        on records.run_id = selected_run.run_id
),

error_counts as (
    select count(*) as errors
    from errors
    inner join selected_run
        on errors.run_id = selected_run.run_id
),

spike_counts as (
    select count(distinct url_host_name) as fffd_spike_hosts
    from spikes
),

duplicate_counts as (
    select count(*) as duplicate_record_ids
    from duplicate_ids
),

final as (
    select
        (select run_id from selected_run) as run_id,
        record_counts.records,
        spike_counts.fffd_spike_hosts,
        coalesce(
            record_counts.mojibake_records / nullif(record_counts.records, 0), 0
        ) as mojibake_rate,
        error_counts.errors,
        coalesce(
            record_counts.browser_mismatch_records
            / nullif(record_counts.records, 0),
            0
        ) as browser_mismatch_rate,
        coalesce(
            record_counts.fffd_records / nullif(record_counts.records, 0), 0
        ) as fffd_rate,
        coalesce(
            record_counts.naive_garbled_records
            / nullif(record_counts.records, 0),
            0
        ) as naive_garbled_rate,
        record_counts.declared_conflict_records as declared_conflicts,
        duplicate_counts.duplicate_record_ids
    from record_counts
    cross join error_counts
    cross join spike_counts
    cross join duplicate_counts
)

select * from final
