"""A CiteLens model folder (models/<name>/): what its config.json says, read without loading it.

`config.json` holds the labels in the model's own output order, the max length, the decision
thresholds and the score combiner (scripts/export_model.py and research/evaluation/calibrate.py write it).
The judging code needs only this record; companion.model.infer loads the weights themselves.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..config import DEFAULT_MODEL_NAME
from ..errors import ModelUnavailable

__all__ = [
    "Cascade",
    "Crossed",
    "LanguageFigure",
    "ModelConfig",
    "Thresholds",
    "default_model_dir",
    "is_reader",
    "load_config",
]

_KNOWN_LABELS = {"entailment", "neutral", "contradiction"}


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Decision thresholds, calibrated on held-out citation data (research/evaluation/calibrate.py)."""

    complete: float = 0.5  # combined score at or above: complete support
    partial: float = 0.25  # combined score at or above (and not complete): partial support
    claim: float = 0.5  # entailment probability at which an atomic claim counts as supported
    contradiction: float = 0.7  # contradiction probability that flags a statement contradicted
    # The model's best entailment a statement (or each of its facts) needs for complete support,
    # whatever the combined score (policy.py): coverage may say that a source is on topic, only
    # the model can say it agrees.
    entailment_floor: float = 0.05
    # The model's contradiction on a window that the `negates` rule finds negating the claim
    # (meaning.py): enough there, though below `contradiction`.
    negated_contradiction: float = 0.7
    # The model's best entailment an uncited source needs to be offered as "found elsewhere".
    elsewhere_entailment: float = 0.5
    # Complete support also needs the contradiction on that same most entailing reading under
    # this (policy.reads): fitted on NLI pairs with contradictions (research/evaluation/calibrate.py); above
    # 1, off.
    contradiction_ceiling: float = 1.01
    # One on-topic window read as contradiction at or above this vetoes complete support, whatever
    # the other windows say (policy.conflicting): fitted by research/evaluation/calibrate.py; above 1, off.
    conflict: float = 1.01
    # With a cascade (issue 37), the `contradiction` and `conflict` bars above are on the reader's
    # scale; a window the reader did not re-read keeps the fast model's reading, which is compared
    # with these, fitted on the fast model's own scale (its contradiction reads 0.94 where the
    # reader's reads 0.67; judging.policy.contradiction_bar). None: one model reads every window.
    fast_contradiction: float | None = None
    fast_conflict: float | None = None
    # A complete reading whose most entailing reading (the model's entailment) reaches this is
    # shown green ("confidence": "high"); fitted so that green is right nine times in ten on
    # citation data (research/notes/green-rule.md).
    # None: no bar was fitted, and every complete reading is "likely supported: check the quote".
    green: float | None = None


@dataclass(frozen=True, slots=True)
class LanguageFigure:
    """How well the model judges one language, measured on a held part
    (research/evaluation/language_figures.py), beside the floor written before it was measured
    (issue 39 item 3)."""

    figure: float
    floor: float
    data: str = ""
    # The lower end of the figure's 95 % interval on the same rows (issue 59 item 4): where it is
    # recorded, it decides, not the figure (a figure just over the floor on 1,000 rows reads under
    # it on the next 1,000 as often as not). None: a config written before that rule.
    lower: float | None = None

    @property
    def checked(self) -> bool:
        return (self.figure if self.lower is None else self.lower) >= self.floor

    @property
    def shown(self) -> str:
        """The figure as a person reads it beside its floor: two decimals, or three where two would
        round it onto the floor's side it is not on ("0.716, under 0.72", never "0.72, under 0.72");
        with its interval's lower end, which decides, where one is recorded ("0.722 with a 95 %
        lower bound of 0.693", never "0.722, under 0.72")."""
        if self.lower is not None:
            return f"{self.figure:.3f} with a 95 % lower bound of {self.lower:.3f}"
        two = f"{self.figure:.2f}"
        return two if (float(two) >= self.floor) == self.checked else f"{self.figure:.3f}"


@dataclass(frozen=True, slots=True)
class Cascade:
    """A stronger, slower reader that re-reads only the windows that decide a verdict (issue 37).

    The fast model reads every window and picks; the reader re-reads each cited source's
    `windows` texts (a window or the joined top sentences) the fast model reads as most
    entailing, and its `against` on-topic windows the fast model reads as most contradicting at
    `contradiction` or above; the source's best reading is then the reader's. On those
    contradicting windows the reader's reading is added beside the fast model's, not put in its
    place: either model's reading of the opposite counts, at its own bars. A source the fast
    model reads as entailing under `gate` everywhere is not re-read. The thresholds in this config
    are fitted through the cascade."""

    reader: ModelConfig  # its folder sits beside this model's; its config says "role": "reader"
    windows: int = 1
    contradiction: float = 0.5
    # Windows past it are the fast model's alone; its contradiction still counts against support.
    against: int = 1
    # A source whose every text the fast model reads as entailing under `gate` is left to it: the
    # reader is spent where a verdict of support is in reach (its reading is then never green).
    gate: float = 0.0


