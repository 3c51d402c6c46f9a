"""Closed vocabularies, each declared in one place: error types, signal kinds, the declared
sources; the row builder against the schema; the override a decision matched; and the
runners' modules importing one another without a circle."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

import pytest

from pipeline.encoding import decision
from pipeline.encoding.options import EncodingOptions, Override
from pipeline.encoding.sniff.algorithm import decide
from pipeline.errors import ERROR_TYPES, ErrorType, Stage
from pipeline.rules import Rules
from pipeline.runners import worker
from pipeline.schema import RECORDS
from pipeline.sources.record import RawRecord

PACKAGE = Path(__file__).resolve().parents[2] / "pipeline"
_ERROR_LITERAL = re.compile(r"[\"']((?:source|http|encoding|extract|sink|runner)-[a-z0-9-]+)[\"']")
_SIGNAL_LITERAL = re.compile(r"Signal\(\s*[\"']([a-z0-9-]+)[\"']")


def _record(body: bytes, url: str = "http://example.com/") -> RawRecord:
    return RawRecord("x.warc", 0, len(body), "<urn:uuid:1>", "response", url,
                     "2024-01-01T00:00:00Z", body)


def test_every_error_type_starts_with_its_stage():
    stages = get_args(Stage)
    assert ERROR_TYPES == frozenset(get_args(ErrorType))
    for error_type in ERROR_TYPES:
        assert error_type.split("-")[0] in stages, error_type


def test_every_error_type_written_in_the_package_is_declared():
    # An error type spelled anywhere in the package (a string literal naming a stage) is one
    # of ErrorType; the signal kinds and notes that share a stage's prefix are told apart.
    not_errors = {"http-charset", "http-equiv", "http-status", "http-headers", "http-content-length"}
    found = set()
    for path in PACKAGE.rglob("*.py"):
        found |= set(_ERROR_LITERAL.findall(path.read_text(encoding="utf-8")))
    undeclared = found - ERROR_TYPES - not_errors
    assert not undeclared


def test_a_bug_in_a_stage_is_a_closed_error_type_naming_the_exception():
    err = worker._error(_record(b""), "extract", KeyError("x"))
    # the type is closed (no exception name in it); the message names the exception
    assert err.error_type == "extract-unexpected"
    assert err.message == "KeyError: 'x'"


def test_every_signal_kind_made_in_the_package_is_declared():
    kinds = set(get_args(decision.SignalKind))
    found = set()
    for path in (PACKAGE / "encoding").rglob("*.py"):
        found |= set(_SIGNAL_LITERAL.findall(path.read_text(encoding="utf-8")))
    assert found and found <= kinds
    # every kind a source is decided from is a kind
    assert {k for ks in decision.SOURCE_SIGNALS.values() for k in ks} <= kinds
    assert set(decision.SOURCE_SIGNALS) == set(get_args(decision.EncodingSource))


def test_the_declared_sources_are_declared_once():
    from pipeline import page_report
    from pipeline.encoding import explain
    from pipeline.encoding.sniff import algorithm

    for module in (page_report, algorithm):
        assert module.DECLARED_SOURCES is decision.DECLARED_SOURCES
        assert not hasattr(module, "_DECLARED")
    assert explain.SOURCE_SIGNALS is decision.SOURCE_SIGNALS


def test_an_xml_declaration_that_contradicts_the_header_is_a_declared_conflict():
    # The prescan's XML declaration is the signal "xml-prescan": a declaration like any other
    # (the row builder once looked for "xml-declaration" and a "late-meta" kind that no
    # step makes, so this page passed as consistent).
    body = b'<?xml version="1.0" encoding="koi8-r"?><html><p>x</p></html>'
    raw = _record(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body)
    rows = worker.process_record(raw, Rules(), "r")
    assert isinstance(rows, worker.Rows)
    assert "xml-prescan" in rows.record["encoding_signals"]
    assert rows.record["declared_conflict"] is True


def test_the_row_builder_writes_exactly_the_records_columns_in_order():
    raw = _record(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>t</title><a href=/a>a</a>")
    rows = worker.process_record(raw, Rules(), "r")
    assert isinstance(rows, worker.Rows)
    assert list(rows.record) == RECORDS.names


@pytest.mark.parametrize(("url", "expected"), [
    ("http://www.b.example/", 1),  # the second rule: its host
    ("http://a.example/x", 0),  # both rules name a.example: the first one
    ("http://c.example/", None),
], ids=["second", "first-of-equal", "none"])
def test_the_decision_carries_the_override_it_matched(url: str, expected: int | None):
    a = Override("EUC-JP", host="a.example")
    options = EncodingOptions(overrides=(a, Override("Shift_JIS", host="b.example"), a))
    assert decide(b"<p>x</p>", "text/html", url, options).override == expected


def _runner_imports() -> dict[str, set[str]]:
    """Each module of pipeline/runners/ -> the runners' modules it imports (anywhere in it,
    function bodies included: a lazy import is an edge too)."""
    folder = PACKAGE / "runners"
    names = {p.stem for p in folder.glob("*.py")} - {"__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        edges = set()
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if parts[:2] == ["pipeline", "runners"]:
                    if len(parts) > 2:
                        edges.add(parts[2])
                    else:
                        edges |= {alias.name for alias in node.names}
        graph[name] = edges & names - {name}
    return graph


def test_the_runners_modules_import_one_another_without_a_circle():
    graph = _runner_imports()
    seen: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        seen[name] = 1
        for dep in sorted(graph[name]):
            assert seen.get(dep) != 1, " -> ".join([*path, name, dep])
            if dep not in seen:
                visit(dep, [*path, name])
        seen[name] = 2

    for name in sorted(graph):
        if name not in seen:
            visit(name, [])
