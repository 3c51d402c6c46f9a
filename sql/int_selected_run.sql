-- int_selected_run: the one run the audits look at: the variable
-- redecode_run when set, else the newest run.
with

run_order as (
    select * from int_run_order
),

newest as (
    select run_id from run_order where run_rank = 1
),

final as (
    select
        coalesce(
            getvariable('redecode_run'),
            (select run_id from newest)
        ) as run_id
)

select * from final
