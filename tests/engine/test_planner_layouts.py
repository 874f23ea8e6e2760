"""The planner picks a count's layout as a plain sort of every layout would, checked by brute
force.

The definition (app/engine/planner.py, `_Ranked`): every (tp, pp) pair the count allows with
every (ZeRO, recomputation) class, sorted stably by relative time 1 / (TP efficiency ×
pipeline efficiency × ZeRO efficiency × recomputation share), ties in generation order (pair,
then class); the first whose most-loaded GPU fits in HBM × `HEADROOM` is the layout. Layouts
that keep each step within the job's batch limit come first; the others only when none of
those fits.

The planner gets there without sorting or sizing every layout: a memory floor refuses most
counts outright, one ranking per TP efficiency is walked lazily and keeps only its memory
records, and the layouts and their sizes are shared by every GPU type of a search. Here each
layout is sized with `planner.per_gpu_memory` (the terms the plan page shows), the sort is
Python's, and the GPUs of a search are asked in turn on the same job, so that a ranking or a
size carried over from one GPU type to the next would show.
"""

from __future__ import annotations

import itertools
import math

import pytest

from app.engine import compute, planner
from app.engine.estimate import resolve_model
from app.engine.gpus import default_gpus
from app.engine.hardware import GpuSpec
from app.engine.memory import Layout
from app.engine.schemas import EstimateRequest
from app.engine.training import training_job, training_tokens
from app.engine.units import GB

PRESETS = ("llama-3.2-1b", "llama-2-70b", "mixtral-8x7b", "llama-3.1-405b")
TASKS = ("pretrain", "full_finetune", "lora")
PINS = ({}, {"recompute": "full"}, {"zero_stage": 1}, {"global_batch": 64}, {"tp": 2})
# NVLink boxes share one TP efficiency; each PCIe GPU has its own (compute.tp_step)
GPUS = ("h100-sxm-80gb", "l4-24gb", "rtx-4090-24gb", "h100-pcie-80gb", "a100-sxm-40gb",
        "l40s-48gb")  # fmt: skip
COUNTS = (1, 2, 3, 4, 8, 16, 24, 40, 64, 256, 1024, 4096)


def _gpu(gpu_id: str) -> GpuSpec:
    return next(g for g in default_gpus() if g.id == gpu_id)


def _brute_force(
    job: planner.TrainingJob, gpu: GpuSpec, n: int, pins: planner.Pins
) -> tuple[Layout, float, float, int] | None:
    """(layout, bytes, relative time, micro-batches per pipeline) of the first layout of a
    full stable sort that fits."""
    gpn = gpu.gpus_per_node
    per_node = n if n < gpn else gpn
    nodes = -(-n // gpn)
    ic = job.interconnect or planner.natural_interconnect(gpu, nodes, per_node)
    step = compute.tp_step(gpu, ic)
    cap = gpu.memory_gb * GB * planner.HEADROOM
    terms = planner._JobTerms(job)  # a fresh table: nothing shared with the planner's memo
    degrees = planner._degrees(job, per_node, pins)
    for over in (False, True):
        count = planner._layouts(terms, n, per_node, pins, degrees, over)
        layouts = []
        for (pipes, ints), classes in ((count.multi, count.many), (count.single, count.one)):
            for i, pipe in enumerate(pipes):
                gen, t, p, d, v, m, _key = ints[i * planner.PAIR : (i + 1) * planner.PAIR]
                for j, (z, rc, z_eff, share, _zr) in enumerate(classes):
                    cost = 1.0 / (step ** math.log2(t) * pipe * z_eff * share)
                    layout = Layout(d, t, p, z, rc, job.micro_batch, v)
                    layouts.append((cost, gen, j, layout, m))
        layouts.sort(key=lambda x: x[:3])
        for cost, _, _, layout, m in layouts:
            need = planner.per_gpu_memory(job, layout, n).total
            if need <= cap:
                return layout, need, cost, m
        if not job.batch_limit or job.batch_pinned:
            break
    return None


@pytest.mark.parametrize(("preset", "task", "pins"), list(itertools.product(PRESETS, TASKS, PINS)))
def test_the_chosen_layout_is_the_first_of_a_full_sort_that_fits(
    preset: str, task: str, pins: dict[str, int | str]
) -> None:
    req = EstimateRequest(model={"preset": preset}, task=task, tokens=1e10, seq_len=4096, **pins)
    model = resolve_model(req)
    job, _, _ = training_job(req, model, training_tokens(req, model, []))
    p = planner.Pins(tp=req.tp, zero=req.zero_stage, recompute=req.recompute)
    planner._terms.cache_clear()
    checked = 0
    for gpu_id, n in itertools.product(GPUS, COUNTS):
        gpu = _gpu(gpu_id)
        got = planner.best_layout(job, gpu, n, tp=p.tp, zero=p.zero, recompute=p.recompute)
        want = _brute_force(job, gpu, n, p)
        assert (got is None) == (want is None), (gpu_id, n, got, want)
        if got is None or want is None:
            continue
        layout, need, efficiency, micro_batches = got
        assert (layout, micro_batches) == (want[0], want[3]), (gpu_id, n)
        assert need == pytest.approx(want[1], rel=1e-12)
        assert efficiency == pytest.approx(1.0 / want[2], rel=1e-12)
        checked += 1
    assert checked > 0  # the grid is not all counts that fit nothing
