"""Rebuild and score the browser-view expectations (``tests/browser_view/cases.jsonl``).

What Chromium shows (``document.characterSet``) for undeclared ``text/html`` pages, asked of a
real headless Chromium through ``../shared/oracle``. The pages are recipes
(:mod:`tests.browser_view.pages`): real text in every legacy encoding Chromium supports,
undeclared UTF-8 and 7-bit bodies, 120 B to 200 KB, dense and mostly-ASCII, each body under
``.com``, its language's country TLD and one more TLD drawn from Chromium's table and a few
generic ones. Half the bodies (by a hash of the recipe) are for fitting, half held out.

    python scripts/browser_view.py build  WORK      # bodies + the oracle's manifest in WORK
    python scripts/browser_view.py oracle WORK      # run Chromium over them (~0.1-0.2 s a page)
    python scripts/browser_view.py write  WORK      # WORK's verdicts -> tests/browser_view/cases.jsonl
    python scripts/browser_view.py fit                # fit the CED emulation's tables on the fit half
    python scripts/browser_view.py report [--split held-out|fit|all] [--misses]

``report`` measures ``encoding_browser`` as it is served: CED as Chromium calls it when it is
compiled in, the emulation otherwise (``REDECODE_PURE_PYTHON=1`` forces it).

``fit`` writes ``pipeline/encoding/sniff/ced_weights.npz`` (:mod:`pipeline.encoding.sniff.ced_model`,
the emulation that serves without CED):
a conditional log-linear model over the candidates, fitted by gradient descent (Adam, L2
penalty :data:`L2`, :data:`STEPS` full-batch steps) to Chromium's answers on the fit half's
pages that reach detection (not 7-bit, not UTF-8).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from pipeline.encoding.api import decode_html  # noqa: E402
from pipeline.encoding.options import EncodingOptions  # noqa: E402
from pipeline.encoding.sniff.ced import CED_VERSION, ced_status  # noqa: E402
from pipeline.encoding.sniff.ced_model import Features, Weights, features, save_weights  # noqa: E402
from pipeline.encoding.sniff.ced_window import PairWindow, ced_window  # noqa: E402
from pipeline.encoding.sniff.evidence import Evidence  # noqa: E402
from pipeline.encoding.sniff.tld_defaults import TLD_ENCODINGS, tld_default  # noqa: E402
from pipeline.encoding.sniff.utf8 import check_utf8  # noqa: E402
from tests.browser_view.pages import (  # noqa: E402
    CASES,
    DOTLESS,
    cases,
    load_cases,
    page_body,
    recipe_of,
    url_for,
)

ORACLE = ROOT.parent / "shared" / "oracle" / "oracle.py"
CONTENT_TYPE = "text/html"
def build(work: Path) -> None:
    (work / "bodies").mkdir(parents=True, exist_ok=True)
    with (work / "manifest.jsonl").open("w") as manifest:
        bodies: dict[str, str] = {}
        for recipe, tld, case_id in cases():
            if recipe.body_id not in bodies:
                body = page_body(recipe)
                name = f"bodies/{recipe.body_id}.bin"
                (work / name).write_bytes(body)
                bodies[recipe.body_id] = name
            manifest.write(json.dumps({
                "id": case_id, "url": url_for(case_id, tld), "content_type": CONTENT_TYPE,
                "body": bodies[recipe.body_id],
            }) + "\n")
    print(f"{sum(1 for _ in cases())} cases, {len(bodies)} bodies in {work}")


def run_oracle(work: Path, tabs: int) -> None:
    subprocess.run([
        sys.executable, str(ORACLE), "pages", str(work / "manifest.jsonl"), "-o", str(work / "oracle.jsonl"),
        "--tabs", str(tabs), "--lang", "en-US", "--no-source", "--progress",
    ], check=True)


def write(work: Path) -> None:
    seen = {}
    with (work / "oracle.jsonl").open() as handle:
        for line in handle:
            record = json.loads(line)
            if record.get("outcome") == "rendered":
                seen[record["id"]] = record["characterSet"]
    lines = []
    missing = 0
    for recipe, _, case_id in cases():
        if case_id not in seen:
            missing += 1
            continue
        digest = hashlib.sha256(page_body(recipe)).hexdigest()[:12]
        lines.append(f"{case_id}\t{digest}\t{seen[case_id]}\n")
    with CASES.open("w") as out:
        out.write("# id = lang.encoding.layout.length.seed@tld (tests/browser_view/pages.py); sha256 prefix of the body;"
                  " document.characterSet in Chromium 156 (scripts/browser_view.py)\n")
        out.write("id\tsha256\tchromium\n")
        out.writelines(lines)
    print(f"{len(lines)} cases written to {CASES} ({missing} without a rendered verdict)")


def family(row: dict) -> str:
    """The case's encoding family, for the report."""
    encoding, lang = row["encoding"], row["lang"]
    if lang == "7bit":
        return "7-bit"
    if encoding == "UTF-8":
        return "UTF-8 (undeclared)"
    if encoding in ("Shift_JIS", "EUC-JP", "ISO-2022-JP", "GBK", "gb18030", "Big5", "EUC-KR"):
        return "CJK"
    if encoding in ("windows-1251", "KOI8-R", "KOI8-U", "IBM866", "ISO-8859-5", "x-mac-cyrillic"):
        return "Cyrillic"
    if encoding in ("windows-1250", "ISO-8859-2", "ISO-8859-16"):
        return "Central European"
    if encoding in ("windows-1257", "ISO-8859-13", "ISO-8859-4"):
        return "Baltic"
    if encoding in ("windows-1252", "ISO-8859-15", "macintosh", "ISO-8859-10", "ISO-8859-14", "ISO-8859-3"):
        return "Western/Latin"
    return "Greek, Turkish, Hebrew, Arabic, Thai, Vietnamese"


