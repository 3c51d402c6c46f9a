"""The rules file: validation, precedence of the CLI policy, and rules_version."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.rules import RulesError, load_rules


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
