-- audit_decision_changes: one row per record present in both runs of the
-- pair (redecode_run_a -> redecode_run_b) whose decision, U+FFFD count or
-- extracted fields changed. Records are matched by record_id.
with

records as (
    select * from stg_records
),

run_pair as (
    select * from int_run_pair
),

run_a as (
    select records.*
    from records
    inner join run_pair
        on records.run_id = run_pair.run_a
),

run_b as (
    select records.*
    from records
    inner join run_pair
        on records.run_id = run_pair.run_b
),

compared as (
    select
        run_b.record_id,
        run_b.url,
        run_b.url_host_name,
        run_a.encoding as encoding_a,
        run_b.encoding as encoding_b,
        run_a.encoding_source as source_a,
        run_b.encoding_source as source_b,
        run_a.replacement_chars as fffd_a,
        run_b.replacement_chars as fffd_b,
        run_a.encoding is distinct from run_b.encoding
        or run_a.encoding_source is distinct from run_b.encoding_source
            as is_decision_changed,
        run_a.title is distinct from run_b.title as is_title_changed,
        run_a.lang is distinct from run_b.lang as is_lang_changed,
        run_a.text_length is distinct from run_b.text_length
            as is_text_length_changed,
        run_a.is_mojibake is distinct from run_b.is_mojibake
            as is_mojibake_changed,
        run_a.title as title_a,
        run_b.title as title_b
    from run_a
    inner join run_b
        on run_a.record_id = run_b.record_id
),

final as (
    select
        *,
        case
            when fffd_b > fffd_a then 'up'
            when fffd_b < fffd_a then 'down'
            else 'same'
        end as fffd_change
    from compared
    where
        is_decision_changed
        or fffd_a <> fffd_b
        or is_title_changed
        or is_lang_changed
        or is_text_length_changed
        or is_mojibake_changed
    order by is_decision_changed desc, url_host_name, url
)

select * from final
