"""`make bench`'s accuracy section: the conformance and accuracy figures the README quotes,
computed from the shared corpus and the Chromium verdicts kept beside it, never typed in.

    .venv/bin/python -m bench --only accuracy

One row a check: what it compares, the command that checks it in depth, and the count.
The tests pin each of these (``tests/conformance/``); this section only counts.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from types import ModuleType

from bench.__main__ import CORPUS, ROOT


def _script(name: str) -> ModuleType:
    """A module of ``scripts/`` (not a package), imported by path."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _share(ok: int, total: int) -> str:
    """``ok/total (pct)``, with two decimals where one would round a miss away."""
    if not total:
        return "-"
    pct = 100 * ok / total
    text = f"{pct:.1f}" if ok == total or f"{pct:.1f}" != "100.0" else f"{pct:.2f}"
    return f"{ok:,}/{total:,} ({text}%)"


def labels(details: list[str]) -> str:
    """Every label of the Encoding Standard's ``encodings.json`` resolves to its encoding."""
    from pipeline.encoding.lookup import get_an_encoding

    data = json.loads((CORPUS / "whatwg-encoding" / "encodings.json").read_text("utf-8"))
    pairs = [(label, enc["name"]) for group in data for enc in group["encodings"]
             for label in enc["labels"]]
    return _share(sum(get_an_encoding(label) == name for label, name in pairs), len(pairs))


def html5lib(details: list[str]) -> str:
    """html5lib-tests' final-encoding cases under ``standard`` and ``browser``."""
    from pipeline.encoding.api import decode_html
    from pipeline.encoding.lookup import get_an_encoding
    from tests.conformance.test_html5lib_encoding import CASES, CHROMIUM_DIFFERS

    standard = browser = 0
    for name, index, data, label in CASES:
        expected = get_an_encoding(label)
        standard += decode_html(data, None, None).encoding == expected
        shown = CHROMIUM_DIFFERS.get((name, index), expected)
        browser += decode_html(data, None, None, policy="browser").encoding_browser == shown
    return (f"standard {_share(standard, len(CASES))}; browser {_share(browser, len(CASES))} "
            f"(with Chromium's measured answer on the {len(CHROMIUM_DIFFERS)} cases where it "
            "departs from the standard)")


def chardet(details: list[str]) -> str:
    """The chardet corpus' WHATWG-scope files (``scripts/evaluate.py``); its per-encoding
    table goes to ``details``."""
    evaluate = _script("evaluate")
    results = evaluate.evaluate()
    totals = evaluate.summary(results)
    details += ["### Per encoding (chardet corpus)", "",
                "`standard` compares the decoded text with the truth; `browser` compares "
                "`encoding_browser` with `document.characterSet` in Chromium.", "",
                evaluate.table(results), ""]
    return (f"standard: {_share(*totals['standard_as_is'])} as is, "
            f"{_share(*totals['standard_stripped'])} with every declaration stripped; "
            f"browser = Chromium: {_share(*totals['browser_declared'])} of declared files, "
            f"{_share(*totals['browser_undeclared'])} of the rest")


def browser_view(details: list[str]) -> str:
    """``encoding_browser`` against Chromium on the oracle-verified undeclared pages; the
    held-out half by family, TLD and length goes to ``details``."""
    view = _script("browser_view")
    rows = view.load_cases()
    hits = {row["id"]: view.predict(row) == row["chromium"] for row in rows}
    held = [row for row in rows if row["split"] == "held-out"]
    details += ["### Browser view of undeclared pages, held-out half", ""]
    for title, key in (("encoding family", view.family), ("TLD", view.tld_group),
                       ("length", view.length_bucket)):
        groups: dict[str, list[bool]] = {}
        for row in held:
            groups.setdefault(key(row), []).append(hits[row["id"]])
        details += [f"| {title} | pages | = Chromium |", "|---|---:|---:|"]
        details += [f"| {name} | {len(found)} | {_share(sum(found), len(found))} |"
                    for name, found in sorted(groups.items())]
        details.append("")
    return (f"held-out half {_share(sum(hits[row['id']] for row in held), len(held))}; "
            f"all {_share(sum(hits.values()), len(rows))}")


