"""Probabilistic task pruning for heterogeneous computing systems, from Python.

The simulator of the prunesim workspace (Gentry's thesis and the HCW 2019 paper; Salehi et
al., JPDC 2016) and its live scheduler, bound from Rust:

* :func:`run` runs an experiment (a TOML file, a TOML string or a dict) as ``prunesim run``
  does and returns its summary, its trials and, traced, every task and mapping event;
* :func:`sweep` runs sweep files as ``prunesim sweep`` does;
* :class:`Pmf` and :class:`Pet` are execution-time distributions and their matrices
  (``.etc`` files and CSVs of measured times);
* :class:`Scheduler` is the live scheduler a dispatcher owns (``live::Scheduler``), and
  :class:`Estimator` the online PET estimator (Kaplan-Meier with censoring, ``learn``).

Errors are :class:`PrunesimError` (a :class:`ConfigError` for what does not parse or
validate, a :class:`SchedulerError` for misuse of the scheduler) with the messages of the
command line: file, line and field. What the command line logs as a warning (times that
look like seconds read as ticks, a PET renormalised, input rows repaired) reaches Python's
:mod:`warnings` as a :class:`PrunesimWarning`. The interpreter's lock is released while Rust runs, so
other Python threads go on.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

from ._prunesim import (
    ConfigError,
    Estimator,
    MappingEvent,
    Pet,
    Pmf,
    PrunesimError,
    PrunesimWarning,
    SchedulerError,
    _Scheduler,
    compare_heuristics as _compare_heuristics,
    metrics as _metrics,
    run_experiment as _run_experiment,
    run_sweeps as _run_sweeps,
    version as _version,
)

__version__: str = _version()

__all__ = [
    "Action",
    "Columns",
    "Comparison",
    "ConfigError",
    "Estimator",
    "MappingEvent",
    "Pet",
    "Pmf",
    "PrunesimError",
    "PrunesimWarning",
    "RunResult",
    "Sample",
    "Scheduler",
    "SchedulerError",
    "SweepResult",
    "compare",
    "metrics",
    "run",
    "sweep",
]


class Columns(Dict[str, List[Any]]):
    """A table as a dict of equal-length columns (name to list).

    ``to_pandas()`` makes a :class:`pandas.DataFrame` of it when pandas is installed.
    """

    @property
    def rows(self) -> int:
        """The number of rows."""
        return len(next(iter(self.values()), []))

    def to_pandas(self) -> Any:
        """The table as a :class:`pandas.DataFrame` (needs pandas: ``pip install pandas``)."""
        try:
            import pandas
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Columns.to_pandas needs pandas: pip install pandas") from e
        return pandas.DataFrame(dict(self))


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` returns.

    Attributes:
        summary: the summary document of ``prunesim run --json``: ``robustness_mean`` (the
            headline, in %), ``optimum`` (the clairvoyant bracket's ``lower`` and ``upper``,
            when computed), ``metrics`` (every measure's ``mean`` and 95% interval),
            ``metrics_doc``, and what ran (``mapper``, ``pruner``, ``system``, ``seed``, ...).
        trials: one row per trial, a column per measure (``robustness``, ``optimum_lower``,
            ``optimum_upper``, ...).
        tasks: with ``trace=True``, one row per task of every trial (``docs/trace.md``'s
            ``tasks-<k>.csv`` columns plus ``trial``); else ``None``.
        events: with ``trace=True``, one row per mapping event of every trial; else ``None``.
    """

    summary: Dict[str, Any]
    trials: Columns
    tasks: Optional[Columns] = None
    events: Optional[Columns] = None

    @property
    def robustness_mean(self) -> float:
        """The mean robustness over the trials, in % of the counted tasks."""
        return float(self.summary["robustness_mean"])


Config = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]


def _source(config: Config) -> "tuple[str, Any]":
    if config is None:
        return "default", None
    if isinstance(config, Mapping):
        return "dict", dict(config)
    if isinstance(config, os.PathLike):
        return "path", os.fspath(config)
    if isinstance(config, str):
        single_line = "\n" not in config
        if single_line and (config.endswith(".toml") or os.path.isfile(config)):
            return "path", config
        return "toml", config
    raise TypeError(
        f"config: expected a path, a TOML string, a dict or None, found {type(config).__name__}"
    )


