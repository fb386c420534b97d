"""Benchmark: train both dual encoders on the shared English sample and report dev ROC AUC (target ≥ 0.95),
accuracy and false-accept rate per negative type. The negatives include trivial pairs (`<self>`/`sil`), so the
AUC is given on all dev pairs and on the non-trivial ones (the pairs a DE without trivial pairs sees).

    python benchmarks/dual_encoders.py --work /tmp/de-bench                  # build + negatives + train
    python benchmarks/dual_encoders.py --work /tmp/de-bench --data-dir DIR   # reuse a dataset with pairs
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv"


def tnforge(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "tnforge", *args], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-de"))
    parser.add_argument("--data-dir", type=Path, default=None, help="dataset directory that already has pairs")
    parser.add_argument("--ratio", default="10", help="negatives per positive generated")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    from tnforge.trainers.dual_encoders.metrics import to_markdown
    from tnforge.trainers.dual_encoders.runs import default_model
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    data = args.data_dir or args.work / "dataset"
    if args.data_dir is None and not (data / "manifest.json").exists():
        if not SAMPLE.exists():
            sys.exit(f"{SAMPLE}: sample corpus not found")
        tnforge("build", str(SAMPLE), "--out", str(data))
        tnforge("negatives", str(data), "--kinds", "synthetic,random", "--ratio", args.ratio)
    results = {}
    # The CLI's defaults: the sequence DE with the interaction term, the vocabulary filter with the dot head.
    for kind in ("sequence", "vocabulary"):
        started = time.monotonic()
        result = train_dual_encoder(DETrainConfig(
            data=str(data), out=str(args.work / f"{kind}-de"), kind=kind, device=args.device, threads=args.threads,
            progress=False, model=default_model(kind)), overwrite=True)
        seconds = time.monotonic() - started
        best = result.best
        nontrivial = best.get("nontrivial", {}).get("auc", best["auc"])
        results[kind] = {"auc": best["auc"], "auc_nontrivial": nontrivial, "accuracy": best["accuracy"],
                         "false_accept": best["false_accept"],
                         "per_type": best["per_type"], "train_pairs": result.train_pairs,
                         "dev_pairs": result.dev_pairs, "seconds": seconds, "epochs": result.epochs}
        print(to_markdown(best, f"{kind} dual encoder ({result.train_pairs:,} train pairs, {seconds:.0f} s)"))
        met = best["auc"] >= 0.95 and nontrivial >= 0.95
        print(f"target ROC AUC ≥ 0.95: {'met' if met else 'NOT met'} (all pairs {best['auc']:.4f}, "
              f"non-trivial pairs {nontrivial:.4f})\n")
    (args.work / "dual_encoders.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
