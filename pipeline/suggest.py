"""Rules learned from a run (``redecode suggest-rules``): pool each host's pages, and each URL
prefix's where one host serves several encodings, and propose the ``[[encoding.override]]``
entries the evidence supports.

The evidence is what every record row keeps (``sql/int_rule_evidence.sql``): the page's own
declaration (``encoding_declared``), what its bytes alone decode as (``encoding_bytes``), on
what evidence (valid UTF-8 and byte patterns are *certain*; a detector's answer is as strong
as the non-ASCII bytes it read, ``encoding_bytes_weight``), which other single-byte
encodings read the same bytes alike (``encoding_bytes_alike``: a short Hungarian page
without "ő" or "ű" reads the same in windows-1250 and windows-1252), and what the run
decided. Long pages say plainly what they are; the short pages of the same host are decided
by what the long ones say.

A scope (a host with its subdomains, or a URL prefix) gets a rule for encoding ``E`` when:

- its pages vote for ``E``: a page's vote weighs as much as its evidence (a certain page
  :data:`VOTE_CAP`, a detector's answer its non-ASCII bytes, up to that cap) and goes to
  every encoding that reads its bytes as its answer does; at least :data:`MIN_AGREEMENT`
  of the weight is for ``E``, and at least ``min_pages`` pages with *strong* evidence
  (certain, or :data:`STRONG_WEIGHT` non-ASCII bytes read) are among them;
- the rule would change the text of at least one page (a scope whose pages read as the
  evidence says needs none);
- it changes no page whose declaration its bytes agree with (strongly), and no page whose
  bytes are certain of another encoding.

The mode is ``force`` when one of the scope's declarations is contradicted by its own bytes
(a page declares ``D`` and its bytes say ``E`` strongly, not ``D``), else ``fallback`` (the
rule decides only what declares nothing). A host that fails is split by its URLs' first path
segment, each prefix judged alone. A scope with pages a rule would change that fails a
condition is listed as *not proposed*, with the reason.

``holdout`` learns on part of each host's pages (a hash of the record id picks them) and
reports, on the rest, how many pages the rules would change and what their bytes say.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, cast

import duckdb

from pipeline.encoding.options import Override

#: Share of a scope's vote weight that the rule's encoding needs. Below it the scope mixes
#: encodings (or the detector is wrong on too many of its pages). Fitted with
#: bench/rules_bench.py on the fit crawl.
MIN_AGREEMENT = 0.9
#: A detector's answer on at least this many non-ASCII bytes is strong evidence (a page
#: that can count towards ``min_pages`` and whose agreement with its declaration blocks a
#: rule). Fitted with bench/rules_bench.py on the fit crawl.
STRONG_WEIGHT = 32
#: The vote of one page: certain evidence weighs this much, a detector's answer its
#: non-ASCII bytes up to it (the detector reads at most 2,048: ``DETECTOR_MAX_NON_ASCII``).
VOTE_CAP = 2048
#: Pages with strong byte evidence a rule needs at least (``--min-pages``).
DEFAULT_MIN_PAGES = 2
#: Example URLs kept per proposal.
EXAMPLES = 2
#: Encodings that read ASCII bytes as something else: a rule for one changes ASCII pages too.
_NOT_ASCII_COMPATIBLE = frozenset({"UTF-16LE", "UTF-16BE", "ISO-2022-JP", "replacement"})

Mode = Literal["fallback", "force"]
#: How much the bytes of a page say: certain (valid UTF-8, a byte pattern), strong (a
#: detector's answer on enough bytes), weak (on fewer), none (ASCII only).
Strength = Literal["certain", "strong", "weak", "none"]


@dataclass(frozen=True, slots=True)
class Group:
    """Pages of one run that share every piece of evidence (one aggregated row)."""

    host: str
    url_prefix: str
    declared: str | None
    bytes_encoding: str | None
    alike: frozenset[str]  # other encodings that read the bytes as bytes_encoding does
    strength: Strength
    encoding: str
    has_bom: bool
    covered: bool  # matched by one of the current rules
    held_out: bool
    pages: int
    weight: int  # the pages' votes
    urls: tuple[str, ...]

    def reads_as(self, encoding: str) -> bool:
        """Whether ``encoding`` reads these pages' bytes as their evidence says."""
        return encoding == self.bytes_encoding or encoding in self.alike

    def changed_by(self, encoding: str, mode: Mode) -> bool:
        """Whether a rule (``encoding``, ``mode``) would change these pages' text."""
        if self.has_bom or (mode == "fallback" and self.declared is not None):
            return False
        if self.encoding == encoding:
            return False
        if self.bytes_encoding is None:  # ASCII only: the same text under either
            return encoding in _NOT_ASCII_COMPATIBLE or self.encoding in _NOT_ASCII_COMPATIBLE
        return not (self.reads_as(encoding) and self.reads_as(self.encoding))


