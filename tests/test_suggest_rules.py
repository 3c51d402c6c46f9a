"""`redecode suggest-rules`: rules learned from a run's evidence, on crawls built from real
text of several languages (tests/host_crawl.py), and the pooling rules on hand-made groups."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from pipeline import suggest
from pipeline.encoding.options import Override
from pipeline.rules import load_rules
from pipeline.suggest import Group
from tests.cli_helpers import no_traceback, redecode
from tests.host_crawl import crawl_pages, decoded_right, write_crawl


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list]:
    """Six languages' hosts (declaring, lying, silent), 10 pages each, and two mixed hosts,
    decoded once under the standard policy as run ``std``."""
    work = tmp_path_factory.mktemp("suggest")
    pages = crawl_pages(11, hosts_per_kind=6, pages_per_host=10, mixed_hosts=2)
    write_crawl(work / "crawl.warc.gz", pages, seed=11)
    out = work / "out"
    result = redecode("run", str(work / "crawl.warc.gz"), "--out", str(out), "--run-id", "std",
                      "-q", "-w", "1")
    assert result.returncode == 0, result.stderr
    return work, out, pages


def _rules(text: str) -> list[dict]:
    return tomllib.loads(text).get("encoding", {}).get("override", [])


def test_lying_hosts_get_a_force_rule_for_what_their_bytes_say(crawl) -> None:
    work, out, pages = crawl
    result = redecode("suggest-rules", "--out", str(out))
    assert result.returncode == 0, result.stderr
    rules = {rule.get("host") or rule.get("url_prefix"): rule for rule in _rules(result.stdout)}
    liars = {p.host: p.truth for p in pages if p.kind == "lies"}
    # every liar whose lie changes its text (iso-8859-1 is windows-1252: no lie for it)
    lying = {host: truth for host, truth in liars.items()
             if any(not decoded_right(p.body, "windows-1252", truth)
                    for p in pages if p.host == host)}
    assert lying
    for host, truth in lying.items():
        assert rules[host] == {"host": host, "encoding": truth, "mode": "force"}, host
    # a host whose declarations are true never gets one
    assert not [h for h in rules if h.startswith("declares")]


def test_a_rule_changes_no_page_that_was_right(crawl, tmp_path: Path) -> None:
    work, out, pages = crawl
    rules_file = tmp_path / "learned.toml"
    result = redecode("suggest-rules", "--out", str(out), "-o", str(rules_file))
    assert result.returncode == 0 and "rule(s) proposed" in result.stderr, result.stderr
    load_rules(rules_file)  # a valid rules file
    again = redecode("run", str(work / "crawl.warc.gz"), "--out", str(out), "--run-id",
                     "learned", "--rules", str(rules_file), "-q", "-w", "1")
    assert again.returncode == 0, again.stderr
    import duckdb

    decided = {
        run: dict(duckdb.execute(
            "select url, encoding from read_parquet(?)",
            [str(out / "records" / f"run_id={run}" / "*.parquet")]).fetchall())
        for run in ("std", "learned")
    }
    by_url = {p.url: p for p in pages}
    right = {run: {url for url, enc in d.items() if decoded_right(by_url[url].body, enc,
                                                                  by_url[url].truth)}
             for run, d in decided.items()}
    assert right["std"] <= right["learned"]
    assert len(right["learned"]) > len(right["std"])


def test_the_current_rules_are_kept_and_what_they_cover_is_not_proposed(crawl, tmp_path) -> None:
    work, out, pages = crawl
    host = next(p.host for p in pages if p.kind == "lies" and p.truth != "windows-1252")
    current = tmp_path / "current.toml"
    current.write_text(f'# the operator\'s own\n[extract]\nmax_links = 50\n\n'
                       f'[[encoding.override]]\nhost = "{host}"\nencoding = "UTF-8"\n'
                       f'mode = "force"\n')
    result = redecode("suggest-rules", "--out", str(out), "--rules", str(current))
    assert result.returncode == 0, result.stderr
    assert "# the operator's own\n[extract]\nmax_links = 50" in result.stdout
    rules = _rules(result.stdout)
    assert rules[0] == {"host": host, "encoding": "UTF-8", "mode": "force"}
    assert [r for r in rules if r.get("host") == host] == rules[:1]
    assert load_rules("x", raw=result.stdout.encode()).extract.max_links.navigation == 50


def test_json_and_holdout_say_what_the_rules_change_on_pages_they_did_not_see(crawl) -> None:
    work, out, pages = crawl
    result = redecode("suggest-rules", "--out", str(out), "--holdout", "0.5", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["holdout"] == 0.5 and 0 < data["held_out_pages"] < data["pages"] + data["held_out_pages"]
    total = data["held_out_total"]
    assert total["changed"] > 0
    assert total["changed"] == (total["changed_agreeing"] + total["changed_weak"]
                                + total["changed_weak_other"] + total["changed_against"]
                                + total["changed_ascii"])
    for rule in data["proposed"]:
        assert rule["mode"] in ("force", "fallback") and rule["held_out"] is not None
        assert len(rule["evidence"]["examples"]) <= suggest.EXAMPLES
        assert rule["support"] >= suggest.MIN_AGREEMENT


@pytest.mark.parametrize("args, names", [
    (["--holdout", "1.5"], ["--holdout"]),
    (["--run-id", "nope"], ["nope"]),
    (["--rules", "/no/such/rules.toml"], ["/no/such/rules.toml"]),
])
def test_mistakes_are_one_line_and_exit_2(crawl, args: list[str], names: list[str]) -> None:
    work, out, pages = crawl
    result = redecode("suggest-rules", "--out", str(out), *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert no_traceback(result)
    assert all(name in result.stderr for name in names), result.stderr


def test_an_empty_output_folder_is_refused(tmp_path: Path) -> None:
    result = redecode("suggest-rules", "--out", str(tmp_path))
    assert result.returncode == 2 and no_traceback(result)


# Pooling rules on hand-made evidence -----------------------------------------------------


def _group(host: str = "h.example", *, declared: str | None = None, bytes_: str | None = None,
           alike: tuple[str, ...] = (), strength: str = "strong", encoding: str = "windows-1252",
           pages: int = 1, weight: int | None = None, prefix: str = "") -> Group:
    vote = weight if weight is not None else (0 if bytes_ is None else 500)
    return Group(host, prefix, declared, bytes_, frozenset(alike),
                 strength if bytes_ is not None else "none",  # type: ignore[arg-type]
                 encoding, False, False, False, pages, vote, (f"http://{host}/{prefix}{pages}",))


def test_undeclared_pages_that_agree_get_a_fallback_rule() -> None:
    groups = [_group(bytes_="Shift_JIS", encoding="Shift_JIS", pages=3),
              _group(bytes_="Shift_JIS", strength="weak", weight=10, encoding="windows-1251")]
    (proposal,) = suggest.propose(groups).proposals
    assert proposal.override == Override("Shift_JIS", host="h.example", mode="fallback")
    assert proposal.effect.changed == 1


def test_pages_decided_as_their_bytes_say_need_no_rule() -> None:
    groups = [_group(bytes_="Shift_JIS", encoding="Shift_JIS", pages=5),
              _group(bytes_=None, encoding="windows-1252", pages=4)]  # ASCII: same text
    found = suggest.propose(groups)
    assert found.proposals == () and found.not_proposed == ()


def test_a_page_whose_declaration_its_bytes_agree_with_is_never_changed() -> None:
    # most pages lie (declare windows-1252, are EUC-KR); one declares Big5 and is Big5
    groups = [_group(declared="windows-1252", bytes_="EUC-KR", pages=20),
              _group(declared="Big5", bytes_="Big5", encoding="Big5", pages=1, weight=50)]
    found = suggest.propose(groups)
    assert found.proposals == ()
    (refused,) = found.not_proposed
    assert refused.kind == "harm" and "declaration" in refused.reason


def test_encodings_that_read_a_page_alike_do_not_disagree() -> None:
    # short Hungarian pages without "ő"/"ű" read the same in windows-1250 and windows-1252
    groups = [_group(bytes_="windows-1250", encoding="windows-1250", pages=4),
              _group(bytes_="windows-1252", alike=("windows-1250", "ISO-8859-2"),
                     encoding="windows-1252", pages=6),
              _group(bytes_="windows-1252", encoding="windows-1252", alike=(), pages=1,
                     strength="weak", weight=5)]
    (proposal,) = suggest.propose(groups).proposals
    assert proposal.override.encoding == "windows-1250"
    assert proposal.effect.changed == 1  # the six read alike: their text does not change


def test_a_host_that_mixes_encodings_gets_one_rule_per_url_prefix() -> None:
    groups = [_group(bytes_="Shift_JIS", encoding="windows-1251", pages=4, prefix="ja/"),
              _group(bytes_="windows-1251", encoding="Shift_JIS", pages=4, prefix="ru/")]
    groups = [Group(g.host, f"http://h.example/{g.url_prefix}", *[getattr(g, f) for f in (
        "declared", "bytes_encoding", "alike", "strength", "encoding", "has_bom", "covered",
        "held_out", "pages", "weight", "urls")]) for g in groups]
    found = suggest.propose(groups)
    assert {(p.override.url_prefix, p.override.encoding) for p in found.proposals} == {
        ("http://h.example/ja/", "Shift_JIS"), ("http://h.example/ru/", "windows-1251")}


def test_too_few_pages_is_listed_with_the_reason() -> None:
    groups = [_group(bytes_="GBK", encoding="windows-1252", pages=1)]
    found = suggest.propose(groups, min_pages=2)
    assert found.proposals == ()
    (refused,) = found.not_proposed
    assert refused.kind == "evidence" and "--min-pages 2" in refused.reason


def test_a_host_rule_is_checked_against_its_subdomains_too() -> None:
    groups = [_group("a.example", declared="windows-1252", bytes_="KOI8-R", pages=5),
              # a subdomain whose declaration and bytes agree on UTF-8
              _group("www.a.example", declared="UTF-8", bytes_="UTF-8", strength="certain",
                     encoding="UTF-8", pages=2)]
    found = suggest.propose(groups)
    assert found.proposals == ()
    assert found.not_proposed[0].kind == "harm"


def test_the_toml_output_loads_and_says_its_evidence() -> None:
    groups = [_group(declared="windows-1252", bytes_="windows-1251", pages=7)]
    text = suggest.to_toml(suggest.propose(groups))
    rules = load_rules("x", raw=text.encode())
    assert rules.encoding.overrides == (Override("windows-1251", host="h.example", mode="force"),)
    assert "7 declarations contradicted by their bytes" in text


def test_audit_and_report_show_the_rules_and_can_gate_on_them(crawl, tmp_path: Path) -> None:
    work, out, pages = crawl
    proposed = json.loads(redecode("suggest-rules", "--out", str(out), "--run-id", "std",
                                   "--format", "json").stdout)["proposed"]
    assert proposed
    gated = redecode("audit", "--out", str(out), "--run", "std", "--fail-on",
                     "proposed_rules>0", "--format", "json")
    assert gated.returncode == 1 and "FAILED gate proposed_rules>0" in gated.stderr
    shown = json.loads(gated.stdout)
    assert shown["gates"]["proposed_rules"] == len(proposed)
    assert shown["proposed_rules"] == proposed
    report = tmp_path / "report.html"
    result = redecode("report", "--out", str(out), "--run", "std", "-o", str(report))
    assert result.returncode == 0, result.stderr
    html = report.read_text(encoding="utf-8")
    assert "Rules the evidence supports" in html
    assert all((rule["host"] or rule["url_prefix"]) in html for rule in proposed)
