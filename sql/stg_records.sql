-- stg_records: one row per decoded HTTP response (records table), renamed and
-- typed for the audits; adds the per-record flags every audit shares.
with

source as (
    select * from records
),

renamed as (
    select
        run_id,
        record_id,
        warc_filename,
        warc_record_offset,
        warc_record_length,
        warc_record_offset_in_member,
        url,
        url_surtkey,
        url_host_name,
        url_host_tld,
        url_host_registered_domain,
        fetch_time,
        cast(fetch_time as date) as fetch_day,
        fetch_status,
        fetch_redirect,
        content_digest,
        content_mime_type,
        content_truncated,
        http_notes,
        http_charset,
        meta_charset,
        bom,
        encoding,
        encoding_source,
        encoding_browser,
        encoding_declared,
        encoding_bytes,
        encoding_bytes_evidence,
        encoding_bytes_weight,
        encoding_bytes_alike,
        encoding_confidence,
        encoding_signals,
        coalesce(declared_conflict, false) as has_declared_conflict,
        coalesce(replacement_chars, 0) as replacement_chars,
        coalesce(decode_errors, 0) as decode_errors,
        mojibake_score,
        coalesce(naive_decode_garbled, false) as is_naive_decode_garbled,
        coalesce(text_length, 0) as text_length,
        title,
        lang,
        main_text_length,
        links_count,
        links_dropped_by_kind,
        rules_version
    from source
),

flagged as (
    select
        *,
        replacement_chars > 0 as has_fffd,
        coalesce(
            mojibake_score > redecode_mojibake_threshold(),
            false
        ) as is_mojibake,
        coalesce(encoding_browser <> encoding, false) as is_browser_mismatch,
        coalesce(upper(encoding) <> 'UTF-8', false) as is_non_utf8
    from renamed
),

final as (
    select * from flagged
)

select * from final
