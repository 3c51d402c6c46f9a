"""Main text against the peers with the web-content-extraction benchmark's metric (ROUGE-LSum
F1 per page, mean per dataset: :mod:`bench.rouge_lsum`), on the shared corpus's pages with
main-text gold: ``main-text-fit/`` (Dragnet, CleanEval's development set) cut in two halves by
a hash of each page's name (:func:`split_of`), and ``article-extraction/``.

    .venv/bin/python -m bench.main_text_bench [--peers] [--split fit|held-out|all]

Every extractor gets the same decoded text (``decode_html`` on the page's bytes, as a run
decodes them) and is called the way the benchmark calls it (``extraction_benchmark/extractors``:
trafilatura without comments, readability's summary through html-text, resiliparse's main
content without list bullets, alt texts or links, justext with the English stop list and the
benchmark's parameters, goose3's cleaned text). Peers' answers are cached under
``out/bench/main_text/`` by page and package version (they do not change between runs).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
CACHE = ROOT / "out" / "bench" / "main_text"
#: Pages whose gold has at least this many words must not come out empty (issue 33).
MIN_GOLD_WORDS = 50
PEERS = ("trafilatura", "readability", "resiliparse", "justext", "goose3")
_PACKAGES = {"trafilatura": "trafilatura", "readability": "readability-lxml",
             "resiliparse": "resiliparse", "justext": "justext", "goose3": "goose3"}


@dataclass(frozen=True, slots=True)
class Page:
    """A page with gold: its dataset, name, URL (None when unknown), decoded text, gold."""

    dataset: str
    name: str
    url: str | None
    html: str
    encoding: str
    gold: str

    @property
    def key(self) -> str:
        return f"{self.dataset}/{self.name}"


def split_of(dataset: str, name: str) -> str:
    """``fit`` or ``held-out``: the low bit of the first byte of sha256("dataset/name").

    >>> split_of("dragnet", "102"), split_of("cleaneval", "dev-1")
    ('fit', 'fit')
    """
    return "held-out" if hashlib.sha256(f"{dataset}/{name}".encode()).digest()[0] & 1 else "fit"


def fit_pages(corpus: Path = CORPUS) -> Iterator[Page]:
    """The pages of ``main-text-fit/``, decoded as a run decodes them (no header: the bytes
    and the URL decide)."""
    from pipeline.encoding.api import decode_html

    for dataset in ("cleaneval", "dragnet"):
        folder = corpus / "main-text-fit" / dataset
        # (one JSON object a "\n"-ended line; str.splitlines() would also cut at U+2028)
        for line in (folder / "truth.jsonl").read_text("utf-8").split("\n"):
            if not line.strip():
                continue
            row = json.loads(line)
            body = (folder / "raw" / f"{row['id']}.html").read_bytes()
            url = row.get("url")
            decoded = decode_html(body, None, url)
            yield Page(dataset, row["id"], url, decoded.text, decoded.encoding, row["plaintext"])


def article_pages(corpus: Path = CORPUS) -> Iterator[Page]:
    """The article-extraction pages (UTF-8) with their article bodies."""
    folder = corpus / "article-extraction"
    truth = json.loads((folder / "ground-truth.json").read_text("utf-8"))
    for name in sorted(truth):
        html = gzip.decompress((folder / "html" / f"{name}.html.gz").read_bytes()).decode("utf-8")
        yield Page("article-extraction", name, truth[name]["url"], html, "UTF-8",
                   truth[name]["articleBody"])


def redecode(page: Page, options: object | None = None) -> str:
    """redecode's main text: ``extract()`` as ``redecode decode --text`` and a run call it."""
    from pipeline.extract import extract
    from pipeline.extract.options import ExtractOptions

    return extract(page.html, page.url, page.encoding, options or ExtractOptions()).main_text


def _trafilatura(html: str) -> str:
    import trafilatura

    return trafilatura.extract(html, include_comments=False) or ""


def _readability(html: str) -> str:
    import html_text
    import readability

    return html_text.extract_text(readability.Document(html).summary(html_partial=True))


def _resiliparse(html: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    return extract_plain_text(HTMLTree.parse(html), preserve_formatting=True, main_content=True,
                              list_bullets=False, comments=False, links=False, alt_texts=False)


def _justext(html: str) -> str:
    import justext

    paragraphs = justext.justext(html, justext.get_stoplist("English"), 50, 200, 0.1, 0.2, 0.2,
                                 200, True)
    return " ".join(p.text for p in paragraphs if not p.is_boilerplate)


def _goose3(html: str) -> str:
    from goose3 import Goose, configuration

    config = configuration.Configuration()
    config.http_timeout = 5
    with Goose(config) as goose:
        return goose.extract(raw_html=html).cleaned_text or ""


_PEER_FNS: dict[str, Callable[[str], str]] = {
    "trafilatura": _trafilatura, "readability": _readability, "resiliparse": _resiliparse,
    "justext": _justext, "goose3": _goose3,
}


def peer_answers(name: str, pages: list[Page]) -> dict[str, str] | None:
    """A peer's main text per page key (cached by package version); None when not installed."""
    try:
        version = metadata.version(_PACKAGES[name])
    except metadata.PackageNotFoundError:
        return None
    path = CACHE / f"{name}-{version}.json"
    cached: dict[str, str] = json.loads(path.read_text("utf-8")) if path.exists() else {}
    missing = [page for page in pages if page.key not in cached]
    for page in missing:
        try:
            cached[page.key] = _PEER_FNS[name](page.html)
        except Exception:  # a peer failing on a page answers nothing there, as in the benchmark
            cached[page.key] = ""
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cached), "utf-8")
    return {page.key: cached[page.key] for page in pages}


