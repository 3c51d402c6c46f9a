-- stg_runs: one row per run (runs table).
with

source as (
    select * from runs
),

final as (
    select
        run_id,
        started_at,
        finished_at,
        pipeline_version,
        rules_version,
        rules_sha256,
        policy,
        files,
        coalesce(records_seen, 0) as records_seen,
        coalesce(records_written, 0) as records_written,
        coalesce(records_skipped, 0) as records_skipped,
        skipped_by_reason,
        coalesce(errors, 0) as errors,
        coalesce(partial_errors, 0) as partial_errors,
        links_written,
        seconds,
        invariant_ok
    from source
)

select * from final
