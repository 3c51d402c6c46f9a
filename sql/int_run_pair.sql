-- int_run_pair: the two runs a diff compares: redecode_run_a and
-- redecode_run_b when set, else the second newest (a) and the newest (b).
with

run_order as (
    select * from int_run_order
),

final as (
    select
        coalesce(
            getvariable('redecode_run_a'),
            (select run_id from run_order where run_rank = 2)
        ) as run_a,
        coalesce(
            getvariable('redecode_run_b'),
            (select run_id from run_order where run_rank = 1)
        ) as run_b
)

select * from final
