"""The model card written beside a saved normalizer (`MODEL_CARD.md`, and its facts under `card` in
`normalizer.json`): what it was trained on (the build manifest's inputs with their sha256), its dev figures,
the data's licence, intended use, limitations and the versions that made it — in the spirit of Hugging Face's
model cards, so a normalizer can be shared and judged without its author."""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any

CARD = "MODEL_CARD.md"
#: What the card says of data from Google's text normalization corpus (the conservative reading).
CORPUS_LICENCE = ("CC BY-SA 4.0: the Sproat & Jaitly corpus is Wikipedia-derived text verbalized by Google's "
                  "Kestrel; a model trained on it is shared under the same terms here (conservative reading)")
SAMPLE_LICENCE = "Apache-2.0: tnforge's bundled sample, written by the tnforge authors (tnforge/data/README.md)"

INTENDED_USE = (
    "Reading English written text aloud in a text-to-speech front end: raw text is tokenized like the corpus, "
    "each token's class is tagged, and each token is read within the readings the covering grammar licenses for "
    "its likely classes (numbers, money, measures, dates, times and other semiotic classes).")
LIMITATIONS = (
    "English only, in the corpus's conventions (American spellings, `sil` for pauses).",
    "Classes the training data barely holds (MONEY, TELEPHONE, FRACTION, ELECTRONIC in small samples) are often "
    "read wrong, within what the grammar licenses for the tagged class.",
    "The grammar guards meaning only for the class the tagger gives: a token tagged in the wrong class can still "
    "be read in a way the text does not say (`tnforge evaluate --raw` counts these).",
    "ELECTRONIC tokens (URLs, e-mail addresses) have no covering grammar: they are read by the model or spelt.",
)


def card_facts(root: Path, manifest: dict[str, Any], tagger: dict[str, Any]) -> dict[str, Any]:
    """The card's facts: training data, dev figures, licence, versions (JSON-ready); `tagger`: the tagger's
    description (its `tagger.json`)."""
    from tnforge.trainers.training.checkpoints import read_payload

    payload = read_payload(root / manifest["model"]["file"])
    config = payload.get("config") or {}
    data = _training_data(str(config.get("data") or ""))
    return {
        "model": {"family": manifest["model"]["family"], "model_config": payload.get("model_config"),
                  "dev": _scalars((payload.get("metrics") or {}).get("dev")), "seed": config.get("seed")},
        "tagger": {split: _scalars((tagger.get("metrics") or {}).get(split)) for split in ("dev", "test")}
        | {"calibrated": manifest["tagger"].get("calibrated")},
        "training_data": data,
        "licence": data["licence"],
        "guarded": manifest["grammar"]["enabled"],
        "versions": {"tnforge": manifest["tnforge_version"], "torch": payload.get("torch_version"),
                     "xgboost": manifest["tagger"].get("xgboost"), "grammar": manifest["grammar"]["version"],
                     "python": platform.python_version()},
    }


def _scalars(figures: Any) -> dict[str, Any]:
    """The single-number figures of a metrics record (per-class tables left out)."""
    return {k: v for k, v in (figures or {}).items() if isinstance(v, int | float | str)}


def _training_data(path: str) -> dict[str, Any]:
    """The build manifest of the dataset a model was trained on: its inputs (path, size, sha256, sentences),
    and the licence they imply; what is known when the dataset is no longer there."""
    from tnforge.manifest import read_manifest

    try:
        build = read_manifest(path, missing_ok=True) if path else None
    except (OSError, ValueError):
        build = None
    if not build:
        return {"dataset": path or None, "found": False, "inputs": [],
                "licence": "unknown: the training dataset was not found at assembly; check the licence of its inputs"}
    inputs = [{key: item.get(key) for key in ("source", "size", "sha256", "sentences", "records")}
              for item in build.get("inputs", [])]
    bundled = bool(inputs) and all(_is_bundled(item.get("path", "")) for item in build.get("inputs", []))
    return {"dataset": path, "found": True, "inputs": inputs, "created": build.get("created"),
            "splits": build.get("splits"), "licence": SAMPLE_LICENCE if bundled else CORPUS_LICENCE}


def _is_bundled(path: str) -> bool:
    import tnforge

    return Path(path).resolve() == (Path(tnforge.__file__).parent / "data" / "sample.tsv").resolve()


def _figures(figures: dict[str, Any] | None) -> str:
    return ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                     for k, v in sorted((figures or {}).items())) or "none recorded"


def write_card(root: Path, manifest: dict[str, Any], tagger: dict[str, Any]) -> dict[str, Any]:
    """Write `MODEL_CARD.md` into a normalizer folder being saved; the facts, for `normalizer.json`."""
    facts = card_facts(root, manifest, tagger)
    (root / CARD).write_text(markdown(facts, manifest), encoding="utf-8")
    return facts


def markdown(facts: dict[str, Any], manifest: dict[str, Any]) -> str:
    """The model card as Markdown."""
    data = facts["training_data"]
    dev = facts["model"]["dev"]
    lines = [
        "# Normalizer model card", "",
        f"A tnforge normalizer: a {facts['model']['family']} model, a calibrated tagger and "
        + ("the covering grammar guarding every reading." if facts["guarded"] else
           "**no covering grammar** (assembled unguarded: nothing guards the readings' meaning)."), "",
        "```python", "from tnforge import Normalizer", "", 'normalizer = Normalizer.load("THIS_FOLDER")',
        "normalizer.normalize('It costs $3.50.')", "```", "",
        "## Intended use", "", INTENDED_USE, "",
        "## Training data", "",
    ]
    if data["found"]:
        lines += [f"Dataset `{data['dataset']}` (build of {data.get('created')}), from:", "",
                  "| input | size | sha256 | sentences |", "|---|---:|---|---:|"]
        lines += [f"| {i.get('source')} | {i.get('size')} | `{i.get('sha256')}` | {i.get('sentences')} |"
                  for i in data["inputs"]]
    else:
        lines.append(f"The training dataset (`{data['dataset']}`) was not found when the normalizer was saved.")
    lines += ["", f"Licence of the data: {facts['licence']}.", "",
              "## Figures", "",
              f"Model, dev (the evaluation that chose `best.pt`): {_figures(dev)}.",
              f"Tagger, dev: {_figures(facts['tagger'].get('dev'))}; test: {_figures(facts['tagger'].get('test'))}.", "",
              "Test figures are not measured at assembly; measure them on your test split with "
              "`tnforge evaluate --raw --model THIS_FOLDER --data DATASET --split test`.", "",
              "## Limitations", "", *[f"- {item}" for item in LIMITATIONS], "",
              "## Versions", "",
              *[f"- {name}: {value}" for name, value in facts["versions"].items()],
              f"- normalizer format: {manifest['format']} {manifest['version']}", "",
              "Weights are tensors only (`torch.load(weights_only=True)`); every part's sha256 is in "
              "`normalizer.json` and is checked on load.", ""]
    return "\n".join(lines)