def run(
    config: Config = None,
    trials: Optional[int] = None,
    jobs: Optional[int] = None,
    trace: bool = False,
    *,
    seed: Optional[int] = None,
    bound: bool = True,
    heuristic: Optional[Callable[[MappingEvent], Any]] = None,
) -> RunResult:
    """Runs an experiment as ``prunesim run`` does and returns its results.

    Args:
        config: the experiment: ``None`` for the built-in default (the HCW 2019 headline,
            PAM at 34k, 30 trials); a path to a TOML file (a ``str`` on one line ending in
            ``.toml`` or naming a file, or a :class:`os.PathLike`); a TOML string; or a dict
            of the same tables (``{"workload": {"rate": 34000}, "mapper": {"name": "MM"}}``).
            Relative paths inside a file resolve against its folder, inside a string or a
            dict against the current folder.
        trials: the number of trials (default: the experiment's ``workload.trials``).
        jobs: worker threads (default: every core); the results do not depend on it.
        trace: keep every task's and mapping event's row (``RunResult.tasks``, ``.events``).
        seed: the master seed, as ``workload.seed`` (``prunesim run --seed``): it replaces
            the file's seed, and fills it where the file has none.
        bound: compute the clairvoyant bracket of every trial (``--no-bound`` when false).
        heuristic: a batch heuristic of your own, in Python: called at every mapping event
            with a :class:`MappingEvent` (the batch, each task's chance and expected
            completion on each machine, the free slots, the defer thresholds), it returns a
            list of ``(task, machine)`` pairs to assign, or a dict with ``"assign"`` (such
            pairs), ``"defer"`` and ``"discard"`` (task ids); a task left out waits for the
            next event. It replaces the ``[mapper]`` heuristic, whose pruner runs with it
            (``PAM``'s, the paper's, by default; ``MM``: none); ``summary["heuristic"]``
            names it. Each trial's events call it in order; trials may run on several
            threads, each call holding the interpreter's lock, so a callable that keeps no
            state across calls gives the same results whatever ``jobs`` is. An answer that
            names a task not in the batch, a task twice, or more tasks than a machine has
            free slots raises :class:`ValueError` naming the event; an exception of the
            callable is raised as it is.

    Returns:
        a :class:`RunResult`. The same seed gives the same bits as the command line.

    Raises:
        ConfigError: the experiment does not parse or validate (the message names the file,
            line and field).
        PrunesimError: the run cannot go ahead (e.g. it needs more memory than half of the
            machine's).
    """
    kind, value = _source(config)
    summary, table, tasks, events = _run_experiment(
        kind,
        value,
        trials=trials,
        seed=seed,
        jobs=0 if jobs is None else jobs,
        trace=trace,
        bound=bound,
        heuristic=heuristic,
    )
    return RunResult(
        summary=summary,
        trials=Columns(table),
        tasks=None if tasks is None else Columns(tasks),
        events=None if events is None else Columns(events),
    )


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` returns.

    Attributes:
        table: one row per heuristic, in the order given: ``heuristic``,
            ``robustness_mean`` with ``robustness_ci95_low`` and ``_high`` (in %),
            ``difference_to_best_mean`` with its ``_ci95_low`` and ``_high`` (the paired
            difference to the best heuristic, trial by trial, in points; 0 and no interval for
            the best itself), ``worst_type_on_time_mean`` (in %) and ``trials``.
            ``table.to_pandas()`` makes a data frame of it.
        best: the heuristic with the highest mean robustness (the first of those tied).
        optimum: the clairvoyant bracket's ``lower`` and ``upper`` (mean over trials, in %),
            when computed; else ``None``.
    """

    table: Columns
    best: str
    optimum: Optional[Dict[str, float]] = None


def compare(
    config: Config,
    heuristics: Sequence[Union[str, Callable[[MappingEvent], Any]]],
    trials: Optional[int] = None,
    jobs: Optional[int] = None,
    *,
    seed: Optional[int] = None,
    bound: bool = True,
) -> Comparison:
    """Runs an experiment once per heuristic on the same trials and compares them, as
    ``prunesim run --heuristic A,B,C`` does.

    Every heuristic runs the experiment with its ``[mapper] name`` replaced (the table's
    other keys kept) and the same seed: the same arrivals and execution-time draws (common
    random numbers), so a difference between two rows is the heuristics' alone, and the
    paired interval of the difference to the best is narrower than the robustness intervals
    side by side suggest. The clairvoyant bracket is computed once, with the first heuristic.

    Args:
        config: the experiment, as for :func:`run`.
        heuristics: the heuristics' (or variants') names, e.g. ``["auto", "PAM", "MM-P"]``,
            and heuristics of your own in Python (callables as :func:`run`'s ``heuristic``
            takes them: they run with the experiment's ``[mapper]`` pruner; their rows are
            named after the function, with `` (Python)``).
        trials, jobs, seed, bound: as for :func:`run`.

    Returns:
        a :class:`Comparison`.

    Raises:
        ConfigError: an unknown heuristic, a name given twice, or an experiment that does not
            parse or validate; nothing runs then.
        PrunesimError: the run cannot go ahead.
    """
    kind, value = _source(config)
    if isinstance(heuristics, str):
        heuristics = [h.strip() for h in heuristics.split(",")]
    table, best, optimum = _compare_heuristics(
        kind,
        value,
        list(heuristics),
        trials=trials,
        seed=seed,
        jobs=0 if jobs is None else jobs,
        bound=bound,
    )
    return Comparison(table=Columns(table), best=best, optimum=optimum)


def _value(text: str) -> Any:
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _read_csv(path: Path) -> Columns:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        columns: Columns = Columns((name, []) for name in header)
        lists = list(columns.values())
        for row in reader:
            for column, cell in zip(lists, row):
                column.append(_value(cell))
    return columns


@dataclass(frozen=True)
class SweepResult:
    """One sweep of :func:`sweep`.

    Attributes:
        id: the sweep's id (its output files' stem).
        table: ``OUT/<id>.csv`` as columns (a row per point: the x value, the series, every
            measure's mean and interval).
        text: the table ``prunesim sweep`` prints.
        csv: the path of ``OUT/<id>.csv``; its manifest, SVG and PNG lie beside it.
    """

    id: str
    table: Columns
    text: str
    csv: Path


def sweep(
    paths: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    out: Union[str, "os.PathLike[str]"] = "results",
    *,
    trials: Optional[int] = None,
    jobs: Optional[int] = None,
    fresh: bool = False,
) -> Dict[str, SweepResult]:
    """Runs sweep files as ``prunesim sweep`` does (every figure in ``experiments/``, or
    one's own) and returns each sweep's table by its id.

    Writes ``OUT/<id>.csv``, the manifest, SVG and PNG into ``out``, and the point files it
    resumes from (``fresh=True`` recomputes them). Ctrl-C raises ``KeyboardInterrupt`` within
    a fraction of a second, no trial starting after it: the points finished stay saved, and
    the same call again computes only the others.

    Args:
        paths: a sweep file or several.
        out: the output folder.
        trials: trials per point (default: each file's).
        jobs: worker threads (default: every core); the results do not depend on it.
        fresh: recompute every point, ignoring the point files of an earlier run.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = [os.fspath(p) for p in paths]
    out_dir = Path(out)
    done = _run_sweeps(
        files,
        os.fspath(out_dir),
        trials=trials,
        jobs=0 if jobs is None else jobs,
        fresh=fresh,
    )
    results: Dict[str, SweepResult] = {}
    for id_, text in done:
        path = out_dir / f"{id_}.csv"
        table = _read_csv(path) if path.exists() else Columns()
        results[id_] = SweepResult(id=id_, table=table, text=text, csv=path)
    return results


def metrics() -> Dict[str, "tuple[str, str]"]:
    """Every measure's unit and definition, by name (``prunesim metrics``)."""
    return {name: (unit, definition) for name, unit, definition in _metrics()}


class Action(NamedTuple):
    """What a dispatcher should do, in the order given (``live::Action``).

    ``kind`` is ``"assign"`` (the task joins ``machine``'s queue), ``"start"`` (start it on
    ``machine`` now, then call :meth:`Scheduler.started`), ``"drop"`` (give it up; kill it
    when ``executing``; ``reason`` is its outcome, e.g. ``"pruned_pending"``) or ``"defer"``
    (it stays in the batch queue). A plain tuple too: ``kind, task, machine, *_ = action``.
    """

    kind: str
    task: int
    machine: Optional[int]
    executing: bool
    reason: Optional[str]


class Sample(NamedTuple):
    """An execution time the scheduler observed (``live::Sample``): ``censored`` when the
    task was stopped before it ended (its time is at least ``seconds``)."""

    task_type: int
    machine: int
    seconds: float
    censored: bool


class Scheduler(_Scheduler):
    """The live scheduler a dispatcher owns (``live::Scheduler``; ``docs/live.md``).

    ``Scheduler(pet, heuristic="PAM", pruner=None, queue_size=6, drop_model="all",
    pct_epsilon=0.0, resolution=1.0)``: ``heuristic`` a name (a base heuristic or a variant
    such as ``"MM-D"``, ``"PAMF"``) or a dict of the ``[mapper]`` table; ``pruner`` a dict of
    the ``[pruner]`` table (``{"preset": ..., "drop": 0.5, ...}``); ``resolution`` the
    seconds of one PET tick.

    The dispatcher tells it what happened (:meth:`submit`, :meth:`started`,
    :meth:`completed`, :meth:`failed`) and asks what to do (:meth:`decide`, also at
    :meth:`next_wakeup`). Times are seconds on the dispatcher's clock, never decreasing;
    misuse raises :class:`SchedulerError`.
    """

    def decide(self, now: float) -> List[Action]:
        """What to do at ``now`` (seconds): applies the ends reported since the previous
        decision and the deadlines passed, then, when anything happened, runs one mapping
        event (the pruner, then the heuristic)."""
        return [Action(*a) for a in self._decide(now)]

    def close(self, now: float) -> List[Action]:
        """The dispatcher stops at ``now``: every task still in the batch queue ends
        unmapped; tasks in machine queues stay until they end."""
        return [Action(*a) for a in self._close(now)]

    def drain_samples(self) -> List[Sample]:
        """The execution times observed since the last call (after
        ``record_samples(True)``), for an :class:`Estimator`."""
        return [Sample(*s) for s in self._drain_samples()]