def urls(details: list[str]) -> str:
    """WPT's ``urltestdata.json`` through the links' URL resolution."""
    from pipeline.extract.url_resolution import resolve_url

    data = json.loads((CORPUS / "wpt-url" / "urltestdata.json").read_text("utf-8"))
    cases = [case for case in data if isinstance(case, dict)]
    ok = 0
    for case in cases:
        got = resolve_url(case["input"], case["base"])
        ok += got is None if case.get("failure") else got == case["href"]
    return _share(ok, len(cases))


def mojibake(details: list[str]) -> str:
    """The mojibake flag on right and deliberately wrong decodes of the chardet corpus."""
    from pipeline.encoding.mojibake import is_mojibake, mojibake_score
    from tests.conformance import test_mojibake_validation as validation

    pages = validation.pages.__wrapped__(CORPUS)  # the fixture's function, called directly
    right_flagged = right_total = wrong_flagged = wrong_total = 0
    kinds = validation.LEGACY_CJK | validation.LEGACY_CYRILLIC
    for _, encoding, body in pages:
        right = validation._right_text(body, encoding)
        if not right.isascii():
            right_total += 1
            right_flagged += is_mojibake(mojibake_score(right))
        if encoding.startswith("UTF-") or encoding in kinds:
            for codec in validation.WRONG_CODECS:
                wrong = body.decode(codec, "replace")
                if wrong != right:
                    wrong_total += 1
                    wrong_flagged += is_mojibake(mojibake_score(wrong))
    return (f"wrong decodes flagged {_share(wrong_flagged, wrong_total)}; "
            f"right decodes flagged {_share(right_flagged, right_total)}")


def warc_samples(details: list[str]) -> str:
    """Every record of the real and broken WARC/ARC samples read or reported."""
    from pipeline.errors import RecordError
    from pipeline.sources import iter_records
    from tests.conformance.test_warc_samples import EXPECTED

    records = errors = 0
    for name in EXPECTED:
        for item in iter_records(str(CORPUS / "warc-samples" / name)):
            records += 1
            errors += isinstance(item, RecordError)
    return f"{len(EXPECTED)} files, {records:,} records, each read or an `errors` row ({errors} are)"


#: (check, command that checks it in depth, function giving the result; a function may add
#: tables of its own to the list it is given, printed after the summary table)
CHECKS: tuple[tuple[str, str, Callable[[list[str]], str]], ...] = (
    ("WHATWG labels (`encodings.json`)", "`tests/conformance/test_labels.py`", labels),
    ("html5lib encoding tests", "`tests/conformance/test_html5lib_encoding.py`", html5lib),
    ("chardet corpus, real pages by true encoding", "`python scripts/evaluate.py`", chardet),
    ("browser view of undeclared pages (Chromium's verdicts)",
     "`python scripts/browser_view.py report`", browser_view),
    ("WHATWG URL tests (`urltestdata.json`)", "`tests/conformance/test_urls.py`", urls),
    ("mojibake flag (chardet corpus, wrong decodes made on purpose)",
     "`tests/conformance/test_mojibake_validation.py`", mojibake),
    ("real and broken WARC/ARC files", "`tests/conformance/test_warc_samples.py`", warc_samples),
)


def run(lines: list[str]) -> None:
    """Append the accuracy table to ``lines``."""
    details: list[str] = []
    lines += ["## Accuracy against the standards and Chromium", "",
              "| check | in depth | result |", "|---|---|---|"]
    for check, command, result in CHECKS:
        lines.append(f"| {check} | {command} | {result(details)} |")
    lines += ["", *details]
