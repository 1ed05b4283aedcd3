"""PAM and MM side by side over arrival rates: a notebook as a plain script.

Each ``# %%`` cell runs on its own in an editor that knows them (VS Code, Spyder, Jupytext);
``python compare_pam_mm.py`` runs them all. With matplotlib installed it draws the figure
(``--plot FILE`` writes it, e.g. ``rates.png``); with pandas the table is a data frame.

    python compare_pam_mm.py --trials 5 --plot rates.png
"""

# %% Settings
from __future__ import annotations

import argparse

import prunesim

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--trials", type=int, default=10, help="trials per point")
parser.add_argument("--tasks", type=int, default=800, help="tasks per trial")
parser.add_argument("--plot", help="write the figure to this file (PNG, SVG, PDF)")
args = parser.parse_args()

RATES = [19_000, 27_000, 34_000, 40_000]
HEURISTICS = ["PAM", "MM"]


def experiment(heuristic: str, rate: int) -> dict:
    """The paper's setting at one rate: the default PET, PAM with its pruner, MM without."""
    return {
        "name": f"{heuristic} at {rate}",
        "workload": {"rate": rate, "seed": 2019, "tasks": args.tasks},
        "mapper": {"name": heuristic},
    }


# %% Run every point: the same trials (same seed) for both heuristics
rows = []
for rate in RATES:
    for h in HEURISTICS:
        r = prunesim.run(experiment(h, rate), trials=args.trials, bound=(h == "PAM"))
        m = r.summary["metrics"]["robustness"]
        rows.append(
            {
                "rate": rate,
                "heuristic": h,
                "robustness": r.robustness_mean,
                "ci_low": m["ci95_low"] if m["ci95_low"] is not None else m["mean"],
                "ci_high": m["ci95_high"] if m["ci95_high"] is not None else m["mean"],
                "optimum_upper": r.summary.get("optimum", {}).get("upper"),
            }
        )

# %% The table
table = prunesim.Columns({k: [row[k] for row in rows] for k in rows[0]})
try:
    print(table.to_pandas().to_string(index=False))
except ImportError:
    print(f"{'rate':>6} {'heuristic':>9} {'robustness':>10} {'95% interval':>17}")
    for row in rows:
        print(
            f"{row['rate']:>6} {row['heuristic']:>9} {row['robustness']:>9.1f}% "
            f"[{row['ci_low']:5.1f}, {row['ci_high']:5.1f}]"
        )

# %% PAM's gain over MM at each rate
for rate in RATES:
    pam, mm = (next(r for r in rows if r["rate"] == rate and r["heuristic"] == h) for h in HEURISTICS)
    print(f"at {rate}: PAM {pam['robustness'] - mm['robustness']:+.1f} points over MM")

# %% The figure (with matplotlib)
try:
    import matplotlib

    if args.plot:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no figure (pip install matplotlib)")
else:
    fig, ax = plt.subplots(figsize=(6, 4))
    for h in HEURISTICS:
        pts = [r for r in rows if r["heuristic"] == h]
        ax.errorbar(
            [r["rate"] / 1000 for r in pts],
            [r["robustness"] for r in pts],
            yerr=[
                [r["robustness"] - r["ci_low"] for r in pts],
                [r["ci_high"] - r["robustness"] for r in pts],
            ],
            marker="o",
            capsize=3,
            label=h,
        )
    pam = [r for r in rows if r["heuristic"] == "PAM"]
    ax.plot(
        [r["rate"] / 1000 for r in pam],
        [r["optimum_upper"] for r in pam],
        "k--",
        label="optimum_upper (PAM's trials)",
    )
    ax.set_xlabel("Arrival rate (thousand tasks)")
    ax.set_ylabel("Tasks on time (%)")
    ax.legend()
    fig.tight_layout()
    if args.plot:
        fig.savefig(args.plot)
        print(f"figure: {args.plot}")
    else:
        plt.show()