@dataclass(frozen=True, slots=True)
class Crossed:
    """How the model reads a claim against a page in another language (issue 39): a combiner over
    its best entailment alone and the bars on that combiner's score, fitted on the crossed
    calibration parts (research/evaluation/language_figures.py --fit-crossed).

    The lexical features (coverage, missing names and numbers) count the claim's words found on
    the page; across languages there are none to find, and the same-language weights (coverage's
    above 3) sank every crossed pair. Only `complete`, `partial` and `claim` differ from the
    model's thresholds: the contradiction bars, the entailment floor and the ceiling read the
    model's own probabilities, the same in every language."""

    weight: float  # on max_entailment_logit
    bias: float
    thresholds: Thresholds
    data: str = ""


@dataclass(frozen=True, slots=True)
class ModelConfig:
    name: str
    path: Path
    labels: tuple[str, ...]
    max_length: int = 256
    quantization: str = "int8"
    version: str = ""
    thresholds: Thresholds = field(default_factory=Thresholds)
    # Logistic combiner of NLI and lexical features: score = sigmoid(bias + weights · features).
    combiner_weights: tuple[float, ...] = ()
    combiner_bias: float = 0.0
    combiner_features: tuple[str, ...] = ()  # the names the weights were fitted to, in order
    features_version: str = ""  # combiner.features_version() of the code that fitted them
    # What a second auditor compares to know whether a difference is expected (issue 16): the
    # weights' and the config's (thresholds, combiner) SHA-256.
    onnx_sha256: str = ""
    config_sha256: str = ""
    # The languages it judges (ISO 639-1), which route statements to it: those its config offers
    # it for, less any whose measured figure is under its floor (`measured`, issue 39 item 3).
    languages: tuple[str, ...] = ("en",)
    cascade: Cascade | None = None
    measured: tuple[tuple[str, LanguageFigure], ...] = ()
    # Decision thresholds fitted on one language's own calibration part (issue 39 item 2), over
    # `thresholds`: a model reads some languages with less confidence than others.
    by_language: tuple[tuple[str, Thresholds], ...] = ()
    # Its reading of pages in another language than the claim; None: read as same-language ones.
    crossed: Crossed | None = None

    def figure(self, language: str) -> LanguageFigure | None:
        return dict(self.measured).get(language)

    def across(self, page: str, claim: str) -> LanguageFigure | None:
        """Its figure reading a claim in one language on a page in another, measured as the
        languages are (held pairs keyed "<page>-<claim>": "en-ja" is an English page, a Japanese
        claim)."""
        return self.figure(f"{page}-{claim}")

    @property
    def measures_across(self) -> bool:
        return any("-" in code for code, _ in self.measured)

    def thresholds_for(self, language: str) -> Thresholds:
        return dict(self.by_language).get(language, self.thresholds)

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "version": self.version,
            "quantization": self.quantization,
            "labels": list(self.labels),
            "max_length": self.max_length,
            "languages": list(self.languages),
            **({"language_figures": {code: f.figure for code, f in self.measured}} if self.measured else {}),
            "sha256": {"model.onnx": self.onnx_sha256, "config.json": self.config_sha256},
            **({"reader": self.cascade.reader.describe()} if self.cascade else {}),
        }


def default_model_dir() -> Path:
    """The model shipped in models/, installed as the package `companion.default_models`."""
    return Path(str(resources.files("companion.default_models") / DEFAULT_MODEL_NAME))


def is_reader(model_dir: Path) -> bool:
    """Whether the folder holds a cascade's reader, which judges nothing on its own."""
    try:
        return bool(json.loads((model_dir / "config.json").read_text("utf-8")).get("role") == "reader")
    except (OSError, ValueError, AttributeError):
        return False