@dataclass(frozen=True, slots=True)
class Effect:
    """What a rule would do to a set of pages."""

    pages: int = 0  # pages in the rule's reach
    strong: int = 0  # of them, with certain or strong byte evidence
    agreeing: int = 0  # ... whose bytes the rule's encoding reads as they say
    changed: int = 0  # pages whose text the rule would change
    changed_agreeing: int = 0  # ... whose bytes say the rule's encoding strongly
    changed_weak: int = 0  # ... whose bytes say it weakly
    changed_against: int = 0  # ... whose bytes say another encoding strongly
    changed_weak_other: int = 0  # ... whose bytes say another encoding weakly
    changed_ascii: int = 0  # ... whose bytes say nothing (ASCII only)
    contradicted: int = 0  # declarations their own bytes contradict (and say the rule's)
    kept_declared: int = 0  # pages changed whose declaration their bytes agree with
    against_certain: int = 0  # pages changed whose bytes are certain of another encoding
    declared: dict[str, int] = field(default_factory=dict)  # declared encoding -> pages
    examples: tuple[str, ...] = ()  # URLs of pages it would change

    @property
    def support(self) -> float:
        """Agreeing pages per page with strong byte evidence."""
        return self.agreeing / self.strong if self.strong else 0.0


@dataclass(frozen=True, slots=True)
class Proposal:
    """A rule the evidence supports, and what it would do."""

    override: Override
    effect: Effect
    weight_share: float  # share of the scope's vote weight for the rule's encoding
    held_out: Effect | None = None  # on the held-out pages (``holdout``)

    @property
    def where(self) -> str:
        """``host = x`` or ``url_prefix = y``."""
        o = self.override
        return f"host = {o.host}" if o.host is not None else f"url_prefix = {o.url_prefix}"


#: Why a scope gets no rule: too few pages say it, its pages disagree, or the rule would
#: change pages it must not.
Refusal = Literal["evidence", "disagree", "harm"]


@dataclass(frozen=True, slots=True)
class NotProposed:
    """A host or prefix whose pages a rule would change, and why none is proposed."""

    where: str
    kind: Refusal
    reason: str
    pages: int


@dataclass(frozen=True, slots=True)
class Suggestion:
    """Everything ``suggest-rules`` found for one run."""

    run_id: str
    proposals: tuple[Proposal, ...]
    not_proposed: tuple[NotProposed, ...]
    min_pages: int
    holdout: float | None
    pages: int  # records looked at (learning part)
    held_out_pages: int

    def held_out_total(self) -> Effect:
        """The held-out effect of every proposal, summed."""
        return _sum(p.held_out for p in self.proposals if p.held_out is not None)


#: Each record's strength and vote, and whether it is held out: each host's pages in the
#: order of their record ids' hashes, the first ``$holdout`` of them (a fixed share of every
#: host, the same pages every time).
_EVIDENCE = """
    select
        *,
        case
            when encoding_bytes is null then 'none'
            when encoding_bytes_evidence in ('utf8', 'pattern') then 'certain'
            when coalesce(encoding_bytes_weight, 0) >= $strong then 'strong'
            else 'weak'
        end as strength,
        case
            when encoding_bytes is null then 0
            when encoding_bytes_evidence in ('utf8', 'pattern') then $cap
            else least(coalesce(encoding_bytes_weight, 0), $cap)
        end as vote,
        row_number() over (partition by host order by md5(record_id), record_id)
            <= round($holdout * count(*) over (partition by host)) as held_out
    from int_rule_evidence
    where host is not null
"""