def tld_group(row: dict) -> str:
    tld = row["tld"]
    if tld == DOTLESS:
        return "no TLD (host without a dot)"
    if tld == "com":
        return ".com"
    if tld in TLD_ENCODINGS:
        return "TLD in Chromium's table"
    return "other TLD"


def length_bucket(row: dict) -> str:
    size = len(page_body(row["recipe"]))
    for limit, name in ((500, "< 500 B"), (5000, "500 B - 5 KB"), (50_000, "5 - 50 KB")):
        if size < limit:
            return name
    return ">= 50 KB"


def predict(row: dict) -> str:
    """``encoding_browser`` for the case's page."""
    return decode_html(page_body(recipe_of(row)), CONTENT_TYPE, row["url"], policy="browser").encoding_browser


def report(split: str, misses: bool) -> None:
    rows = [row for row in load_cases() if split == "all" or row["split"] == split]
    results = [(row, predict(row)) for row in rows]
    ok = sum(found == row["chromium"] for row, found in results)
    status = ced_status()
    detector = f"CED {CED_VERSION}" if status is None else f"the emulation ({status})"
    print(f"**{split}**: {ok}/{len(results)} ({_share(ok, len(results))}) equal to Chromium; detector: {detector}\n")
    for title, key in (("encoding family", family), ("TLD", tld_group), ("length", length_bucket)):
        groups: dict[str, list[bool]] = defaultdict(list)
        for row, found in results:
            groups[key(row)].append(found == row["chromium"])
        print(f"| {title} | pages | = Chromium |\n|---|---:|---:|")
        for name in sorted(groups):
            hits = groups[name]
            print(f"| {name} | {len(hits)} | {sum(hits)}/{len(hits)} ({_share(sum(hits), len(hits))}) |")
        print()
    if misses:
        for row, found in results:
            if found != row["chromium"]:
                print(f"{row['id']}\t{len(page_body(recipe_of(row)))}\tchromium={row['chromium']}\tours={found}")


def _share(part: int, whole: int) -> str:
    """A percentage with one decimal, or two where one would round a miss away (99.97%)."""
    share = 100 * part / whole
    return f"{share:.1f}%" if part == whole or f"{share:.1f}" != "100.0" else f"{share:.2f}%"


#: L2 penalty and steps of the fit (tried: 3e-3, 1e-3, 3e-4, 1e-4, 3e-5; 1e-4 and 800 steps did best).
L2 = 0.0001
STEPS = 800
#: A TLD gets its own prior row with at least this many fit pages reaching detection.
MIN_TLD_PAGES = 6


def detection_inputs(row: dict) -> tuple[PairWindow, str | None, str, str | None, str | None, bytes] | None:
    """What the CED emulation sees for the case (None when the page never reaches detection)."""
    body = page_body(recipe_of(row))
    if body.isascii():
        return None
    evidence = Evidence(body, row["url"], EncodingOptions())
    sample = evidence.sample()
    is_utf8 = evidence.utf8().is_utf8 if len(sample) == len(body) else check_utf8(sample).is_utf8
    if is_utf8:
        return None
    hinted, generic = evidence.chardetng(), evidence.chardetng_generic()
    return (
        ced_window(body), evidence.tld, tld_default(row["url"]),
        generic.encoding if generic else None, hinted.encoding if hinted else None, sample,
    )


def fit(l2: float = L2, steps: int = STEPS) -> Weights:
    """Fit the tables on the fit half and write them."""
    rows = []
    for row in load_cases():
        if row["split"] != "fit":
            continue
        inputs = detection_inputs(row)
        if inputs is not None:
            rows.append((row, inputs))
    candidates = tuple(sorted({row["chromium"] for row, _ in rows}))
    tld_pages: dict[str, int] = defaultdict(int)
    for _, inputs in rows:
        tld_pages[inputs[1] or ""] += 1
    tlds = tuple(sorted(tld for tld, count in tld_pages.items() if count >= MIN_TLD_PAGES))
    weights = _zero_weights(candidates, tlds)
    found = [features(*inputs[:1], weights, *inputs[1:]) for _, inputs in rows]
    labels = np.array([candidates.index(row["chromium"]) for row, _ in rows])
    weights = _descend(weights, found, labels, l2, steps)
    save_weights(weights)
    print(f"fitted on {len(rows)} pages: {len(candidates)} candidates, {len(tlds)} TLD rows")
    return weights


