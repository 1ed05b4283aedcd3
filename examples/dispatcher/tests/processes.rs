//! The dispatcher runs real processes for about 10 s on the machine's cores and checks its
//! bookkeeping against the wall clock and the process table.

use std::process::Command;

/// Processes whose command line holds `marker` (Linux `/proc`; none elsewhere).
fn processes_marked(marker: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(marker))
        .collect()
}

#[test]
fn real_processes_end_once_on_time_by_the_wall_clock_and_leave_no_process() {
    let marker = format!("prunesim-worker-test-{}", std::process::id());
    let out = Command::new(env!("CARGO_BIN_EXE_dispatcher"))
        .args([
            "--seconds",
            "7",
            "--rate",
            "14",
            "--json",
            "--marker",
            &marker,
        ])
        .output()
        .expect("the dispatcher runs");
    assert!(
        out.status.success(),
        "the dispatcher failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON summary");
    eprintln!("{v:#}");
    let tasks = v["tasks"].as_u64().unwrap();
    assert!(
        tasks > 30,
        "a Poisson clock of 14/s for 7 s gives more than 30 tasks"
    );
    assert_eq!(v["ended_once"], true, "a task ended twice or never");
    assert_eq!(v["outcomes"].get("open"), None, "a task did not end");
    let counted: u64 = v["outcomes"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(counted, tasks);
    assert_eq!(
        v["late_counted_on_time"], 0,
        "a task counted on time ended after its deadline by the wall clock"
    );
    assert_eq!(v["children_left"], 0, "a worker was not reaped");
    let r = v["robustness"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&r));
    assert_eq!(
        processes_marked(&marker),
        Vec::<String>::new(),
        "a worker process outlived the dispatcher"
    );
}