def held_out_records(con: duckdb.DuckDBPyConnection, holdout: float) -> set[str]:
    """The record ids :func:`gather` holds out of the selected run for ``holdout``."""
    rows = con.execute(f"select record_id from ({_EVIDENCE}) where held_out",
                       {"strong": STRONG_WEIGHT, "cap": VOTE_CAP, "holdout": holdout}).fetchall()
    return {record_id for (record_id,) in rows}


def gather(con: duckdb.DuckDBPyConnection, current: tuple[Override, ...],
           holdout: float | None) -> list[Group]:
    """The selected run's evidence, aggregated (``int_rule_evidence``); ``current`` rules
    mark what they cover, ``holdout`` which pages are held out."""
    if holdout is not None and not 0 < holdout < 1:
        raise ValueError(f"--holdout {holdout}: a fraction between 0 and 1 (exclusive)")
    con.execute("create or replace temp table current_rules (host varchar, url_prefix varchar)")
    if current:
        con.executemany("insert into current_rules values (?, ?)",
                        [(o.host, o.url_prefix) for o in current])
    rows = con.execute(
        f"""
        with evidence as ({_EVIDENCE})
        select
            host, url_prefix, encoding_declared, encoding_bytes,
            coalesce(encoding_bytes_alike, ''), strength, encoding, bom is not null,
            exists (
                select 1 from current_rules as c
                where (c.host is not null
                       and (e.host = c.host or ends_with(e.host, '.' || c.host)))
                   or (c.url_prefix is not null and starts_with(e.url, c.url_prefix))
            ) as covered,
            held_out,
            count(*) as pages,
            sum(vote) as weight,
            min(url) as first_url,
            max(url) as last_url
        from evidence as e
        group by all
        order by all
        """,
        {"strong": STRONG_WEIGHT, "cap": VOTE_CAP, "holdout": holdout or 0.0},
    ).fetchall()
    return [Group(host, prefix or "", declared, bytes_, frozenset(filter(None, alike.split(","))),
                  strength, encoding, bom, covered, held, pages, int(weight or 0),
                  tuple(dict.fromkeys((first, last))))
            for (host, prefix, declared, bytes_, alike, strength, encoding, bom, covered,
                 held, pages, weight, first, last) in rows]


def effect(groups: Iterable[Group], encoding: str, mode: Mode) -> Effect:
    """What a rule for ``encoding`` in ``mode`` would do to ``groups``."""
    counts: Counter[str] = Counter()
    declared: Counter[str] = Counter()
    examples: list[str] = []
    for g in groups:
        counts["pages"] += g.pages
        strong = g.strength in ("certain", "strong")
        if strong:
            counts["strong"] += g.pages
            counts["agreeing"] += g.pages if g.reads_as(encoding) else 0
        if g.declared is not None and not g.has_bom:
            declared[g.declared] += g.pages
            if strong and g.reads_as(encoding) and not g.reads_as(g.declared):
                counts["contradicted"] += g.pages
        if not g.changed_by(encoding, mode):
            continue
        counts["changed"] += g.pages
        if g.bytes_encoding is None:
            counts["changed_ascii"] += g.pages
        elif g.reads_as(encoding):
            counts["changed_agreeing" if strong else "changed_weak"] += g.pages
        else:
            counts["changed_against" if strong else "changed_weak_other"] += g.pages
            if g.strength == "certain":
                counts["against_certain"] += g.pages
        if strong and g.declared is not None and g.reads_as(g.declared):
            counts["kept_declared"] += g.pages
        examples.extend(url for url in g.urls if url not in examples)
    return Effect(declared=dict(declared.most_common()), examples=tuple(examples[:EXAMPLES]),
                  **cast(dict[str, Any], counts))


def _sum(effects: Iterable[Effect]) -> Effect:
    total: Counter[str] = Counter()
    for e in effects:
        total.update({name: getattr(e, name) for name in _COUNTED})
    return Effect(**cast(dict[str, Any], total))


_COUNTED = ("pages", "strong", "agreeing", "changed", "changed_agreeing", "changed_weak",
            "changed_against", "changed_weak_other", "changed_ascii", "contradicted",
            "kept_declared", "against_certain")


