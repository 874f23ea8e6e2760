"""What a task's planner (`training`, `serving`, `image`) hands to the estimate's assembly.

Units: memory in bytes (`memory.Memory`), time in days; the GPU count is whole GPUs and
`fraction` the MIG share of one GPU (T8) when the plan needs less than one.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine import memory
from app.engine.hardware import GpuSpec
from app.engine.schemas import InferenceOut, TrainingOut


@dataclass(slots=True, kw_only=True)
class Plan:
    """One sized plan: the GPUs, their layout and memory, and the task's own figures."""

    gpu: GpuSpec
    count: int
    fraction: float | None  # MIG share of one GPU, None for whole GPUs
    layout: memory.Layout
    replica: memory.Memory  # one model replica, unsharded (bytes)
    per_gpu: memory.Memory  # the most-loaded GPU (bytes)
    interconnect: str
    trainable: int  # trainable parameters (0 when serving)
    global_batch: int  # sequences per optimizer step (1 when serving)
    training: TrainingOut | None
    inference: InferenceOut | None
    days: float | None  # how long the job runs; None for a service priced by the month
