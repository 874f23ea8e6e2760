"""The serving validation rows: the engine and llm-analysis's `infer()` side by side (issue 12).

Run: .venv/bin/python benchmarks/serving_vs_llm_analysis.py [-v]
Needs llm-analysis 0.2.2 (pip install -e '.[bench]'). Rows: app/data/validation/serving_runs.yaml;
each row's `llm_analysis` block holds llm-analysis's inputs (its own GPU and model config names;
a `serving/llm_analysis_model_configs/*.json` path is read from benchmarks/data/, copies of the
published Hugging Face config.json). The engine's figure is `serving_validation.predict`.

llm-analysis's figures, per row metric (its `infer()` result, one TP × PP replica):
output tokens/s = total_tokens_per_sec × replicas; per GPU = total_tokens_per_sec / (TP × PP);
tokens/s per user = 1 / decode_latency; ITL = decode_latency; TTFT = prefill_latency; request
latency = total_latency; prompt tokens/s = prefill_tokens_per_sec. Max-load rows (no batch
stated) run at llm-analysis's own `decode_max_batch_size_per_gpu` (what fits its memory model).
A row it cannot run (GPU or model it has no config for, an error) is listed, not counted.
Prints both medians of |log(predicted / reported)| over the rows each could run and over the
rows both ran, the worst row of each, and the rows each could not run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import math
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # llm-analysis imports transformers

from app.engine import serving_validation  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def _model_name(name: str) -> str:
    """A config path relative to the research folder → the copy in benchmarks/data/."""
    if name.startswith("serving/"):
        return str(DATA / name.removeprefix("serving/"))
    return name


def llm_analysis_figure(run: dict[str, Any]) -> float:
    """llm-analysis `infer()`'s figure for one row in the row's metric (raises if it cannot)."""
    from llm_analysis.analysis import infer

    block = dict(run["llm_analysis"])
    block["model_name"] = _model_name(block["model_name"])
    tp, pp = int(block.get("tp_size") or 1), int(block.get("pp_size") or 1)
    replicas = max(1, int(run["gpu_count"]) // (tp * pp))
    seq = block.get("seq_len") or run.get("input_tokens")
    gen = block.get("num_tokens_to_generate") or run.get("output_tokens")
    if not seq or not gen:
        raise ValueError("variable-length dataset: no fixed prompt/answer length")
    kwargs = {k: v for k, v in block.items() if v is not None}
    kwargs.update(seq_len=int(seq), num_tokens_to_generate=int(gen), log_level="CRITICAL")
    if block.get("batch_size_per_gpu") is None:
        if run["concurrency"] == "max":
            probe = _quiet(infer, **{**kwargs, "batch_size_per_gpu": 1})
            kwargs["batch_size_per_gpu"] = max(1, int(probe["decode_max_batch_size_per_gpu"]))
        else:
            kwargs["batch_size_per_gpu"] = max(1, int(run["concurrency"]) // replicas)
    r = _quiet(infer, **kwargs)
    metric = run["metric"]
    if metric == "output_tokens_per_s":
        return float(r["total_tokens_per_sec"]) * replicas
    if metric == "output_tokens_per_s_per_gpu":
        return float(r["total_tokens_per_sec"]) / (tp * pp)
    if metric == "tokens_per_s_per_user":
        return 1.0 / float(r["decode_latency"])
    if metric == "itl_ms":
        return float(r["decode_latency"]) * 1e3
    if metric == "ttft_ms":
        return float(r["prefill_latency"]) * 1e3
    if metric == "e2e_latency_ms":
        return float(r["total_latency"]) * 1e3
    if metric == "prompt_tokens_per_s":
        return float(r["prefill_tokens_per_sec"])
    raise ValueError(f"metric {metric!r} has no llm-analysis counterpart")


def _quiet(fn: Any, **kwargs: Any) -> dict[str, Any]:
    """Call llm-analysis with its prints and log lines swallowed."""
    logging.disable(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return dict(fn(**kwargs))
    finally:
        logging.disable(logging.NOTSET)


def log_error(predicted: float, reported: float) -> float:
    return abs(math.log(predicted / reported))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="print every row")
    args = ap.parse_args()
    engine: dict[str, float] = {}
    lla: dict[str, float] = {}
    engine_failed: list[str] = []
    lla_failed: list[str] = []
    for run in serving_validation.runs():
        rid, reported = run["id"], float(run["reported"])
        try:
            engine[rid] = log_error(serving_validation.predict(run), reported)
        except Exception as e:  # a row the engine cannot run is reported, not hidden
            engine_failed.append(f"{rid}: {type(e).__name__}: {e}")
        if not run.get("llm_analysis"):
            lla_failed.append(f"{rid}: no llm-analysis inputs")
        else:
            try:
                lla[rid] = log_error(llm_analysis_figure(run), reported)
            except Exception as e:
                lla_failed.append(f"{rid}: {type(e).__name__}: {str(e)[:120]}")
        if args.verbose:
            print(
                f"{rid:60s} engine {engine.get(rid, float('nan')):6.3f}  "
                f"llm-analysis {lla.get(rid, float('nan')):6.3f}"
            )
    both = sorted(set(engine) & set(lla))

    def summary(name: str, errs: dict[str, float], ids: list[str]) -> None:
        vals = [errs[i] for i in ids]
        worst = max(ids, key=errs.__getitem__)
        print(
            f"{name:13s} {len(ids):3d} rows  median |log error| {statistics.median(vals):.3f} "
            f"(×{math.exp(statistics.median(vals)):.2f})  worst {errs[worst]:.3f} "
            f"(×{math.exp(errs[worst]):.2f}, {worst})"
        )

    print("Rows each could run:")
    summary("engine", engine, sorted(engine))
    summary("llm-analysis", lla, sorted(lla))
    print(f"Rows both ran ({len(both)}):")
    summary("engine", engine, both)
    summary("llm-analysis", lla, both)
    print(f"Engine could not run {len(engine_failed)} row(s):")
    for line in engine_failed:
        print("  " + line)
    print(f"llm-analysis could not run {len(lla_failed)} row(s):")
    for line in lla_failed:
        print("  " + line)


if __name__ == "__main__":
    main()