def _vote(own: list[Group]) -> tuple[str, int, int] | None:
    """The encoding the pages' votes name (each vote goes to every encoding that reads the
    page as its evidence says), its weight and the total weight; None without evidence."""
    votes: Counter[str] = Counter()
    total = 0
    for g in own:
        if g.bytes_encoding is None or not g.weight:
            continue
        total += g.weight
        for name in (g.bytes_encoding, *g.alike):
            votes[name] += g.weight
    if not votes:
        return None
    # ties: the encoding more pages name as their own answer, then by name (stable)
    named = Counter({g.bytes_encoding: 0 for g in own if g.bytes_encoding})
    for g in own:
        if g.bytes_encoding is not None:
            named[g.bytes_encoding] += g.pages
    encoding = max(votes, key=lambda name: (votes[name], named.get(name, 0), name))
    return encoding, votes[encoding], total


def _judge(where: str, own: list[Group], reach: list[Group], min_pages: int,
           make: Callable[[str, Mode], Override]) -> Proposal | NotProposed | None:
    """The rule for one scope (``own``: its pages; ``reach``: every page a rule for it would
    match), a reason not to propose one, or None when its pages need none."""
    voted = _vote(own)
    if voted is None:
        return None
    encoding, weight, total = voted
    mode: Mode = "force" if effect(reach, encoding, "force").contradicted else "fallback"
    result = effect(reach, encoding, mode)
    if not result.changed:
        return None  # every page reads as the evidence says already
    if weight < MIN_AGREEMENT * total:
        return NotProposed(where, "disagree", f"its pages disagree: {weight / total:.0%} of "
                           f"the evidence reads as {encoding}, below {MIN_AGREEMENT:.0%}",
                           result.pages)
    strong_for = effect(own, encoding, mode).agreeing
    if strong_for < min_pages:
        return NotProposed(where, "evidence", f"{strong_for} page(s) with strong byte "
                           f"evidence read as {encoding} (--min-pages {min_pages})",
                           result.pages)
    if result.kept_declared:
        return NotProposed(where, "harm", f"a {mode} rule for {encoding} would change "
                           f"{result.kept_declared} page(s) whose declaration their bytes "
                           "agree with", result.pages)
    if result.against_certain:
        return NotProposed(where, "harm", f"a {mode} rule for {encoding} would change "
                           f"{result.against_certain} page(s) whose bytes are certain of "
                           "another encoding", result.pages)
    return Proposal(make(encoding, mode), result, weight / total)


def propose(groups: list[Group], *, min_pages: int = DEFAULT_MIN_PAGES,
            holdout: float | None = None, run_id: str = "") -> Suggestion:
    """The rules ``groups`` support (see the module docstring), learned on the pages that
    are not held out, each checked on the held-out ones."""
    if min_pages < 1:
        raise ValueError(f"--min-pages {min_pages}: at least 1")
    learn = [g for g in groups if not g.held_out and not g.covered]
    by_host: dict[str, list[Group]] = defaultdict(list)
    for g in learn:
        by_host[g.host].append(g)
    # a host rule reaches the host's subdomains too
    below: dict[str, list[str]] = defaultdict(list)
    for host in by_host:
        labels = host.split(".")
        for cut in range(1, len(labels)):
            below[".".join(labels[cut:])].append(host)
    proposals: list[Proposal] = []
    skipped: list[NotProposed] = []
    for host in sorted(by_host):
        own = by_host[host]
        reach = own + [g for sub in below.get(host, ()) for g in by_host[sub]]
        verdict = _judge(f"host {host}", own, reach, min_pages, _rule_for(host=host))
        if isinstance(verdict, NotProposed) and verdict.kind != "evidence":
            split = _by_prefix(own, min_pages)
            if split:
                proposals += [p for p in split if isinstance(p, Proposal)]
                skipped += [p for p in split if isinstance(p, NotProposed)]
                continue
        if isinstance(verdict, Proposal):
            proposals.append(verdict)
        elif isinstance(verdict, NotProposed):
            skipped.append(verdict)
    if holdout is not None:
        kept = [g for g in groups if g.held_out and not g.covered]
        proposals = [Proposal(p.override, p.effect, p.weight_share, effect(
            (g for g in kept if _matches(p.override, g)), p.override.encoding, p.override.mode))
            for p in proposals]
    # the most specific first: a prefix before its host, a subdomain before its parent
    proposals.sort(key=lambda p: (p.override.url_prefix is None,
                                  -len(p.override.url_prefix or p.override.host or ""),
                                  p.override.url_prefix or p.override.host or ""))
    return Suggestion(
        run_id=run_id, proposals=tuple(proposals), not_proposed=tuple(skipped),
        min_pages=min_pages, holdout=holdout,
        pages=sum(g.pages for g in groups if not g.held_out),
        held_out_pages=sum(g.pages for g in groups if g.held_out),
    )


