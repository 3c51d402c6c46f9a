"""The rules file (``--rules rules.toml``): one resolver for every stage's options.

Format::

    [encoding]
    policy = "standard"            # standard | browser | repair
    second_opinion = false

    [[encoding.override]]          # operator's table for sites that lie or declare nothing
    host = "legacy.example.jp"     # host and its subdomains (or url_prefix = "http://x/y/")
    encoding = "EUC-JP"            # any WHATWG label
    mode = "fallback"              # fallback: only when undeclared | force: beats declarations

    [http]
    max_decompressed = 67108864

    [extract]                      # ExtractContent options (pipeline.extract.options)
    threshold = 80

``rules_version`` is a hash of the resolved rules plus the pipeline version: any change of
either makes a new, comparable run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.encoding.lookup import get_an_encoding
from pipeline.encoding.options import EncodingOptions, Override
from pipeline.extract.options import ExtractOptions

POLICIES = ("standard", "browser", "repair")
DEFAULT_MAX_DECOMPRESSED = 64 * 2**20


class RulesError(ValueError):
    """The rules file is unusable (misuse: the run cannot start)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Resolved options for every stage."""

    encoding: EncodingOptions = field(default_factory=EncodingOptions)
    extract: ExtractOptions = field(default_factory=ExtractOptions)
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
    source_sha256: str | None = None  # sha256 of the rules file, if one was read
    # rules_version, computed once: it is written on every row
    _version: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        blob = json.dumps([__version__, self.to_json()], sort_keys=True).encode()
        object.__setattr__(self, "_version", f"{__version__}+{hashlib.sha256(blob).hexdigest()[:12]}")

    def to_json(self) -> dict[str, Any]:
        """The resolved rules as plain JSON (what ``rules_version`` hashes)."""
        return {
            "encoding": _plain(self.encoding),
            "extract": _plain(self.extract),
            "http": {"max_decompressed": self.max_decompressed},
        }

    @property
    def version(self) -> str:
        """``rules_version``: hash of the resolved rules and the pipeline version."""
        return self._version


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple | list):
        return [_plain(v) for v in obj]
    if isinstance(obj, frozenset | set):
        return sorted(_plain(v) for v in obj)
    return obj


def _override(entry: dict[str, Any], where: str) -> Override:
    unknown = set(entry) - {"host", "url_prefix", "encoding", "mode"}
    if unknown:
        raise RulesError(f"{where}: unknown keys {sorted(unknown)}")
    label = entry.get("encoding")
    encoding = get_an_encoding(label) if isinstance(label, str) else None
    if encoding is None:
        raise RulesError(f"{where}: encoding {label!r} is not a WHATWG label")
    host, prefix = entry.get("host"), entry.get("url_prefix")
    if bool(host) == bool(prefix):
        raise RulesError(f"{where}: give exactly one of host or url_prefix")
    mode = entry.get("mode", "fallback")
    if mode not in ("fallback", "force"):
        raise RulesError(f"{where}: mode must be 'fallback' or 'force', not {mode!r}")
    return Override(
        encoding=encoding,
        host=host.lower().rstrip(".") if host else None,
        url_prefix=prefix,
        mode=mode,
    )


def _options(cls: type, table: dict[str, Any], where: str) -> Any:
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(table) - names
    if unknown:
        raise RulesError(f"{where}: unknown keys {sorted(unknown)} (known: {sorted(names)})")
    defaults = cls()
    values = {}
    for key, value in table.items():
        current = getattr(defaults, key)
        if isinstance(current, tuple) and isinstance(value, list):
            value = tuple(value)
        values[key] = value
    return cls(**values)


def load_rules(path: str | Path | None = None, *, policy: str | None = None) -> Rules:
    """Read and validate a rules file (None: defaults); ``policy`` (the CLI's) wins over the file's."""
    data: dict[str, Any] = {}
    digest = None
    if path is not None:
        raw = Path(path).read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise RulesError(f"{path}: not valid TOML: {exc}") from None
    unknown = set(data) - {"encoding", "http", "extract"}
    if unknown:
        raise RulesError(f"unknown sections {sorted(unknown)}")
    enc = dict(data.get("encoding", {}))
    overrides = tuple(
        _override(entry, f"encoding.override[{i}]")
        for i, entry in enumerate(enc.pop("override", []))
    )
    if policy is not None:
        enc["policy"] = policy
    if enc.get("policy", "standard") not in POLICIES:
        raise RulesError(f"policy must be one of {POLICIES}, not {enc.get('policy')!r}")
    encoding = _options(EncodingOptions, enc, "encoding")
    encoding = dataclasses.replace(encoding, overrides=overrides)
    extract = _options(ExtractOptions, dict(data.get("extract", {})), "extract")
    http = dict(data.get("http", {}))
    max_dec = http.pop("max_decompressed", DEFAULT_MAX_DECOMPRESSED)
    if http:
        raise RulesError(f"http: unknown keys {sorted(http)}")
    if not isinstance(max_dec, int) or max_dec <= 0:
        raise RulesError("http.max_decompressed must be a positive integer")
    return Rules(encoding=encoding, extract=extract, max_decompressed=max_dec, source_sha256=digest)
