-- audit_run_diff_summary: one row for the run pair (redecode_run_a ->
-- redecode_run_b): records in each, matched, and how many changed how.
with

records as (
    select * from stg_records
),

run_pair as (
    select * from int_run_pair
),

changes as (
    select * from audit_decision_changes
),

record_ids as (
    select
        records.record_id,
        bool_or(records.run_id = run_pair.run_a) as is_in_a,
        bool_or(records.run_id = run_pair.run_b) as is_in_b
    from records
    inner join run_pair
        on records.run_id in (run_pair.run_a, run_pair.run_b)
    group by records.record_id
),

presence as (
    select
        count(*) filter (where is_in_a) as records_a,
        count(*) filter (where is_in_b) as records_b,
        count(*) filter (where is_in_a and is_in_b) as matched,
        count(*) filter (where is_in_a and not is_in_b) as only_in_a,
        count(*) filter (where is_in_b and not is_in_a) as only_in_b
    from record_ids
),

change_counts as (
    select
        count(*) filter (where is_decision_changed) as decisions_changed,
        count(*) filter (where fffd_change = 'up') as fffd_up,
        count(*) filter (where fffd_change = 'down') as fffd_down,
        count(*) filter (where is_title_changed) as titles_changed,
        count(*) filter (where is_lang_changed) as langs_changed,
        count(*) filter (where is_text_length_changed)
            as text_lengths_changed,
        count(*) filter (where is_mojibake_changed) as mojibake_flags_changed
    from changes
),

final as (
    select
        run_pair.run_a,
        run_pair.run_b,
        presence.*,
        change_counts.*
    from run_pair
    cross join presence
    cross join change_counts
)

select * from final
