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

    [storage]                      # where the crawl and the output live (never credentials)
    endpoint_url = "http://minio.internal:9000"

Validation, before anything runs: every key of every section is checked against the option
dataclasses' fields and type annotations (one mechanism: a new option is validated the day it
is declared), then their own range checks run; a mistake raises :class:`RulesError` naming the
key's path (``extract.max_links``, ``encoding.override[1].host``) and the known keys. An
override's ``host`` is a host name, compared lowercased with the record URL's host (as
written there: IDN hosts in their ``xn--`` form); a URL in ``host`` is refused, with the
host and the ``url_prefix`` it could have meant.

``rules_version`` is a hash of the resolved rules, the pipeline version and the versions of
the code whose answers reach a row (what the build compiled in, the libraries:
:func:`pipeline.provenance.code_versions`): any change of one makes a new, comparable run.
``[storage]`` says where data lives, not how it is decoded: it is not part of
``rules_version``.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pipeline import __version__
from pipeline.encoding.lookup import get_an_encoding
from pipeline.encoding.options import EncodingOptions, Override
from pipeline.extract.options import ExtractOptions, LinkLimits
from pipeline.provenance import code_versions
from pipeline.urlhost import url_host

POLICIES = ("standard", "browser", "repair")
DEFAULT_MAX_DECOMPRESSED = 64 * 2**20


class RulesError(ValueError):
    """The rules file is unusable (misuse: the run cannot start)."""


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """The ``[http]`` section."""

    # Cap on a decompressed body, bytes.
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED

    def __post_init__(self) -> None:
        if self.max_decompressed <= 0:
            raise ValueError("max_decompressed must be a positive number of bytes")


@dataclass(frozen=True, slots=True)
class StorageSection:
    """The ``[storage]`` section: options of the object store (S3 and S3-compatible ones).

    No credentials here: they come from the store's standard chain (environment, config
    files, instance roles). ``--storage-option`` values win over these."""

    # An S3-compatible server (default: AWS_ENDPOINT_URL, else AWS itself).
    endpoint_url: str | None = None
    # The bucket's region (default: AWS_DEFAULT_REGION / the profile's).
    region: str | None = None
    # Unsigned requests (public buckets, no credentials needed).
    anon: bool = False
    # Requester-pays buckets: the requester's account is billed for the transfer.
    requester_pays: bool = False
    # A named profile of ~/.aws/config.
    profile: str | None = None

    def to_options(self) -> dict[str, Any]:
        """The storage layer's options (``pipeline.storage``) for what is set here."""
        s3: dict[str, Any] = {}
        if self.endpoint_url is not None:
            s3["endpoint_url"] = self.endpoint_url
        if self.region is not None:
            s3["client_kwargs"] = {"region_name": self.region}
        if self.anon:
            s3["anon"] = True
        if self.requester_pays:
            s3["requester_pays"] = True
        if self.profile is not None:
            s3["profile"] = self.profile
        return {"s3": s3} if s3 else {}


#: Sections of the file and the options each one fills.
SECTIONS: dict[str, type] = {
    "encoding": EncodingOptions,
    "http": HttpOptions,
    "extract": ExtractOptions,
    "storage": StorageSection,
}
#: Where the file's key differs from the field it fills (``[[encoding.override]]`` is one
#: override per table, the field holds them all).
FILE_KEYS: dict[tuple[type, str], str] = {(EncodingOptions, "overrides"): "override"}
#: Keys whose value is a WHATWG encoding label, resolved to the encoding's name.
LABEL_KEYS = frozenset({(EncodingOptions, "default_encoding"), (Override, "encoding")})


