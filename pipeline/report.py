"""``redecode report``: one self-contained HTML file (inline SVG charts, no script, no network)
built from the audit views over an output directory."""

from __future__ import annotations

import html
from datetime import date
from pathlib import Path
from typing import Any

import duckdb

from pipeline import audit, suggest

#: Hosts drawn in the FFFD-over-time and mojibake charts (the worst ones).
TOP_HOSTS = 8
#: TLDs drawn in the encoding-mix chart (the ones with most pages; the table has them all).
TOP_TLDS = 12
#: Chart palette (colour-blind safe, Okabe-Ito).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")
WIDTH = 760
BAR_HEIGHT = 18
LABEL_WIDTH = 220

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 980px;
       color: #222; background: #fff; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 32px;
  border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; display: block;
        overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.fail { color: #b00020; font-weight: bold; } .ok { color: #1b5e20; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
"""


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return _esc(value)


def _legend(names: list[str]) -> str:
    spans = "".join(
        f'<span><i style="background:{PALETTE[index % len(PALETTE)]}"></i>{_esc(name)}</span>'
        for index, name in enumerate(names)
    )
    return f'<div class="legend">{spans}</div>'


def bar_chart(labels: list[str], series: dict[str, list[float]], *, percent: bool = False) -> str:
    """Grouped horizontal bars: one group per label, one bar per series, as inline SVG."""
    if not labels:
        return "<p>No rows.</p>"
    names = list(series)
    peak = max((value for values in series.values() for value in values), default=0) or 1
    group = BAR_HEIGHT * len(names) + 8
    height = group * len(labels) + 10
    plot = WIDTH - LABEL_WIDTH - 70
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
             f'role="img">']
    for row, label in enumerate(labels):
        top = row * group + 4
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{top + group / 2}" text-anchor="end" '
                     f'dominant-baseline="middle">{_esc(label)[:40]}</text>')
        for index, name in enumerate(names):
            value = series[name][row]
            width = max(1.0, plot * value / peak) if value else 0
            y = top + index * BAR_HEIGHT
            shown = f"{value:.1%}" if percent else f"{value:g}"
            parts.append(
                f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" height="{BAR_HEIGHT - 3}" '
                f'fill="{PALETTE[index % len(PALETTE)]}"><title>{_esc(label)} {_esc(name)}: '
                f"{shown}</title></rect>"
                f'<text x="{LABEL_WIDTH + width + 4:.1f}" y="{y + BAR_HEIGHT / 2}" '
                f'dominant-baseline="middle">{shown}</text>'
            )
    parts.append("</svg>")
    return (_legend(names) if len(names) > 1 else "") + "".join(parts)


def line_chart(
    series: dict[str, list[tuple[Any, float]]],
    *,
    percent: bool = True,
    x_order: list[Any] | None = None,
) -> str:
    """One line (with dots) per series over shared x values, inline SVG.

    x values are sorted (dates by date) unless ``x_order`` gives their order (run ids).
    """
    seen = {x for points in series.values() for x, _ in points}
    xs = ([x for x in x_order if x in seen] if x_order is not None
          else sorted(seen, key=_sort_key))
    if not xs:
        return "<p>No rows.</p>"
    height, left, right, top, bottom = 260, 60, 60, 14, 40
    peak = max((y for points in series.values() for _, y in points), default=0) or 1
    plot_w, plot_h = WIDTH - left - right, height - top - bottom

    def x_at(x: Any) -> float:
        return left + (plot_w * xs.index(x) / (len(xs) - 1) if len(xs) > 1 else plot_w / 2)

    def y_at(y: float) -> float:
        return top + plot_h * (1 - y / peak)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
             f'role="img">',
             f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
             f'stroke="#888"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#888"/>']
    for fraction in (0, 0.5, 1):
        value = peak * fraction
        label = f"{value:.0%}" if percent else f"{value:g}"
        parts.append(f'<text x="{left - 6}" y="{y_at(value):.1f}" text-anchor="end" '
                     f'dominant-baseline="middle">{label}</text>')
    step = max(1, len(xs) // 8)
    for x in xs[::step]:
        parts.append(f'<text x="{x_at(x):.1f}" y="{top + plot_h + 16}" text-anchor="middle">'
                     f"{_esc(x)}</text>")
    for index, (name, points) in enumerate(series.items()):
        colour = PALETTE[index % len(PALETTE)]
        ordered = sorted(points, key=lambda point: xs.index(point[0]))
        path = " ".join(f"{x_at(x):.1f},{y_at(y):.1f}" for x, y in ordered)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                     f'stroke-width="2"/>')
        for x, y in ordered:
            parts.append(f'<circle cx="{x_at(x):.1f}" cy="{y_at(y):.1f}" r="3.5" '
                         f'fill="{colour}"><title>{_esc(name)} {_esc(x)}: {y:.1%}</title>'
                         f"</circle>")
    parts.append("</svg>")
    return _legend(list(series)) + "".join(parts)


def _sort_key(value: Any) -> tuple[int, str]:
    return (0, value.isoformat()) if isinstance(value, date) else (1, str(value))


def html_table(result: audit.QueryResult, limit: int = 15) -> str:
    """The first ``limit`` rows of a query as an HTML table."""
    if not result.rows:
        return "<p>No rows.</p>"
    head = "".join(f"<th>{_esc(column)}</th>" for column in result.columns)
    body = "".join(
        "<tr>" + "".join(
            f'<td class="num">{_fmt(value)}</td>' if isinstance(value, int | float)
            else f"<td>{_fmt(value)}</td>" for value in row
        ) + "</tr>"
        for row in result.rows[:limit]
    )
    more = f"<p>{len(result.rows) - limit} more rows.</p>" if len(result.rows) > limit else ""
    return f"<table><tr>{head}</tr>{body}</table>{more}"


def _narrow(result: audit.QueryResult) -> audit.QueryResult:
    """The decision-change columns worth a table row in the report."""
    keep = ["url", "encoding_a", "encoding_b", "source_a", "source_b", "fffd_a", "fffd_b",
            "fffd_change"]
    indexes = [result.columns.index(name) for name in keep]
    return audit.QueryResult(result.name, keep,
                             [tuple(row[index] for index in indexes) for row in result.rows])


def _section(title: str, blurb: str, *content: str) -> str:
    return f"<section><h2>{_esc(title)}</h2><p>{_esc(blurb)}</p>{''.join(content)}</section>"


def gates_table(verdict: audit.Verdict) -> str:
    """Every gate value of the run, each asked gate and check marked pass or fail."""
    rows = []
    for name, value, asked, passed in verdict.gate_rows():
        mark = "<td>not gated</td>" if passed is None else _mark(passed)
        rows.append(f"<tr><td>{_esc(name)}</td><td class='num'>{_fmt(value)}</td>"
                    f"<td>{_esc(', '.join(asked))}</td>{mark}</tr>")
    for name, result in verdict.checks.items():
        rows.append(f"<tr><td>{_esc(name)}</td><td class='num'>{len(result.rows)}</td>"
                    f"<td>check: no rows</td>{_mark(not result.rows)}</tr>")
    head = "<tr><th>gate</th><th>value</th><th>fail-on</th><th>result</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _mark(passed: bool) -> str:
    return ('<td class="ok">&#10003; pass</td>' if passed
            else '<td class="fail">&#10007; FAILED</td>')


def _unreadable(parts: audit.Parts) -> str:
    if not parts.unreadable:
        return ""
    rows = "".join(f"<tr><td>{_esc(item.path)}</td><td>{_esc(item.run_id)}</td>"
                   f"<td>{_esc(item.reason)}</td></tr>" for item in parts.unreadable)
    return _section("Parts left out", "Partition folders and part files that could not be "
                    "read; every figure above is computed without them.",
                    f"<table><tr><th>path</th><th>run</th><th>reason</th></tr>{rows}</table>")


def render(
    out: audit.Parts | Path | str, run: str | None = None, verdict: audit.Verdict | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
) -> str:
    """The whole report for the run ``run`` (default: the newest) of ``out``, as HTML;
    ``verdict`` (from :func:`pipeline.audit.evaluate` on that run) marks its gates. ``con``
    (:func:`pipeline.audit.connect` over ``out`` with that run) saves reading the parts
    again; its run variables are changed."""
    parts = out if isinstance(out, audit.Parts) else audit.find_parts(out)
    con = con or audit.connect(parts, run=run)
    verdict = verdict or audit.evaluate(con)
    gates = verdict.values
    runs = audit.run_ids(con)
    mix = audit.query(con, "audit_encoding_mix_by_tld")
    sources = audit.query(con, "audit_decision_sources")
    host_days = audit.query(con, "audit_fffd_by_host_day").as_dicts()
    mojibake_hosts = audit.query(con, "audit_mojibake_by_host")
    spikes = audit.query(con, "audit_fffd_spikes")

    tlds = mix.as_dicts()[:TOP_TLDS]
    mix_chart = bar_chart(
        [row["url_host_tld"] for row in tlds],
        {"pages": [row["pages"] for row in tlds],
         "non-UTF-8": [row["non_utf8_pages"] for row in tlds],
         "garbled by requests": [row["naive_garbled_pages"] for row in tlds]},
    )
    by_source: dict[str, int] = {}
    for row in sources.as_dicts():
        by_source[row["encoding_source"]] = by_source.get(row["encoding_source"], 0) + row["pages"]
    sources_chart = bar_chart(list(by_source), {"pages": list(by_source.values())})

    run_days = [row for row in host_days if row["run_id"] == gates["run_id"]]
    fffd_by_host: dict[str, int] = {}
    for row in run_days:
        fffd_by_host[row["url_host_name"]] = (fffd_by_host.get(row["url_host_name"], 0)
                                              + row["fffd_records"])
    worst = sorted((host for host, count in fffd_by_host.items() if count),
                   key=lambda host: (-fffd_by_host[host], host))[:TOP_HOSTS]
    fffd_chart = line_chart({
        host: [(row["fetch_day"], row["fffd_rate"]) for row in run_days
               if row["url_host_name"] == host]
        for host in worst
    }) if worst else "<p>No page of this run has U+FFFD.</p>"
    top_mojibake = [row for row in mojibake_hosts.as_dicts() if row["mojibake_records"]]
    top_mojibake = top_mojibake[:TOP_HOSTS]
    mojibake_chart = bar_chart(
        [row["url_host_name"] for row in top_mojibake],
        {"mojibake": [row["mojibake_rate"] for row in top_mojibake]},
        percent=True,
    ) if top_mojibake else "<p>No page of this run is flagged as mojibake.</p>"

    per_run: dict[str, list[tuple[Any, float]]] = {"mojibake_rate": [], "fffd_rate": [],
                                                   "browser_mismatch_rate": []}
    for run_id in reversed(runs):
        con.execute("set variable redecode_run = ?", [run_id])
        row = audit.query(con, "audit_gates").as_dicts()[0]
        for name, points in per_run.items():
            points.append((run_id, row[name]))
    con.execute("set variable redecode_run = ?", [gates["run_id"]])  # the report's run again
    change = ["<p>Only one run: nothing to compare yet.</p>"]
    if len(runs) >= 2:
        con.execute("set variable redecode_run_a = ?", [runs[1]])
        con.execute("set variable redecode_run_b = ?", [runs[0]])
        summary = audit.query(con, "audit_run_diff_summary")
        row = summary.as_dicts()[0]
        counted = ["decisions_changed", "fffd_up", "fffd_down", "titles_changed",
                   "langs_changed", "text_lengths_changed", "mojibake_flags_changed"]
        change = [f"<p>{_esc(row['run_a'])} → {_esc(row['run_b'])}</p>",
                  bar_chart(counted, {"records": [row[name] for name in counted]}),
                  html_table(_narrow(audit.query(con, "audit_decision_changes")), limit=10)]

    by_stage = audit.query(con, "audit_errors_by_stage")
    by_file = audit.query(con, "audit_errors_by_file")
    failures = [str(gate) for gate in verdict.failed_gates] + verdict.failed_checks
    verdict_line = ("" if not (verdict.gates or verdict.checks) else
                    '<p class="ok">Every gate and check passed.</p>' if verdict.passed else
                    f'<p class="fail">FAILED: {_esc(", ".join(failures))}</p>')
    body = [
        f"<h1>redecode report — run {_esc(gates['run_id'])}</h1>",
        f"<p>{_esc(parts.out)} · {len(runs)} run(s) · {gates['records']} records</p>",
        _section("Gates", "The run's gate values; gates given with --fail-on and checks "
                 "given with --check are marked.", verdict_line, gates_table(verdict)),
        _section("Errors", "Records (or whole files) that failed a stage: which files, which "
                 "stages, why.", "<h3>By file</h3>", html_table(by_file, limit=50),
                 "<h3>By stage</h3>", html_table(by_stage)),
        _section("Encoding mix per TLD", "Pages, pages not in UTF-8, and pages that "
                 "requests' .text would have garbled (header charset, else ISO-8859-1).",
                 mix_chart, html_table(mix)),
        _section("Decision sources", "Which step of the encoding decision decided.",
                 sources_chart, html_table(sources)),
        _section("U+FFFD rate per host over time", "Share of pages with replacement "
                 "characters per fetch day, worst hosts.", fffd_chart,
                 "<h3>Spikes against the host's baseline</h3>", html_table(spikes)),
        _section("Top mojibake hosts", "Share of pages whose text looks decoded with the "
                 "wrong encoding.", mojibake_chart, html_table(mojibake_hosts)),
        _section("Rules the evidence supports", "What `redecode suggest-rules` would propose "
                 "for this run (its own rules current): hosts whose declarations their bytes "
                 "contradict, or that declare nothing and whose pages agree.",
                 html_table(audit.QueryResult(
                     "proposed_rules", *suggest.proposals_table(
                         verdict.suggestion or suggest.for_selected_run(con))), limit=50)),
        _section("Run-to-run change", "What changed between the two newest runs, and the "
                 "rates per run.", *change, "<h3>Rates per run, oldest first</h3>",
                 line_chart(per_run, x_order=list(reversed(runs)))),
        _unreadable(parts),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>redecode report {_esc(gates['run_id'])}</title>"
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )


def write_report(
    out: audit.Parts | Path | str, output: Path, run: str | None = None,
    verdict: audit.Verdict | None = None, con: duckdb.DuckDBPyConnection | None = None,
) -> Path:
    """Render the report (:func:`render`) and write it to ``output`` (UTF-8)."""
    text = render(out, run, verdict, con)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    return output
