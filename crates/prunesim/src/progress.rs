//! The progress of `prunesim run`: tasks done of the run's tasks and the time left, counted
//! as each task reaches its outcome ([`runner::RunOptions::tasks_done`]). On a terminal a
//! bar redrawn every second; elsewhere (a log, a pipe, a batch job) a line on stderr every
//! [`EVERY`] once the run is estimated to take more than [`LONG_RUN`]. Counting changes no
//! result: the trials run as they would without it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the progress is printed off a terminal.
pub const EVERY: Duration = Duration::from_secs(5);

/// A run estimated to take longer than this prints its progress off a terminal.
pub const LONG_RUN: Duration = Duration::from_secs(10);

/// What the trials' threads count and the printer reads.
#[derive(Debug, Default)]
struct Counts {
    tasks: AtomicU64,
    trials: AtomicU64,
}

/// The progress of a run: counts from the trials' threads, shown by a bar or printed lines.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    counts: Arc<Counts>,
    /// Set when the run ends, to wake the printer.
    finished: Arc<(Mutex<bool>, Condvar)>,
    printer: Option<JoinHandle<()>>,
}

impl Progress {
    /// The progress of a run of `tasks` tasks in `trials` trials, shown on stderr: a bar
    /// when it is a terminal, lines otherwise.
    pub fn start(tasks: u64, trials: u64) -> Self {
        Self::start_on(tasks, trials, std::io::stderr().is_terminal(), EVERY)
    }

    /// [`Progress::start`] with a bar or lines as `terminal` says, lines printed `every`.
    pub fn start_on(tasks: u64, trials: u64, terminal: bool, every: Duration) -> Self {
        let counts = Arc::new(Counts::default());
        let finished = Arc::new((Mutex::new(false), Condvar::new()));
        let (bar, printer) = if terminal {
            let bar = ProgressBar::new(tasks);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} tasks, {msg} {elapsed}, {eta} left",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_message(format!("0/{trials} trials,"));
            bar.enable_steady_tick(Duration::from_secs(1));
            (bar, None)
        } else {
            let counts = Arc::clone(&counts);
            let finished = Arc::clone(&finished);
            let printer = std::thread::Builder::new()
                .name("progress".into())
                .spawn(move || print_lines(&counts, &finished, tasks, trials, every))
                .ok();
            (
                ProgressBar::with_draw_target(Some(tasks), ProgressDrawTarget::hidden()),
                printer,
            )
        };
        Progress {
            bar,
            counts,
            finished,
            printer,
        }
    }

    /// `n` more tasks reached their outcome.
    pub fn tasks_done(&self, n: u64) {
        self.counts.tasks.fetch_add(n, Ordering::Relaxed);
        self.bar.inc(n);
    }

    /// One more trial ended.
    pub fn trial_done(&self, trials: u64) {
        let done = self.counts.trials.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.set_message(format!("{done}/{trials} trials,"));
    }

    /// The run ended: the bar cleared, the printer stopped.
    pub fn finish(mut self) {
        self.bar.finish_and_clear();
        self.stop();
    }

    fn stop(&mut self) {
        let (lock, wake) = &*self.finished;
        if let Ok(mut f) = lock.lock() {
            *f = true;
        }
        wake.notify_all();
        if let Some(p) = self.printer.take() {
            let _ = p.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Off a terminal: every `every` until the run ends, a line with the tasks done, the trials
/// done and the time left, once the run is estimated to take more than [`LONG_RUN`] (or
/// nothing is done yet).
fn print_lines(
    counts: &Counts,
    finished: &(Mutex<bool>, Condvar),
    tasks: u64,
    trials: u64,
    every: Duration,
) {
    let start = Instant::now();
    let (lock, wake) = finished;
    let Ok(mut done) = lock.lock() else {
        return;
    };
    let mut next = every;
    loop {
        let wait = next.saturating_sub(start.elapsed());
        done = match wake.wait_timeout(done, wait) {
            Ok((d, _)) => d,
            Err(_) => return,
        };
        if *done {
            return;
        }
        let elapsed = start.elapsed();
        if elapsed < next {
            continue;
        }
        next += every;
        let n = counts.tasks.load(Ordering::Relaxed);
        if let Some(line) = line(
            n,
            tasks,
            counts.trials.load(Ordering::Relaxed),
            trials,
            elapsed,
        ) {
            eprintln!("{line}");
        }
    }
}

/// The progress line after `elapsed` with `done` of `tasks` tasks and `trials_done` of
/// `trials` trials, or `None` when the run is estimated to take at most [`LONG_RUN`].
pub fn line(
    done: u64,
    tasks: u64,
    trials_done: u64,
    trials: u64,
    elapsed: Duration,
) -> Option<String> {
    let left = if done == 0 {
        None
    } else {
        let total = elapsed.as_secs_f64() * tasks.max(done) as f64 / done as f64;
        if total <= LONG_RUN.as_secs_f64() {
            return None;
        }
        Some(Duration::from_secs_f64(total - elapsed.as_secs_f64()))
    };
    let share = if tasks == 0 {
        100.0
    } else {
        100.0 * done as f64 / tasks as f64
    };
    Some(format!(
        "progress: {done} of {tasks} tasks ({share:.1}%), {trials_done} of {trials} trials, {} elapsed, {}",
        clock(elapsed),
        left.map_or_else(
            || "time left unknown".to_owned(),
            |l| format!("about {} left", clock(l))
        )
    ))
}

/// `1h02m03s`, `2m03s` or `3s`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_prints_its_tasks_and_time_left() {
        // 100 of 1,000 tasks in 5 s: 50 s in all, 45 s left.
        let l = line(100, 1000, 0, 2, Duration::from_secs(5)).unwrap();
        assert_eq!(
            l,
            "progress: 100 of 1000 tasks (10.0%), 0 of 2 trials, 5s elapsed, about 45s left"
        );
        // Nothing done after 5 s: printed, the time left unknown.
        let l = line(0, 1000, 0, 2, Duration::from_secs(5)).unwrap();
        assert!(l.ends_with("time left unknown"), "{l}");
        // 900 of 1,000 in 5 s: about 5.6 s in all, not printed.
        assert_eq!(line(900, 1000, 1, 2, Duration::from_secs(5)), None);
        assert_eq!(clock(Duration::from_secs(3723)), "1h02m03s");
        assert_eq!(clock(Duration::from_secs(123)), "2m03s");
    }

    #[test]
    fn the_printer_stops_when_the_run_ends() {
        let p = Progress::start_on(10, 1, false, Duration::from_millis(10));
        p.tasks_done(3);
        p.trial_done(1);
        let t = Instant::now();
        p.finish();
        assert!(t.elapsed() < Duration::from_secs(1));
    }
}