@dataclass(frozen=True, slots=True)
class Rules:
    """Resolved options for every stage."""

    encoding: EncodingOptions = field(default_factory=EncodingOptions)
    extract: ExtractOptions = field(default_factory=ExtractOptions)
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
    source_sha256: str | None = None  # sha256 of the rules file, if one was read
    # where data lives (not in rules_version: it does not change a decoded row)
    storage: StorageSection = field(default_factory=StorageSection)
    # rules_version, computed once: it is written on every row
    _version: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        blob = json.dumps([__version__, self.to_json(), code_versions()], sort_keys=True).encode()
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
        """``rules_version``: hash of the resolved rules, the pipeline version and the code's
        versions."""
        return self._version


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple | list):
        return [_plain(v) for v in obj]
    if isinstance(obj, frozenset | set):
        return sorted(_plain(v) for v in obj)
    return obj


def _describe(hint: Any) -> str:
    """What a value of type ``hint`` looks like in TOML, for messages."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bool:
        return "true or false"
    if hint is int:
        return "an integer"
    if hint is float:
        return "a number"
    if hint is str:
        return "a string"
    if origin is Literal:
        return "one of " + ", ".join(repr(arg) for arg in args)
    if origin is tuple and dataclasses.is_dataclass(args[0]):
        return "an array of tables"
    if origin is tuple:
        return f"an array of {_describe(args[0]).removeprefix('a ').removeprefix('an ')}s"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(arg) for arg in args if arg is not type(None))
    if dataclasses.is_dataclass(hint):
        return "a table (keys: " + ", ".join(f.name for f in dataclasses.fields(hint)) + ")"
    return getattr(hint, "__name__", str(hint))


def _toml_kind(value: Any) -> str:
    kinds = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
             (list, "an array"), (dict, "a table"))
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def _convert(value: Any, hint: Any, where: str) -> Any:
    """``value`` (as TOML read it) checked against the annotation ``hint`` and converted
    (arrays to tuples, tables to their dataclass); RulesError names ``where``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        for arg in (arg for arg in args if arg is not type(None)):
            try:
                return _convert(value, arg, where)
            except RulesError:
                continue
    elif origin is tuple and isinstance(value, list):
        return tuple(_convert(item, args[0], f"{where}[{index}]")
                     for index, item in enumerate(value))
    elif dataclasses.is_dataclass(hint) and isinstance(value, dict):
        return _build(typing.cast(type, hint), value, where)
    elif hint is LinkLimits and isinstance(value, int) and not isinstance(value, bool):
        if value < 0:  # one limit for every kind
            raise RulesError(f"{where}: expected an integer >= 0, got {value}")
        return LinkLimits.uniform(value)
    elif origin is Literal:
        if value in args and type(value) in {type(arg) for arg in args}:
            return value
    elif hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise RulesError(f"{where}: expected a finite number, got {value!r}")
            return float(value)
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(hint, type) and isinstance(value, hint):
        return value
    raise RulesError(f"{where}: expected {_describe(hint)}, got {_toml_kind(value)} "
                     f"({json.dumps(value, default=str)})")