def load_config(model_dir: Path) -> ModelConfig:
    path = model_dir / "config.json"
    try:
        data = path.read_bytes()
        raw = json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise ModelUnavailable(f"no model at {model_dir} (config.json missing)") from None
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read {path}: {exc}") from None
    labels = tuple(str(label).lower() for label in raw.get("labels", ()))
    # Two-label fact-checkers (entailment / neutral) are fine; contradiction then reads as 0.
    if "entailment" not in labels or not set(labels) <= _KNOWN_LABELS or len(labels) < 2:
        raise ModelUnavailable(f"{path}: labels must be entailment, neutral[, contradiction], got {labels}")
    combiner = raw.get("combiner") or {}
    measured = _measured(raw.get("language_figures"), path)
    thresholds = Thresholds(**(raw.get("thresholds") or {}))
    return ModelConfig(
        name=str(raw.get("name") or model_dir.name),
        path=model_dir,
        labels=labels,
        max_length=int(raw.get("max_length", 256)),
        quantization=str(raw.get("quantization", "none")),
        version=str(raw.get("version", "")),
        thresholds=thresholds,
        combiner_weights=tuple(float(w) for w in combiner.get("weights", ())),
        combiner_bias=float(combiner.get("bias", 0.0)),
        combiner_features=tuple(str(f) for f in combiner.get("features", ())),
        features_version=str(combiner.get("features_version", "")),
        onnx_sha256=_sha256(model_dir / "model.onnx"),
        config_sha256=hashlib.sha256(data).hexdigest(),
        languages=tuple(
            code
            for code in (str(c).lower() for c in raw.get("languages", ["en"]))
            if code not in measured or measured[code].checked
        ),
        cascade=_cascade(model_dir, raw.get("cascade"), path),
        measured=tuple(sorted(measured.items())),
        by_language=_by_language(raw.get("language_thresholds"), thresholds, path),
        crossed=_crossed(raw.get("crossed"), thresholds, path),
    )


def _measured(raw: object, path: Path) -> dict[str, LanguageFigure]:
    """`language_figures` of config.json: {"floor": F, "figures": {code: {"figure": x, "data": ...,
    "lower": y}}} ("lower", the 95 % interval's lower end, optional)."""
    if raw is None:
        return {}
    try:
        floor = float(raw["floor"])  # type: ignore[index]
        return {
            str(code).lower(): LanguageFigure(
                float(entry["figure"]),
                floor,
                str(entry.get("data", "")),
                None if entry.get("lower") is None else float(entry["lower"]),
            )
            for code, entry in raw["figures"].items()  # type: ignore[index]
        }
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ModelUnavailable(f"{path}: language_figures needs a floor and a figure per language") from None


# Only the bars on the combined score move per language; the contradiction bars stay the model's.
_PER_LANGUAGE = ("complete", "partial", "claim", "green")


def _by_language(raw: object, base: Thresholds, path: Path) -> tuple[tuple[str, Thresholds], ...]:
    """`language_thresholds` of config.json: {code: {"complete": x, "partial": y, "claim": z}}."""
    if raw is None:
        return ()
    try:
        found = {
            str(code).lower(): {k: float(v) for k, v in entry.items() if k in _PER_LANGUAGE}
            for code, entry in raw.items()  # type: ignore[attr-defined]
        }
    except (TypeError, ValueError, AttributeError):
        raise ModelUnavailable(f"{path}: language_thresholds needs numbers per language") from None
    return tuple(sorted((code, dataclasses.replace(base, **bars)) for code, bars in found.items()))


def _crossed(raw: object, base: Thresholds, path: Path) -> Crossed | None:
    """`crossed` of config.json: {"combiner": {"features": ["max_entailment_logit"], "weights":
    [w], "bias": b}, "thresholds": {"complete": x, "partial": y, "claim": z}, "data": ...}."""
    if raw is None:
        return None
    try:
        combiner = raw["combiner"]  # type: ignore[index]
        if list(combiner["features"]) != ["max_entailment_logit"] or len(combiner["weights"]) != 1:
            raise ValueError
        bars: dict[str, float | None] = {
            k: float(v)
            for k, v in raw["thresholds"].items()  # type: ignore[index]
            if k in _PER_LANGUAGE
        }
        return Crossed(
            float(combiner["weights"][0]),
            float(combiner["bias"]),
            # The crossed combiner is another scale: the model's green bar does not carry over.
            dataclasses.replace(base, **{"green": None, **bars}),  # type: ignore[arg-type]
            str(raw.get("data", "")),  # type: ignore[attr-defined]
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ModelUnavailable(
            f"{path}: crossed needs a combiner over max_entailment_logit alone and its thresholds"
        ) from None


def _cascade(model_dir: Path, raw: object, path: Path) -> Cascade | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("reader"), str) or "/" in raw["reader"]:
        raise ModelUnavailable(f"{path}: cascade needs the reader's folder name, got {raw!r}")
    if not (model_dir.parent / raw["reader"] / "config.json").is_file():
        raise ModelUnavailable(
            f"no model at {model_dir.parent / raw['reader']}: {model_dir.name} reads with it "
            "(python scripts/build_reader.py builds it)"
        )
    reader = load_config(model_dir.parent / raw["reader"])
    if reader.cascade is not None or not reader.onnx_sha256:
        raise ModelUnavailable(f"{path}: the reader {raw['reader']} must be a model folder without a cascade")
    return Cascade(
        reader,
        int(raw.get("windows", 1)),
        float(raw.get("contradiction", 0.5)),
        int(raw.get("against", 1)),
        float(raw.get("gate", 0.0)),
    )


def _sha256(path: Path) -> str:
    """The file's SHA-256, or "" when it is missing (the loader says so in its own words)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return ""
    return digest.hexdigest()