def _by_prefix(own: list[Group], min_pages: int) -> list[Proposal | NotProposed]:
    """The verdicts of a mixed host's URL prefixes ([] when it has fewer than two)."""
    by_prefix: dict[str, list[Group]] = defaultdict(list)
    for g in own:
        by_prefix[g.url_prefix].append(g)
    if len([p for p in by_prefix if p]) < 2:
        return []
    found: list[Proposal | NotProposed] = []
    for prefix, groups in sorted(by_prefix.items()):
        if not prefix:
            continue  # pages at the host's root: no prefix separates them
        verdict = _judge(f"url_prefix {prefix}", groups, groups, min_pages,
                         _rule_for(url_prefix=prefix))
        if verdict is not None:
            found.append(verdict)
    return found


def _rule_for(*, host: str | None = None, url_prefix: str | None = None
              ) -> Callable[[str, Mode], Override]:
    """What makes the override of one scope, given its encoding and mode."""

    def make(encoding: str, mode: Mode) -> Override:
        return Override(encoding, host=host, url_prefix=url_prefix, mode=mode)

    return make


def _matches(override: Override, group: Group) -> bool:
    """Whether the proposed ``override`` matches the pages of ``group`` (a proposed prefix
    is always one page group's first-segment prefix)."""
    if override.host is not None:
        return group.host == override.host or group.host.endswith("." + override.host)
    return group.url_prefix == override.url_prefix