def _build(cls: type, table: dict[str, Any], where: str) -> Any:
    """An instance of the options dataclass ``cls`` from a TOML table, every key checked."""
    hints = typing.get_type_hints(cls)
    by_key = {FILE_KEYS.get((cls, f.name), f.name): f.name for f in dataclasses.fields(cls)
              if f.init}
    prefix = f"{where}." if where else ""
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in by_key:
            close = difflib.get_close_matches(key, by_key, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise RulesError(f"{prefix}{key}: unknown key{hint}; known keys in "
                             f"{where or 'the file'}: {', '.join(sorted(by_key))}")
        name = by_key[key]
        converted = _convert(value, hints[name], f"{prefix}{key}")
        if (cls, name) in LABEL_KEYS:
            converted = _encoding(converted, f"{prefix}{key}")
        values[name] = converted
    try:
        built = cls(**values)
    except (ValueError, TypeError) as exc:  # the options' own range checks
        raise RulesError(f"{where}: {exc}") from None
    return _check_override(built, where) if isinstance(built, Override) else built


def _encoding(label: str, where: str) -> str:
    encoding = get_an_encoding(label)
    if encoding is None:
        raise RulesError(f"{where}: {label!r} is not a WHATWG encoding label")
    return encoding


def _check_override(override: Override, where: str) -> Override:
    """Exactly one of host / url_prefix; a host is a host name, not a URL."""
    host, prefix = override.host, override.url_prefix
    if bool(host) == bool(prefix):
        raise RulesError(f"{where}: give exactly one of host or url_prefix")
    if host is None:
        return override
    if "://" in host or any(char in host for char in "/?#@\\") or host.split() != [host]:
        bare = host.split("://", 1)[-1].split("/", 1)[0].rpartition("@")[2].partition(":")[0]
        raise RulesError(f"{where}.host: {host!r} is not a host name; write "
                         f"host = {bare.lower()!r}, or url_prefix = {host!r} for one site part")
    if ":" in host and not host.startswith("["):
        raise RulesError(f"{where}.host: {host!r} is not a host name (no port: a host rule "
                         "matches every port)")
    # The host as the one host parser serializes a URL's host (lowercase, IDNA's ASCII
    # form, IPv6 in brackets), so that it compares equal with the record URL's.
    parsed = url_host(f"http://{host}/")
    if parsed is None:
        raise RulesError(f"{where}.host: {host!r} is not a host name (the URL Standard's host "
                         "parser refuses it)")
    return dataclasses.replace(override, host=parsed.rstrip("."))


def load_rules(path: str | Path | None = None, *, policy: str | None = None,
               raw: bytes | None = None) -> Rules:
    """Read and validate a rules file (None: defaults); ``policy`` (the CLI's) wins over the
    file's. ``raw`` is the file's content when the caller read it (from a remote store);
    ``path`` then only names it."""
    data: dict[str, Any] = {}
    digest = None
    if path is not None:
        if raw is None:
            raw = Path(path).read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        import tomllib  # (a run without a rules file does not load it)

        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise RulesError(f"{path}: not valid TOML: {exc}") from None
    where = f"{path}: " if path is not None else ""
    try:
        unknown = [key for key in data if key not in SECTIONS]
        if unknown:
            close = difflib.get_close_matches(unknown[0], SECTIONS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise RulesError(f"{unknown[0]}: unknown section{hint}; known sections: "
                             f"{', '.join(SECTIONS)}")
        sections = {name: _section(data, name) for name in SECTIONS}
        if policy is not None:
            if policy not in POLICIES:
                raise RulesError(f"--policy: expected one of {', '.join(POLICIES)}, "
                                 f"got {policy!r}")
            sections["encoding"]["policy"] = policy
        built = {name: _build(cls, sections[name], name) for name, cls in SECTIONS.items()}
    except RulesError as exc:
        raise RulesError(f"{where}{exc}") from None
    return Rules(encoding=built["encoding"], extract=built["extract"],
                 max_decompressed=built["http"].max_decompressed, source_sha256=digest,
                 storage=built["storage"])


def rules_from_json(data: dict[str, Any]) -> Rules:
    """The rules a run recorded (:meth:`Rules.to_json`, kept in its config), rebuilt and
    validated as a rules file is; :class:`RulesError` when they do not validate (rules of
    another version of the pipeline)."""
    if not isinstance(data, dict):
        raise RulesError("recorded rules: expected a table")
    data = _without_nulls(data)  # TOML has no null: an unset option is an absent key
    encoding = dict(data.get("encoding", {}))
    encoding["override"] = encoding.pop("overrides", [])
    built = {
        "encoding": _build(EncodingOptions, encoding, "encoding"),
        "extract": _build(ExtractOptions, dict(data.get("extract", {})), "extract"),
        "http": _build(HttpOptions, dict(data.get("http", {})), "http"),
    }
    return Rules(encoding=built["encoding"], extract=built["extract"],
                 max_decompressed=built["http"].max_decompressed)


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise RulesError(f"{name}: expected a table, got {_toml_kind(value)}")
    return dict(value)