def _zero_weights(candidates: tuple[str, ...], tlds: tuple[str, ...]) -> Weights:
    k, t = len(candidates), len(tlds) + 1
    return Weights(
        candidates, tlds, np.zeros(k), np.zeros(k), np.zeros((t, k)), np.zeros((t, k)), np.zeros(5),
        np.zeros((k, 256)), np.zeros((k, 260)), np.zeros(k), np.zeros(k), np.zeros((k, 64)),
        np.zeros((k, 128)),
    )


def _descend(weights: Weights, found: list[Features], labels: np.ndarray, l2: float, steps: int) -> Weights:
    """Adam on the mean negative log-likelihood of the labels plus ``l2`` * |w|^2 / 2."""
    n, k = len(found), len(weights.candidates)
    first = np.array([f.first for f in found])
    second = np.array([f.second for f in found])
    bad = np.array([f.bad for f in found])
    err = np.array([f.err for f in found])
    shape = np.array([f.shape for f in found])  # (n, K, 64)
    spread = np.array([f.spread for f in found])
    derate = np.array([f.derate for f in found])
    evidence = np.array([f.weighted_pairs for f in found]) / 48
    rows = np.zeros((n, len(weights.tlds) + 1))
    rows[np.arange(n), [f.tld_row for f in found]] = 1
    hot = {}
    for attribute in ("default", "generic", "hinted"):
        index = np.array([getattr(f, attribute) for f in found])
        hot[attribute] = np.zeros((n, k))
        hot[attribute][np.arange(n)[index >= 0], index[index >= 0]] = 1
    onehots = [hot["default"] * derate[:, None], hot["generic"], hot["hinted"],
               hot["generic"] * evidence[:, None], hot["hinted"] * evidence[:, None]]
    truth = np.zeros((n, k))
    truth[np.arange(n), labels] = 1
    names = ("bias", "prior", "tld", "tld_pairs", "scalars", "b1", "b2", "bad", "err", "shape", "robust")
    params = {name: getattr(weights, name).astype(float).copy() for name in names}
    moment = {name: np.zeros_like(value) for name, value in params.items()}
    square = {name: np.zeros_like(value) for name, value in params.items()}
    rows_derate, rows_pairs = rows * derate[:, None], rows * evidence[:, None]
    for step in range(1, steps + 1):
        p = params
        score = (p["bias"] + derate[:, None] * p["prior"] + rows_derate @ p["tld"] + rows_pairs @ p["tld_pairs"]
                 + first @ p["b1"].T + second @ p["b2"].T + bad * p["bad"] + err * p["err"]
                 + np.einsum("nkf,kf->nk", shape, p["shape"]) + spread @ p["robust"].T
                 + sum(scalar * one for scalar, one in zip(p["scalars"], onehots, strict=True)))
        score -= score.max(axis=1, keepdims=True)
        prob = np.exp(score)
        prob /= prob.sum(axis=1, keepdims=True)
        delta = (prob - truth) / n
        grads = {
            "bias": delta.sum(0), "prior": (delta * derate[:, None]).sum(0), "b1": delta.T @ first, "b2": delta.T @ second,
            "bad": (delta * bad).sum(0), "err": (delta * err).sum(0),
            "shape": np.einsum("nk,nkf->kf", delta, shape), "robust": delta.T @ spread,
            "scalars": np.array([(delta * one).sum() for one in onehots]),
            "tld": rows_derate.T @ delta, "tld_pairs": rows_pairs.T @ delta,
        }
        for name, value in params.items():
            grad = grads[name] + l2 * value
            moment[name] = 0.9 * moment[name] + 0.1 * grad
            square[name] = 0.999 * square[name] + 0.001 * grad * grad
            value -= 0.05 * (moment[name] / (1 - 0.9**step)) / (np.sqrt(square[name] / (1 - 0.999**step)) + 1e-8)
    return Weights(weights.candidates, weights.tlds, *(params[name] for name in names))


def main(argv: list[str]) -> int:
    """Dispatch the subcommands (see the module docstring)."""
    if not argv or argv[0] not in ("build", "oracle", "write", "fit", "report"):
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "fit":
        fit()
        return 0
    if command == "report":
        split = "held-out"
        if "--split" in rest:
            split = rest[rest.index("--split") + 1]
        report(split, "--misses" in rest)
        return 0
    if not rest:
        print(f"browser_view.py {command}: WORK folder missing", file=sys.stderr)
        return 2
    work = Path(rest[0])
    if command == "build":
        build(work)
    elif command == "oracle":
        run_oracle(work, int(rest[rest.index("--tabs") + 1]) if "--tabs" in rest else 4)
    else:
        write(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
