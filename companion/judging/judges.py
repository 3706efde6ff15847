"""One Judge per model, and the choice of model for each statement by language (issue 14).

Each model folder's config.json lists the languages it judges: those it was trained for whose
figure measured on a held part reaches the floor written beside it (issue 39 item 3). A statement
goes to the first model (the default comes first) whose languages hold the statement's language
and those of all its readable sources; a statement whose languages no model holds together goes
to a model that holds its own language (a multilingual one reads a French claim against an
English page), and failing that to the default model, which is then named in the result as the
one that judged it. A page in another language than its claim is read only where the model's
figure across that pair of languages reaches the floor too (`_checks_pair`), and the Judge then scores
it on the model's crossed scale (policy.decide_sides), the scale that figure was measured on.

Models other than the default load on first use: an English-only user never pays for the
multilingual model's memory or start-up.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..errors import ModelUnavailable
from ..model.folder import ModelConfig, default_model_dir, is_reader, load_config
from ..records import Citation, CitationJudgment, SourceResult, Statement, StatementJudgment
from ..text.language import NAMES
from .judge import Judge

__all__ = ["Judges", "model_dirs"]


def model_dirs(chosen: Path | None = None, default: Path | None = None) -> list[Path]:
    """`chosen` alone (`--model DIR`), or every shipped model folder, the default first; a cascade's
    reader (issue 37) judges nothing alone, and is loaded by the model that names it."""
    if chosen is not None:
        return [chosen]
    default = default or default_model_dir()
    found = sorted(p for p in default.parent.iterdir() if (p / "config.json").is_file() and not is_reader(p))
    return sorted(found, key=lambda p: p != default) or [default]


class Judges:
    """Hands each statement to its model's Judge; used wherever one Judge was."""

    def __init__(self, configs: Sequence[ModelConfig], build: Callable[[ModelConfig], Judge]):
        if not configs:
            raise ModelUnavailable("no model to judge with")
        self.configs = tuple(configs)
        self._build = build
        self._judges: dict[str, Judge] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_dirs(cls, dirs: Sequence[Path], build: Callable[[ModelConfig], Judge]) -> Judges:
        return cls([load_config(d) for d in dirs], build)

    @property
    def default(self) -> Judge:
        return self.judge_for(self.configs[0])

    def loaded(self) -> list[str]:
        return [c.name for c in self.configs if c.name in self._judges]

    def choose(self, statement: Statement, sources: Mapping[str, SourceResult]) -> ModelConfig:
        claim = statement.language
        pages = {s.document.language for c in statement.citations if (s := sources.get(c.url)) and s.document}
        for config in self.configs:
            if all(self._checks_pair(config, claim, page) for page in pages) and (
                claim in config.languages or (pages and claim not in pages)
            ):
                return config
        for config in self.configs:
            if claim in config.languages:
                return config
        return self.configs[0]

    def judge(self, statement: Statement, sources: Mapping[str, SourceResult]) -> StatementJudgment:
        """The statement judged by its model; `not_checked` where its language, or that of every
        readable page it cites, is one no model reads: a German claim judged by the English model
        and rules would look checked and mean nothing."""
        if statement.language not in self.languages and statement.citations:
            reason = self._not_checked_reason("the answer", statement.language)
            first: dict[str, Citation] = {}  # one judgment per cited page, as judge.py gives
            for c in statement.citations:
                first.setdefault(c.url, c)
            per = tuple(
                CitationJudgment(c, "not_checked", 0.0, 0.0, False, (), reason=reason) for c in first.values()
            )
            return StatementJudgment(statement, "not_checked", 0.0, False, per, (), (), 0)
        read, unread = self._by_language(sources)
        config = self.choose(statement, read)
        read, beyond = self._checkable(config, statement.language, read)
        unread = {**unread, **beyond}
        result = dataclasses.replace(
            self.judge_for(config).judge(statement, read), model=config.name, model_version=config.version
        )
        if not unread or not {c.url for c in statement.citations} & unread.keys():
            return result
        per = tuple(
            CitationJudgment(cj.citation, "not_checked", 0.0, 0.0, False, (), reason=unread[cj.citation.url])
            if cj.citation.url in unread
            else cj
            for cj in result.per_citation
        )
        judgment = "not_checked" if result.judgment == "inaccessible" else result.judgment
        return dataclasses.replace(result, judgment=judgment, per_citation=per)

    def elsewhere(
        self, result: StatementJudgment, sources: Mapping[str, SourceResult], cited_by: Mapping[str, Citation]
    ) -> StatementJudgment:
        if result.judgment == "not_checked" and result.statement.language not in self.languages:
            return result
        # The model that judged the statement looks for it elsewhere too: one scale per statement.
        config = next((c for c in self.configs if c.name == result.model), self.configs[0])
        read = self._checkable(config, result.statement.language, self._by_language(sources)[0])[0]
        return self.judge_for(config).elsewhere(result, read, cited_by)

    @property
    def languages(self) -> frozenset[str]:
        return frozenset(language for c in self.configs for language in c.languages)

    def _by_language(
        self, sources: Mapping[str, SourceResult]
    ) -> tuple[dict[str, SourceResult], dict[str, str]]:
        """The sources a model reads, and why each of the others was not checked."""
        read: dict[str, SourceResult] = {}
        unread: dict[str, str] = {}
        for url, source in sources.items():
            if source.document is not None and source.document.language not in self.languages:
                unread[url] = self._not_checked_reason("the page", source.document.language)
            else:
                read[url] = source
        return read, unread

    def _checkable(
        self, config: ModelConfig, claim: str, read: dict[str, SourceResult]
    ) -> tuple[dict[str, SourceResult], dict[str, str]]:
        """The pages of `read` that `config` reads a claim in `claim`'s language against, and why
        each other one was not checked."""
        kept: dict[str, SourceResult] = {}
        unread: dict[str, str] = {}
        for url, source in read.items():
            page = source.document.language if source.document else claim
            if self._checks_pair(config, claim, page):
                kept[url] = source
            else:
                unread[url] = (
                    self._not_checked_reason("the answer", claim)
                    if page == claim
                    else self._not_across(claim, page)
                )
        return kept, unread

    @staticmethod
    def _checks_pair(config: ModelConfig, claim: str, page: str) -> bool:
        """Whether `config` reads a claim in `claim` against a page in `page`. A model that
        records figures across languages reads a page in another language only where that pair's
        figure reaches its floor; one that records none reads any page in the languages it lists,
        as it always has."""
        if page == claim:
            return claim in config.languages
        if config.measures_across:
            figure = config.across(page, claim)
            return figure is not None and figure.checked
        return {claim, page} <= set(config.languages)

    def _not_across(self, claim: str, page: str) -> str:
        pair = f"the page is in {NAMES.get(page, page)} and the sentence in {NAMES.get(claim, claim)}; "
        figures = [f for c in self.configs if (f := c.across(page, claim)) is not None]
        if figures:
            best = max(figures, key=lambda f: f.figure)
            if best.checked:
                # One model judges a statement (one scale): here the one that reads this pair does
                # not read the statement's other pages, as for an English sentence citing English,
                # Spanish and Italian pages: the multilingual model reads Spanish pages against
                # English sentences but has not measured Italian ones, and the English model reads
                # neither.
                return pair + (
                    f"CiteLens reads across them ({best.shown} on held pairs) only with a model "
                    "that does not read the sentence's other pages"
                )
            return pair + (
                f"CiteLens reads across them at {best.shown} on held pairs, "
                f"under the {best.floor:.2f} it needs"
            )
        if any(c.measures_across for c in self.configs):
            return pair + "CiteLens has not measured how well it reads across them"
        return pair + "no model CiteLens ships reads both"

    def _not_checked_reason(self, what: str, language: str) -> str:
        names = sorted({NAMES.get(code, code) for code in self.languages}, key=lambda n: (n != "English", n))
        readable = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        reason = f"{what} is in {NAMES.get(language, language)}; CiteLens reads {readable}"
        # A language a model was measured on and fell short in (issue 39 item 3): say by how much.
        short = [f for c in self.configs if (f := c.figure(language)) is not None and not f.checked]
        if short:
            best = max(short, key=lambda f: f.figure)
            reason += f" (judged at {best.shown} on held pairs, under the {best.floor:.2f} it needs)"
        return reason

    def judge_for(self, config: ModelConfig) -> Judge:
        """The model's Judge, loaded on first use."""
        with self._lock:
            judge = self._judges.get(config.name)
            if judge is None:
                judge = self._judges[config.name] = self._build(config)
            return judge
