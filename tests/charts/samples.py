"""Sample chart inputs built from the real engine, shared by the tests and the benchmark.

Run `python -m tests.charts.samples [OUTDIR]` to render every chart to PNG in English and
Chinese (default OUTDIR: test-artifacts/charts/) — look at them after changing app/charts/.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.engine.costs import CostComparison, Usage, compare_costs, tco_curves
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest
from tests.engine.test_costs import H100, P5_2026, P5_PRECUT, seed003_book

# zh-TW for every msgid in app.charts.MSGIDS: stands in for the web layer's gettext catalog.
ZH_TW: dict[str, str] = {
    "%(label)s: %(value)s": "%(label)s：%(value)s",
    "2× off": "相差 2 倍",
    "Reported by the source (log scale)": "來源公布值（對數刻度）",
    "Reported": "實測",
    "Predicted by the engine (log scale)": "引擎預測值（對數刻度）",
    "Predicted": "預測",
    "Exact (y = x)": "完全吻合（y = x）",
    "Engine against published runs (log-log)": "引擎預測與公開實測（雙對數）",
    "Activations": "激活值",
    "Break-even": "損益平衡點",
    "Break-even at %(pct)s": "損益平衡：使用率 %(pct)s",
    "Break-even (cheapest changes)": "損益平衡點（最便宜方案改變）",
    "Chosen: %(gpus)s GPUs, %(days)s days": "選定：%(gpus)s 張 GPU，%(days)s 天",
    "Chosen: %(gpus)s GPU, %(days)s days": "選定：%(gpus)s 張 GPU，%(days)s 天",
    "Cloud": "公有雲",
    "Cost per month (%(currency)s)": "每月成本（%(currency)s）",
    "Cumulative cost (%(currency)s)": "累計成本（%(currency)s）",
    "Cumulative cost by month": "逐月累計成本",
    "Days to finish": "完成天數",
    "Days to finish (days)": "完成所需時間（天）",
    "Deadline: %(days)s days": "期限：%(days)s 天",
    "Facility (colocation)": "機房（主機代管）",
    "GPU memory %(gb)s": "GPU 記憶體 %(gb)s",
    "GPU utilisation (share of 730 h a month)": "GPU 使用率（每月 730 小時的比例）",
    "GPUs": "張 GPU",
    "1 GPU": "1 張 GPU",
    "%(n)s GPUs": "%(n)s 張 GPU",
    "%(lo)s–%(hi)s GPUs": "%(lo)s–%(hi)s 張 GPU",
    "Gradients": "梯度",
    "Hardware (capex)": "硬體（資本支出）",
    "KV cache": "KV 快取",
    "Months": "月",
    "Memory (GB)": "記憶體（GB）",
    "Memory per GPU (GB)": "每張 GPU 的記憶體用量（GB）",
    "Month %(month)s": "第 %(month)s 個月",
    "Month %(month)s, resale only": "第 %(month)s 個月，僅因轉售",
    "Only through the resale at book value: %(b)s sells its hardware in month %(month)s; "
    "before that, %(a)s stays cheaper.": (
        "僅因按帳面價值轉售：%(b)s 於第 %(month)s 個月出售硬體；在此之前 %(a)s 較便宜。"
    ),
    "Monthly cost vs GPU utilisation": "每月成本與 GPU 使用率",
    "Months from start": "開始後月數",
    "Net cost by year end (%(currency)s)": "年底淨成本（%(currency)s）",
    "Net total": "淨總額",
    "Number of GPUs (log scale)": "GPU 數量（對數刻度）",
    "Operations": "維運",
    "Optimizer states": "優化器狀態",
    "Overhead": "額外開銷",
    "Per GPU": "每張 GPU",
    "Power": "電費",
    "Power (kW)": "功耗（kW）",
    "Price per month (%(currency)s)": "月租價格（%(currency)s）",
    "Price range": "價格區間",
    "Reference architectures compared": "參考架構比較",
    "Rent": "租金",
    "Resale value": "轉售殘值",
    "Resale at year end": "年底轉售",
    "Storage and network": "儲存與網路",
    "This plan: %(pct)s": "本方案：%(pct)s",
    "Time to finish vs number of GPUs": "完成時間與 GPU 數量",
    "Total GPU memory (GB)": "GPU 總記憶體（GB）",
    "Total cost of ownership by year": "逐年總持有成本（TCO）",
    "Used %(gb)s": "已用 %(gb)s",
    "Weights": "權重",
    "Year %(year)s": "第 %(year)s 年",
    "after the resale at book value": "按帳面價值轉售後",
    "before the resale": "轉售前",
    "days": "天",
    "not feasible": "不可行",
    "At the targets: %(users)s users per replica": "達標時：每個副本 %(users)s 位使用者",
    "Concurrent users per replica (log scale)": "每個副本的同時使用者數（對數刻度）",
    "First token ≤ %(s)s s": "首個 token ≤ %(s)s 秒",
    "Target: %(rate)s tokens/s per user": "目標：每位使用者 %(rate)s tokens/s",
    "Tokens/s per user": "每位使用者 tokens/s",
    "Tokens/s per user vs concurrent users (one replica)": "每位使用者 tokens/s 與同時使用者數（單一副本）",
    "tokens/s per user": "每位使用者 tokens/s",
    "users": "位使用者",
}


def zh(msgid: str) -> str:
    """A gettext stand-in: zh-TW text, the msgid itself when untranslated."""
    return ZH_TW.get(msgid, msgid)


def estimate_13b() -> Any:
    """Llama 2 13B full fine-tune on the default GPU: the brief's example."""
    return estimate(EstimateRequest(model={"preset": "llama-2-13b"}, task="full_finetune"))