def run_overrides(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[Override, ...]:
    """The overrides run ``run_id`` was made with (its ``runs`` row's config); () when it
    recorded none or they no longer validate."""
    from pipeline.rules import RulesError, rules_from_json

    row = con.execute("select config from runs where run_id = ?", [run_id]).fetchone()
    if row is None or row[0] is None:
        return ()
    try:
        return rules_from_json(json.loads(row[0]).get("rules", {})).encoding.overrides
    except (RulesError, ValueError, AttributeError):
        return ()


def for_selected_run(con: duckdb.DuckDBPyConnection) -> Suggestion:
    """What ``suggest-rules`` proposes for the connection's selected run (its own rules
    current): the audits and the report show it."""
    (run_id,) = con.execute("select run_id from int_selected_run").fetchone() or (None,)
    if run_id is None:
        return propose([], run_id="")
    return propose(gather(con, run_overrides(con, run_id), None), run_id=run_id)


def proposals_table(suggestion: Suggestion) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The proposals as a table: columns, rows (where, encoding, mode, pages changed, pages
    with strong evidence for it, support)."""
    columns = ["rule", "encoding", "mode", "would_change", "strong_pages", "support"]
    rows = [(p.where, p.override.encoding, p.override.mode, p.effect.changed,
             p.effect.agreeing, round(p.weight_share, 2)) for p in suggestion.proposals]
    return columns, rows


# ---------------------------------------------------------------------------------------
# Output


def _toml_string(value: str) -> str:
    # A JSON string is a TOML basic string (the same escapes, \uXXXX included).
    return json.dumps(value, ensure_ascii=False)


def _comment(text: str) -> str:
    return "# " + text.replace("\r", "\\r").replace("\n", "\\n")


def _describe(effect_: Effect, encoding: str, share: float) -> list[str]:
    declared = ", ".join(f"{name} {count}" for name, count in effect_.declared.items())
    return [
        f"{effect_.pages} pages, {effect_.strong} with strong byte evidence: "
        f"{effect_.agreeing} read as {encoding}, {effect_.strong - effect_.agreeing} not; "
        f"support {share:.2f} (share of the evidence's weight)",
        f"declared: {declared or 'nothing'}"
        + (f"; {effect_.contradicted} declarations contradicted by their bytes"
           if effect_.contradicted else ""),
        f"would change {effect_.changed} pages ({effect_.changed_agreeing} whose bytes say "
        f"{encoding} strongly, {effect_.changed_weak} weakly, {effect_.changed_weak_other} "
        f"weakly another, {effect_.changed_ascii} ASCII only)",
    ]


def to_toml(suggestion: Suggestion, current_text: str | None = None,
            current_name: str | None = None) -> str:
    """A rules file: the current rules file's text as it is, then every proposal with its
    evidence in comments, then what was not proposed and why."""
    lines = [
        _comment(f"Rules proposed by redecode suggest-rules from run {suggestion.run_id} "
                 f"({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)"),
        _comment(f"A rule needs >= {suggestion.min_pages} pages whose bytes read as its "
                 f"encoding strongly and >= {MIN_AGREEMENT:.0%} of its pages' evidence; it "
                 "never changes a page whose declaration its bytes agree with, nor one whose "
                 "bytes are certain of another encoding."),
    ]
    if suggestion.holdout is not None:
        total = suggestion.held_out_total()
        lines += [
            _comment(f"Learned on {suggestion.pages} pages; checked on {suggestion.held_out_pages}"
                     f" held out ({suggestion.holdout:.0%} of each host's): the rules would "
                     f"change {total.changed}, of which {total.changed_agreeing} to what their "
                     f"bytes say strongly, {total.changed_weak} weakly, "
                     f"{total.changed_weak_other} where they weakly say another encoding, "
                     f"{total.changed_against} against what they say strongly, "
                     f"{total.changed_ascii} ASCII only."),
        ]
    if current_text is not None:
        lines += ["", _comment(f"--- the current rules ({current_name}) ---"),
                  current_text.rstrip("\n")]
    lines += ["", _comment(f"--- proposed: {len(suggestion.proposals)} ---")]
    for proposal in suggestion.proposals:
        o = proposal.override
        lines.append("")
        lines += [_comment(f"{proposal.where}: {text}") if i == 0 else _comment(text)
                  for i, text in enumerate(_describe(proposal.effect, o.encoding, proposal.weight_share))]
        if proposal.held_out is not None:
            held = proposal.held_out
            lines.append(_comment(
                f"held out: {held.pages} pages, would change {held.changed} "
                f"({held.changed_agreeing} to what their bytes say strongly, "
                f"{held.changed_against} against them)"))
        if proposal.effect.examples:
            lines.append(_comment("e.g. " + ", ".join(proposal.effect.examples)))
        key = "host" if o.host is not None else "url_prefix"
        lines += [
            "[[encoding.override]]",
            f"{key} = {_toml_string(o.host if o.host is not None else o.url_prefix or '')}",
            f"encoding = {_toml_string(o.encoding)}",
            f"mode = {_toml_string(o.mode)}",
        ]
    if suggestion.not_proposed:
        lines += ["", _comment(f"--- not proposed: {len(suggestion.not_proposed)} ---")]
        lines += [_comment(f"{item.where} ({item.pages} pages): {item.reason}")
                  for item in suggestion.not_proposed]
    return "\n".join(lines) + "\n"


def _effect_json(e: Effect) -> dict[str, Any]:
    return {name: getattr(e, name) for name in _COUNTED} | {
        "support": round(e.support, 4), "declared": e.declared, "examples": list(e.examples)}


def to_json(suggestion: Suggestion) -> dict[str, Any]:
    """The suggestion as plain JSON."""
    return {
        "run_id": suggestion.run_id,
        "min_pages": suggestion.min_pages,
        "min_agreement": MIN_AGREEMENT,
        "strong_weight": STRONG_WEIGHT,
        "holdout": suggestion.holdout,
        "pages": suggestion.pages,
        "held_out_pages": suggestion.held_out_pages,
        "proposed": [
            {"host": p.override.host, "url_prefix": p.override.url_prefix,
             "encoding": p.override.encoding, "mode": p.override.mode,
             "support": round(p.weight_share, 4), "evidence": _effect_json(p.effect),
             "held_out": _effect_json(p.held_out) if p.held_out is not None else None}
            for p in suggestion.proposals
        ],
        "not_proposed": [{"where": n.where, "kind": n.kind, "reason": n.reason, "pages": n.pages}
                         for n in suggestion.not_proposed],
        "held_out_total": (_effect_json(suggestion.held_out_total())
                           if suggestion.holdout is not None else None),
    }
