"""The rules file: validation, precedence of the CLI policy, and rules_version."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.rules import RulesError, load_rules

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_are_standard_policy_and_no_overrides() -> None:
    rules = load_rules(None)
    assert rules.encoding.policy == "standard"
    assert rules.encoding.overrides == ()
    assert rules.max_decompressed == 64 * 2**20


def test_override_label_resolves_to_whatwg_name(tmp_path: Path) -> None:
    rules = load_rules(write(tmp_path, '[[encoding.override]]\nhost = "Old.Example.JP"\nencoding = "x-euc-jp"\n'))
    (override,) = rules.encoding.overrides
    # labels go through "get an encoding"; hosts are compared lowercase
    assert (override.encoding, override.host, override.mode) == ("EUC-JP", "old.example.jp", "fallback")


def test_cli_policy_beats_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[encoding]\npolicy = "repair"\n')
    assert load_rules(path).encoding.policy == "repair"
    assert load_rules(path, policy="browser").encoding.policy == "browser"


@pytest.mark.parametrize(
    "text",
    [
        '[[encoding.override]]\nhost = "a.jp"\nencoding = "utf-32"\n',  # not a WHATWG label
        '[[encoding.override]]\nencoding = "utf-8"\n',  # neither host nor url_prefix
        '[[encoding.override]]\nhost = "a"\nurl_prefix = "http://a/"\nencoding = "utf-8"\n',
        '[[encoding.override]]\nhost = "a"\nencoding = "utf-8"\nmode = "sometimes"\n',
        '[encoding]\npolicy = "guess"\n',
        '[encodings]\n',  # unknown section
        '[extract]\nno_such_option = 1\n',
        '[http]\nmax_decompressed = -1\n',
        'not toml = = =',
    ],
    ids=["bad-label", "no-target", "two-targets", "bad-mode", "bad-policy", "bad-section",
         "bad-extract-key", "bad-cap", "bad-toml"],
)
def test_bad_rules_are_refused_with_a_message(tmp_path: Path, text: str) -> None:
    with pytest.raises(RulesError):
        load_rules(write(tmp_path, text))


def test_rules_version_changes_with_the_rules(tmp_path: Path) -> None:
    base = load_rules(None).version
    assert load_rules(None).version == base  # deterministic
    changed = load_rules(write(tmp_path, '[[encoding.override]]\nhost = "a.jp"\nencoding = "sjis"\n'))
    assert changed.version != base
    assert load_rules(None, policy="browser").version != base


# --- every key typed, every unknown key refused (issue: "threshold = 'high'" emptied main text)


def _wrong_value(hint: object) -> str:
    """A TOML value of the wrong type for a field annotated ``hint``."""
    if hint is str or hint == (str | None):
        return "3"
    if hint is bool:
        return '"yes"'
    return '"high"'  # numbers, Literal choices, arrays of tables


def _every_key() -> list[tuple[str, str, object]]:
    import dataclasses
    import typing

    from pipeline.rules import FILE_KEYS, SECTIONS

    keys = []
    for section, cls in SECTIONS.items():
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            keys.append((section, FILE_KEYS.get((cls, field.name), field.name), hints[field.name]))
    return keys


@pytest.mark.parametrize(("section", "key", "hint"), _every_key(),
                         ids=[f"{s}.{k}" for s, k, _ in _every_key()])
def test_every_key_of_every_section_is_type_checked(
    tmp_path: Path, section: str, key: str, hint: object
) -> None:
    path = write(tmp_path, f"[{section}]\n{key} = {_wrong_value(hint)}\n")
    with pytest.raises(RulesError, match=rf"{section}\.{key}: expected "):
        load_rules(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[extract]\nthreshold = "high"\n', 'extract.threshold: expected a number, got a string ("high")'),
        ('[extract.max_links]\nresource = "x"\n', "extract.max_links.resource: expected an integer"),
        ("[extract]\nmax_links = -1\n", "extract.max_links: expected an integer >= 0, got -1"),
        ('[extract]\nmax_links = "5"\n', "extract.max_links: expected a table"),
        ("[extract]\nthreshold = inf\n", "extract.threshold: expected a finite number"),
        ("[extract]\ndrop_hidden = 1\n", "extract.drop_hidden: expected true or false"),
        ("[extract.max_links]\nnavigation = -1\n", "max_links.navigation"),  # the options' own range check
        ("[extract]\nprune_max_share = 2\n", "prune_max_share must be in (0, 1]"),
        ("[extract]\narticle_min_share = 1.5\n", "article_min_share must be in [0, 1]"),
        ("[encoding]\ndetector_max_bytes = 0\n", "detector_max_bytes must be >= 1"),
        ("[http]\nmax_decompressed = 0\n", "max_decompressed must be a positive"),
        ('[encoding]\ndefault_encoding = "latin-9000"\n', "encoding.default_encoding: 'latin-9000'"),
        ("encoding = 1\n", "encoding: expected a table"),
        ('[encoding.override]\nhost = "a.jp"\nencoding = "utf-8"\n',
         "encoding.override: expected an array of tables"),
        ('[[encoding.override]]\nhost = 3\nencoding = "utf-8"\n',
         "encoding.override[0].host: expected a string"),
    ],
    ids=["threshold-string", "max-links-string", "max-links-one-negative", "max-links-not-table",
         "threshold-inf", "bool-as-int",
         "max-links-negative", "share-above-1", "article-share-above-1", "detector-bytes-0", "cap-0", "default-label",
         "section-not-table", "override-not-array", "override-host-int"],
)
def test_wrong_values_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RulesError) as raised:
        load_rules(write(tmp_path, text))
    assert message in str(raised.value)
    assert str(raised.value).startswith(str(tmp_path / "rules.toml"))


@pytest.mark.parametrize(
    ("text", "where", "known"),
    [
        ('[[encoding.overrides]]\nhost = "a.jp"\nencoding = "utf-8"\n', "encoding.overrides",
         "did you mean 'override'?); known keys in encoding: default_encoding, "
         "detector_max_bytes, override, policy, second_opinion"),
        ('[[encoding.override]]\nhost = "a.jp"\nencoding = "utf-8"\nmdoe = "force"\n',
         "encoding.override[0].mdoe", "known keys in encoding.override[0]: encoding, host, mode, "
         "url_prefix"),
        ("[http]\nmax_decompresed = 1\n", "http.max_decompresed", "known keys in http: "
         "max_decompressed"),
        ("[extract]\nthreshhold = 1\n", "extract.threshhold", "did you mean 'threshold'?"),
        ("[encodings]\n", "encodings", "known sections: encoding, http, extract"),
    ],
    ids=["overrides-plural", "override-entry", "http", "extract", "section"],
)
def test_unknown_keys_at_every_level_are_refused_with_the_known_ones(
    tmp_path: Path, text: str, where: str, known: str
) -> None:
    with pytest.raises(RulesError) as raised:
        load_rules(write(tmp_path, text))
    assert f": {where}: unknown " in str(raised.value)
    assert known in str(raised.value)


@pytest.mark.parametrize("host", ["https://Shop.Example.JP/", "http://shop.example.jp",
                                  "shop.example.jp/ru/", "user@shop.example.jp", "shop example"])
def test_a_url_as_host_is_refused_with_the_host_it_meant(tmp_path: Path, host: str) -> None:
    with pytest.raises(RulesError) as raised:
        load_rules(write(tmp_path, f'[[encoding.override]]\nhost = "{host}"\nencoding = "utf-8"\n'))
    assert f"encoding.override[0].host: {host!r} is not a host name" in str(raised.value)
    if "://" in host:
        assert "write host = 'shop.example.jp', or url_prefix" in str(raised.value)


def test_a_host_with_a_port_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="no port"):
        load_rules(write(tmp_path, '[[encoding.override]]\nhost = "a.jp:8080"\nencoding = "utf-8"\n'))


def test_a_host_is_compared_lowercased_without_its_final_dot(tmp_path: Path) -> None:
    from pipeline.encoding.sniff.evidence import match_override

    rules = load_rules(write(tmp_path, '[[encoding.override]]\nhost = "Shop.Example.JP."\n'
                                       'encoding = "sjis"\n'))
    (override,) = rules.encoding.overrides
    assert override.host == "shop.example.jp"
    assert match_override(rules.encoding.overrides, "https://www.Shop.example.jp/a") is override


def test_typed_values_are_converted(tmp_path: Path) -> None:
    rules = load_rules(write(tmp_path, "[extract]\nthreshold = 90\n[extract.max_links]\nscript_string = 5\n"))
    assert rules.extract.threshold == 90.0 and isinstance(rules.extract.threshold, float)
    assert rules.extract.max_links.script_string == 5 and rules.extract.max_links.navigation == 10_000


def test_one_link_limit_applies_to_every_kind(tmp_path: Path) -> None:
    rules = load_rules(write(tmp_path, "[extract]\nmax_links = 5\n"))
    assert rules.extract.max_links.as_tuple() == (5,) * 7


def _run_with_rules(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    rules = write(tmp_path, text)
    return subprocess.run(
        [str(Path(sys.executable).parent / "redecode"), "run", str(SAMPLE / "sample.arc.gz"),
         "--out", str(tmp_path / "out"), "--rules", str(rules), "-q"],
        capture_output=True, text=True, timeout=120, check=False,
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [('[extract]\nthreshold = "high"\n', "extract.threshold"),
     ('[extract.max_links]\ncss = "x"\n', "extract.max_links.css"),
     ('[[encoding.overrides]]\nhost = "a.jp"\nencoding = "utf-8"\n', "encoding.overrides"),
     ('[[encoding.override]]\nhost = "https://Shop.Example.JP/"\nencoding = "utf-8"\n',
      "encoding.override[0].host")],
    ids=["threshold", "max-links", "overrides", "url-host"],
)
def test_redecode_run_refuses_bad_rules_before_writing(tmp_path: Path, text: str, key: str) -> None:
    result = _run_with_rules(tmp_path, text)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert key in result.stderr
    assert not (tmp_path / "out").exists()
