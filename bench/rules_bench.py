"""Rules learned from a crawl (``redecode suggest-rules``), judged against the truth.

A crawl of many hosts (``tests/host_crawl.py``: each host serves one encoding and declares
it, lies with ``charset=iso-8859-1`` or declares nothing; half its pages long, half a title
and a few words) is decoded under ``--policy standard``; ``suggest-rules --holdout 0.5``
learns on half of each host's pages; the crawl is decoded again with the learned rules, and
the held-out half is scored: a page is right when its text under the chosen encoding equals
its text under the true one.

``python -m bench.rules_bench [--seed N] [--half fit|report]``: the constants of
``pipeline.suggest`` were fitted on ``--seed 1 --half fit``; ``make bench`` reports
``--seed 2 --half report`` (other hosts, other sentences).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from tests.host_crawl import Page, crawl_pages, decoded_right, write_crawl

HOLDOUT = 0.5


@dataclass(frozen=True)
class Scores:
    """One run's decisions on the held-out pages."""

    name: str
    right: int
    pages: int

    @property
    def share(self) -> float:
        return self.right / self.pages if self.pages else 0.0


def _decisions(out: Path, run_id: str) -> dict[str, tuple[str, str, str]]:
    """url -> (record id, encoding, encoding_source) of a run."""
    import duckdb

    rows = duckdb.sql(
        f"select url, record_id, encoding, encoding_source from read_parquet("
        f"'{out}/records/run_id={run_id}/*.parquet')").fetchall()
    return {url: (record_id, encoding, source) for url, record_id, encoding, source in rows}


def _run(crawl: Path, out: Path, run_id: str, rules_text: str | None, policy: str) -> None:
    from pipeline.rules import load_rules
    from pipeline.runners.local import run

    rules = load_rules("rules", raw=rules_text.encode(), policy=policy) if rules_text else \
        load_rules(policy=policy)
    summary = run([str(crawl)], out, rules, workers=1, run_id=run_id)
    assert summary.invariant_ok, summary.problems


def evaluate(seed: int, half: str | None, work: Path, *, pages_per_host: int = 20) -> dict:
    """Decode the crawl of ``seed`` three ways and score the held-out pages."""
    from pipeline import audit, suggest

    pages: list[Page] = crawl_pages(seed, half=half, pages_per_host=pages_per_host)  # type: ignore[arg-type]
    crawl = work / "crawl.warc.gz"
    write_crawl(crawl, pages, seed=seed)
    out = work / "out"
    _run(crawl, out, "standard", None, "standard")
    _run(crawl, out, "repair", None, "repair")
    con = audit.connect(out, run="standard")
    found = suggest.propose(suggest.gather(con, (), HOLDOUT), holdout=HOLDOUT, run_id="standard")
    rules_text = suggest.to_toml(found)
    _run(crawl, out, "learned", rules_text, "standard")
    _run(crawl, out, "learned-repair", rules_text, "repair")
    by_url = {page.url: page for page in pages}
    runs = {name: _decisions(out, name) for name in ("standard", "repair", "learned", "learned-repair")}
    held_ids = suggest.held_out_records(con, HOLDOUT)
    held = [url for url, (rid, _, _) in runs["standard"].items() if rid in held_ids]
    right = {name: {url for url in held
                    if decoded_right(by_url[url].body, decisions[url][1], by_url[url].truth)}
             for name, decisions in runs.items()}
    # a host needs a rule when one of its pages is wrong under the standard policy
    wrong_hosts = {by_url[url].host for url, (_, encoding, _) in runs["standard"].items()
                   if not decoded_right(by_url[url].body, encoding, by_url[url].truth)}
    ruled: dict[str, list[str]] = defaultdict(list)
    for proposal in found.proposals:
        o = proposal.override
        host = o.host or (o.url_prefix or "").split("/")[2]
        ruled[host].append(o.encoding)
    truths: dict[str, set[str]] = defaultdict(set)
    for page in pages:
        truths[page.host].add(page.truth)
    named = sum(1 for host in wrong_hosts if set(ruled.get(host, ())) & truths[host])
    unneeded = sorted(host for host in ruled if host not in wrong_hosts)
    return {
        "seed": seed, "half": half, "pages": len(pages), "held_out": len(held),
        "hosts": len(truths), "scores": [Scores(name, len(right[name]), len(held)) for name in runs],
        "made_wrong": len(right["standard"] - right["learned"]),
        "needing": len(wrong_hosts), "named": named, "unneeded": unneeded,
        "proposals": len(found.proposals), "not_proposed": len(found.not_proposed),
        "held_out_total": found.held_out_total(),
    }


def rules_section(lines: list[str], quick: bool = False) -> None:
    """``make bench``'s section: the report crawl (seed 2, the report half of the text)."""
    with tempfile.TemporaryDirectory() as work:
        result = evaluate(2, "report", Path(work), pages_per_host=12 if quick else 20)
    lines += _table(result)


def _table(r: dict) -> list[str]:
    scores = {s.name: s for s in r["scores"]}
    total = r["held_out_total"]
    lines = [
        f"## Rules learned from the crawl (suggest-rules --holdout {HOLDOUT})", "",
        f"A crawl of {r['hosts']} hosts, {r['pages']} pages (`tests/host_crawl.py`, seed "
        f"{r['seed']}, {r['half']} half of the text); rules learned on half of each host's "
        f"pages, scored on the other {r['held_out']}: a page is right when its text equals "
        "its text under the true encoding.", "",
        "| decoded with | encoding right on held-out pages |", "|---|---|",
    ]
    names = {"standard": "--policy standard", "repair": "--policy repair",
             "learned": "learned rules, --policy standard",
             "learned-repair": "learned rules, --policy repair"}
    lines += [f"| {names[name]} | {s.right} of {s.pages} ({s.share:.1%}) |"
              for name, s in scores.items()]
    lines += [
        "",
        f"Rules proposed: {r['proposals']} ({r['not_proposed']} scopes not proposed). Pages "
        f"right under the standard policy made wrong by the rules: {r['made_wrong']}. Hosts "
        f"that need a rule (a page wrong under the standard policy): {r['needing']}; "
        f"given a rule naming their encoding: {r['named']} "
        f"({r['named'] / max(r['needing'], 1):.0%}). Rules for hosts that need none: "
        f"{len(r['unneeded'])}{' (' + ', '.join(r['unneeded']) + ')' if r['unneeded'] else ''}.",
        "",
        f"What `suggest-rules` itself reports on the held-out pages (from the tables only): the "
        f"rules change {total.changed}, {total.changed_agreeing} to what their bytes say "
        f"strongly, {total.changed_weak} weakly, {total.changed_weak_other} where they weakly "
        f"say another encoding, {total.changed_against} against what they say strongly, "
        f"{total.changed_ascii} ASCII only.",
        "",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--half", choices=("fit", "report"), default="fit")
    parser.add_argument("--pages-per-host", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        result = evaluate(args.seed, args.half, Path(work), pages_per_host=args.pages_per_host)
    print("\n".join(_table(result)))


if __name__ == "__main__":
    main()