def group_of(page: Page) -> str:
    """The table row a page counts in: dataset and half (article-extraction is not split)."""
    if page.dataset == "article-extraction":
        return page.dataset
    return f"{page.dataset} ({split_of(page.dataset, page.name)})"


def scores(pages: list[Page], answers: dict[str, str], name: str = "redecode") -> dict[str, float]:
    """Per page key, ROUGE-LSum F1; a peer's are cached beside its answers (the LCS of a
    long answer costs seconds, and neither side changes between runs)."""
    from bench.rouge_lsum import rouge_lsum

    if name == "redecode":
        return {page.key: rouge_lsum(page.gold, answers[page.key]).f1 for page in pages}
    path = CACHE / f"{name}-{metadata.version(_PACKAGES[name])}.f1.json"
    cached: dict[str, float] = json.loads(path.read_text("utf-8")) if path.exists() else {}
    missing = [page for page in pages if page.key not in cached]
    for page in missing:
        cached[page.key] = rouge_lsum(page.gold, answers[page.key]).f1
    if missing:
        path.write_text(json.dumps(cached), "utf-8")
    return {page.key: cached[page.key] for page in pages}


def empty_answers(pages: list[Page], answers: dict[str, str]) -> list[str]:
    """Keys of the pages whose gold has >= MIN_GOLD_WORDS words and whose answer is empty."""
    return [page.key for page in pages
            if len(page.gold.split()) >= MIN_GOLD_WORDS and not answers[page.key].strip()]


def table(pages: list[Page], results: dict[str, dict[str, float]],
          empties: dict[str, list[str]]) -> list[str]:
    """The Markdown table: mean F1 per group and extractor, best peer beside redecode."""
    groups = sorted({group_of(page) for page in pages})
    names = list(results)
    lines = ["| pages | n | " + " | ".join(names) + " | best peer |",
             "|---|---:|" + "---:|" * (len(names) + 1)]
    for group in groups:
        keys = [page.key for page in pages if group_of(page) == group]
        means = {name: sum(results[name][k] for k in keys) / len(keys) for name in names}
        peers = {name: mean for name, mean in means.items() if name != "redecode"}
        best = max(peers, key=peers.__getitem__) if peers else "-"
        cells = " | ".join(f"**{means[n]:.3f}**" if means[n] == max(means.values()) else f"{means[n]:.3f}"
                           for n in names)
        lines.append(f"| {group} | {len(keys)} | {cells} | {best} |")
    lines.append("| empty answers (gold >= 50 words) | | "
                 + " | ".join(str(len(empties[n])) for n in names) + " | |")
    return lines


def run(lines: list[str]) -> None:
    """Append the main-text section (redecode and the installed peers, held-out half and
    article-extraction; the fit half apart) to ``lines`` (``python -m bench --only main-text``)."""
    sys.path.insert(0, str(ROOT))
    pages = [*fit_pages(), *article_pages()]
    answers = {"redecode": {page.key: redecode(page) for page in pages}}
    for name in PEERS:
        found = peer_answers(name, pages)
        if found is not None:
            answers[name] = found
    results = {name: scores(pages, found, name) for name, found in answers.items()}
    lines += ["## Main text against the peers (ROUGE-LSum F1, the web-content-extraction "
              "benchmark's metric)", "",
              "Mean F1 per page group; main-text-fit cut in halves by sha256(\"dataset/name\") "
              "(the constants were chosen on the fit half); every extractor given the same "
              "decoded text and called as the benchmark calls it (`bench/main_text_bench.py`).", ""]
    held = [p for p in pages if group_of(p).endswith("(held-out)") or p.dataset == "article-extraction"]
    fit = [p for p in pages if group_of(p).endswith("(fit)")]
    for title, group in (("held-out half and article-extraction", held), ("fit half", fit)):
        lines += [f"### {title}", ""]
        lines += table(group, results, {n: empty_answers(group, a) for n, a in answers.items()})
        lines.append("")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.main_text_bench")
    parser.add_argument("--peers", action="store_true", help="score the installed peers too")
    parser.add_argument("--split", choices=("fit", "held-out", "all"), default="all")
    parser.add_argument("--misses", type=int, default=0, help="list redecode's N worst pages")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    pages = [*fit_pages(), *article_pages()]
    if args.split != "all":
        pages = [p for p in pages if p.dataset == "article-extraction"
                 or split_of(p.dataset, p.name) == args.split]
    answers = {"redecode": {page.key: redecode(page) for page in pages}}
    if args.peers:
        for name in PEERS:
            found = peer_answers(name, pages)
            if found is not None:
                answers[name] = found
    results = {name: scores(pages, found, name) for name, found in answers.items()}
    empties = {name: empty_answers(pages, found) for name, found in answers.items()}
    print("\n".join(table(pages, results, empties)))
    if args.misses:
        worst = sorted(results["redecode"].items(), key=lambda kv: kv[1])[: args.misses]
        for key, f1 in worst:
            best = max((results[n][key], n) for n in results)
            print(f"{f1:.3f} {key} (best {best[1]} {best[0]:.3f}) len={len(answers['redecode'][key])}")


if __name__ == "__main__":
    main()