def estimate_7b_chat() -> Any:
    """Seed rule T3's service: a 7B INT4 chat, 200 users, first token ≤ 1 s, ≥ 20 tokens/s."""
    return estimate(
        EstimateRequest(
            model={"preset": "qwen2.5-7b"},
            task="inference",
            precision="int4",
            users=200,
            avg_context_tokens=1024,
            output_tokens=256,
            slo={"ttft_s": 1.0, "tokens_per_s_per_user": 20},
        )
    )


def gpu_points(counts: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)) -> list[tuple[int, float]]:
    """(GPUs, days) for 13B full fine-tuning on 2e10 tokens, counts whose memory fits."""
    points = []
    for n in counts:
        r = estimate(
            EstimateRequest(
                model={"preset": "llama-2-13b"}, task="full_finetune", tokens=2e10, gpu_count=n
            )
        )
        assert r.training is not None
        if r.memory_per_gpu_gb.total <= r.gpu.memory_gb * 0.95:
            points.append((n, r.training.days))
    return points


def comparison(utilization: float = 0.8) -> CostComparison:
    """8×H100 for 60 months, every option kind (as benchmarks/bench_costs.py)."""
    book = seed003_book(cloud=(dataclasses.replace(P5_2026, reserved_hourly=40.0), P5_PRECUT))
    usage = Usage(H100, 8, 730, 60, 10.2, storage_network_monthly=50_000)
    return compare_costs(usage, book, horizon_months=60, term_months=12, utilization=utilization)


def utilization_pairs(c: CostComparison) -> list[dict[str, Any]]:
    from app.engine.plan_costs import utilization_pairs as pairs

    return pairs(c)


def cost_dict(c: CostComparison) -> dict[str, Any]:
    """The estimate response's `cost` shape (options, break_even, tco) as plain dicts."""
    options = [
        {k: v for k, v in dataclasses.asdict(o).items() if k not in ("explain",)} for o in c.options
    ]
    tco = [
        {
            "key": curve.key,
            "kind": curve.kind,
            "label": curve.label,
            "years": [
                {
                    "year": m // 12,
                    **{part: values[j] for part, values in curve.parts.items()},
                    "total": curve.total[j],
                }
                for j, m in enumerate(curve.months)
            ],
        }
        for curve in tco_curves(c)
    ]
    return {
        "options": options,
        "break_even": [dataclasses.asdict(b) for b in c.break_even],
        "break_even_utilization": utilization_pairs(c),
        "tco": tco,
        "currency": c.currency,
    }


# Seed 003 T6–T8 templates: 1×H100 NT$50,000, 4×H100 NT$200,000, 16×H100 (2 nodes of 8 at
# NT$350,000); power from the catalog's entry/growth servers and T7 (8-GPU > 10 kW).
TEMPLATES: list[dict[str, Any]] = [
    {"label": "Entry 1× H100", "monthly": 50_000, "gpu_memory_gb": 80, "power_kw": 0.64},
    {"label": "Growth 4× H100", "monthly": 200_000, "gpu_memory_gb": 320, "power_kw": 3.0},
    {
        "label": "Training 16× H100",
        "monthly": 700_000,
        "monthly_min": 560_000,
        "monthly_max": 700_000,
        "gpu_memory_gb": 1280,
        "power_kw": 20.4,
    },
]


def validation_points() -> list[dict[str, Any]]:
    """Every published run of both validation tables as the scatter's points."""
    from app.validation.service import all_rows

    return [
        {"label": r.category, "predicted": r.predicted, "reported": r.reported, "text": r.model}
        for r in all_rows()
    ]


def all_figures(t: Callable[[str], str]) -> dict[str, Any]:
    """Every chart built from the samples with translator `t`."""
    from app import charts

    r = estimate_13b()
    chat = estimate_7b_chat()
    cost = cost_dict(comparison())
    cur = cost["currency"]
    return {
        "memory_bar": charts.memory_bar(
            dataclasses.asdict(r.memory_per_gpu_gb), r.gpu.memory_gb, t=t
        ),
        "gpus_vs_days": charts.gpus_vs_days(gpu_points(), deadline_days=7, chosen=8, t=t),
        "cumulative_costs": charts.cumulative_costs(
            cost["options"], cost["break_even"], currency=cur, t=t
        ),
        "tco_bars": charts.tco_bars(cost["tco"], currency=cur, t=t),
        "utilization_sensitivity": charts.utilization_sensitivity(
            cost["options"],
            currency=cur,
            t=t,
            utilization=0.8,
            break_even=cost["break_even_utilization"],
        ),
        "architectures_compare": charts.architectures_compare(TEMPLATES, currency=cur, t=t),
        "serving_curve": charts.serving_curve(
            [dataclasses.asdict(p) for p in chat.inference.curve],
            tokens_per_s_target=20,
            ttft_target_s=1.0,
            chosen=chat.inference.concurrency_per_replica,
            t=t,
        ),
        "predicted_vs_reported": charts.predicted_vs_reported(validation_points(), t=t),
    }


def render_pngs(out: Path) -> list[Path]:
    """Write every chart as PNG (1000×h px, scale 1) in English and zh-TW under `out`."""
    from app import charts

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for lang, t in (("en", lambda s: s), ("zh-TW", zh)):
        for name, fig in all_figures(t).items():
            path = out / f"{name}.{lang}.png"
            path.write_bytes(charts.to_png(fig, 1000, int(fig.layout.height or 450)))
            written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("test-artifacts/charts")
    for p in render_pngs(target):
        print(p)
