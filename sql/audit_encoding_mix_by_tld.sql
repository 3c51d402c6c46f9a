-- audit_encoding_mix_by_tld: one row per TLD of the selected run: pages,
-- pages not in UTF-8, pages a naive decode garbles (the survey's table).
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

by_tld as (
    select
        coalesce(url_host_tld, '(none)') as url_host_tld,
        count(*) as pages,
        count(*) filter (where is_non_utf8) as non_utf8_pages,
        count(*) filter (where is_naive_decode_garbled)
            as naive_garbled_pages,
        count(*) filter (where is_browser_mismatch) as browser_mismatch_pages,
        count(*) filter (where is_mojibake) as mojibake_pages
    from run_records
    group by 1
),

final as (
    select
        *,
        round(non_utf8_pages / pages, 4) as non_utf8_rate,
        round(naive_garbled_pages / pages, 4) as naive_garbled_rate
    from by_tld
    order by pages desc, url_host_tld
)

select * from final
