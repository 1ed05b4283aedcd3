//! The HTML report in a real browser: headless Chromium (Debian's `chromium` package, which
//! `.ci/run` installs) driven over the DevTools protocol. A traced run's report must open
//! without a console error or a network request, draw its timeline from the trace it holds
//! (the run wrote no figure file) with one bar per executed task of the trace,
//! show a tooltip on hover, zoom on the wheel, and look like something (a screenshot that is
//! not blank); a report of 10^5 tasks must open and draw its timeline as slices until zoomed
//! in.
//!
//! Without a Chromium binary (`PRUNESIM_CHROMIUM`, else `chromium`, `chromium-browser`,
//! `google-chrome` on the `PATH`) each test says why it skips and passes.

use std::io::ErrorKind;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use runner::trace::{CsvTrace, EndedBy, EventRow, TaskRow, TraceSink};
use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The Chromium binary, if there is one.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PRUNESIM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn skip_reason() -> Option<String> {
    match chromium() {
        Some(_) => None,
        None => Some(
            "skipped: no Chromium found (set PRUNESIM_CHROMIUM, or install Debian's chromium \
             package as .ci/run does as root: apt-get install chromium)"
                .into(),
        ),
    }
}

const WAIT: Duration = Duration::from_secs(60);

/// A headless Chromium with one page, driven over the DevTools protocol (flat sessions on
/// the browser's WebSocket).
struct Browser {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
    /// Every event received, in order.
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn launch(bin: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--remote-debugging-port=0",
                "--window-size=1280,1000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Chromium starts");
        // Chromium writes the port and the browser's WebSocket path once it listens.
        let port_file = profile.path().join("DevToolsActivePort");
        let start = Instant::now();
        let text = loop {
            if let Ok(t) = std::fs::read_to_string(&port_file) {
                if t.lines().count() >= 2 {
                    break t;
                }
            }
            assert!(
                start.elapsed() < WAIT,
                "Chromium did not open its DevTools port"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut lines = text.lines();
        let port = lines.next().unwrap().trim();
        let path = lines.next().unwrap().trim();
        let (ws, _) = tungstenite::connect(format!("ws://127.0.0.1:{port}{path}"))
            .expect("the DevTools WebSocket");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
        }
        let mut b = Browser {
            child,
            ws,
            session: String::new(),
            next_id: 0,
            events: Vec::new(),
            _profile: profile,
        };
        let target = b.call(None, "Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().unwrap().to_owned();
        let attached = b.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        b.session = attached["sessionId"].as_str().unwrap().to_owned();
        for domain in ["Page", "Runtime", "Log", "Network"] {
            b.send(&format!("{domain}.enable"), json!({}));
        }
        b.send(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": false}),
        );
        b
    }

    fn read(&mut self) -> Option<Value> {
        match self.ws.read() {
            Ok(Message::Text(t)) => Some(serde_json::from_str(&t).unwrap()),
            Ok(_) => None,
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) =>
            {
                None
            }
            Err(e) => panic!("DevTools connection: {e}"),
        }
    }

    /// A command; its result. Events that arrive meanwhile are kept.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method});
        msg["params"] = params;
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(msg.to_string())).unwrap();
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < WAIT, "no answer to {method}");
            let Some(v) = self.read() else { continue };
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    /// A command to the page.
    fn send(&mut self, method: &str, params: Value) -> Value {
        let s = self.session.clone();
        self.call(Some(&s), method, params)
    }

    /// Waits for an event of the page.
    fn wait_for(&mut self, method: &str) {
        let start = Instant::now();
        let seen = |e: &Value| e["method"] == json!(method);
        if self.events.iter().any(seen) {
            return;
        }
        loop {
            assert!(start.elapsed() < WAIT, "no {method}");
            if let Some(v) = self.read() {
                let hit = seen(&v);
                self.events.push(v);
                if hit {
                    return;
                }
            }
        }
    }

    /// Evaluates an expression in the page (promises awaited); its value.
    fn eval(&mut self, expr: &str) -> Value {
        let r = self.send(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expr}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Opens a file; the time until its load event.
    fn open(&mut self, file: &Path) -> Duration {
        self.events.clear();
        let start = Instant::now();
        self.send(
            "Page.navigate",
            json!({"url": format!("file://{}", file.display())}),
        );
        self.wait_for("Page.loadEventFired");
        start.elapsed()
    }

    fn mouse(&mut self, kind: &str, x: f64, y: f64, delta_y: f64) {
        self.send(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "deltaX": 0, "deltaY": delta_y}),
        );
    }

    /// Lets the page draw (two animation frames).
    fn settle(&mut self) {
        self.eval(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
        );
    }

    /// Console errors, uncaught exceptions, and requests for anything but the file itself.
    fn problems(&mut self) -> Vec<String> {
        // Drain what is still on its way.
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(300) {
            if let Some(v) = self.read() {
                self.events.push(v);
            }
        }
        let mut out = Vec::new();
        for e in &self.events {
            let p = &e["params"];
            match e["method"].as_str().unwrap_or("") {
                "Runtime.exceptionThrown" => out.push(format!("exception: {p}")),
                "Runtime.consoleAPICalled"
                    if matches!(p["type"].as_str(), Some("error" | "assert" | "warning")) =>
                {
                    out.push(format!("console {}: {}", p["type"], p["args"]));
                }
                "Log.entryAdded" if p["entry"]["level"] == json!("error") => {
                    out.push(format!("log: {}", p["entry"]["text"]));
                }
                "Network.requestWillBeSent" => {
                    let url = p["request"]["url"].as_str().unwrap_or("");
                    if !url.starts_with("file:") && !url.starts_with("data:") {
                        out.push(format!("a network request: {url}"));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// A screenshot of the viewport, decoded: (width, height, RGBA). With
    /// `PRUNESIM_BROWSER_SHOTS=DIR` it is also written to `DIR/<name>.png`, to look at.
    fn screenshot(&mut self, name: &str) -> (u32, u32, Vec<u8>) {
        let r = self.send("Page.captureScreenshot", json!({"format": "png"}));
        let bytes = data_encoding::BASE64
            .decode(r["data"].as_str().unwrap().as_bytes())
            .unwrap();
        if let Some(dir) = std::env::var_os("PRUNESIM_BROWSER_SHOTS") {
            std::fs::write(Path::new(&dir).join(format!("{name}.png")), &bytes).unwrap();
        }
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        let rgba = match info.color_type {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf
                .chunks(3)
                .flat_map(|c| [c[0], c[1], c[2], 255])
                .collect(),
            other => panic!("screenshot in {other:?}"),
        };
        (info.width, info.height, rgba)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.ws.send(Message::text(
            json!({"id": 0, "method": "Browser.close", "params": {}}).to_string(),
        ));
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The page's centre of the first element matching `selector`, scrolled into view.
fn centre_of(b: &mut Browser, selector: &str) -> (f64, f64) {
    let v = b.eval(&format!(
        "(() => {{ const e = document.querySelector('{selector}'); e.scrollIntoView({{block: 'center'}}); \
         const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
    ));
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

/// The centre of the first element matching `selector` that is on top there (not covered
/// by a mark), with `within` scrolled into view.
fn centre_on_top(b: &mut Browser, within: &str, selector: &str) -> (f64, f64) {
    let v = b.eval(&format!(
        "(() => {{ document.querySelector('{within}').scrollIntoView({{block: 'center'}}); \
         for (const e of document.querySelectorAll('{selector}')) {{ \
           const r = e.getBoundingClientRect(); const x = r.x + r.width / 2, y = r.y + r.height / 2; \
           if (document.elementFromPoint(x, y) === e) return [x, y]; }} return null; }})()"
    ));
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

fn count(b: &mut Browser, selector: &str) -> u64 {
    b.eval(&format!("document.querySelectorAll('{selector}').length"))
        .as_u64()
        .unwrap()
}

#[test]
fn the_report_of_a_traced_run_works_in_a_browser() {
    if let Some(why) = skip_reason() {
        eprintln!("{why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let run = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args([
            "run",
            "--trials",
            "2",
            "--jobs",
            "1",
            "--no-bound",
            "--report",
            "--out",
        ])
        .arg(&out)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = out.join("report.html");
    let size = std::fs::metadata(&report).unwrap().len();
    assert!(size < 2_000_000, "an 800-task report of {size} bytes");
    // The page draws the timelines itself: the run wrote no figure file.
    let figures: Vec<_> = std::fs::read_dir(out.join("trace"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("timeline-"))
        .collect();
    assert!(figures.is_empty(), "{figures:?}");
    let tasks = runner::trace::read_tasks(&out.join("trace/tasks-0.csv")).unwrap();
    let executed = tasks.iter().filter(|r| r.executed()).count() as u64;
    let marks = tasks
        .iter()
        .filter(|r| {
            r.machine.is_some()
                && matches!(
                    r.ended_by,
                    EndedBy::Pruner | EndedBy::Heuristic | EndedBy::Deadline
                )
        })
        .count() as u64;

    let mut b = Browser::launch(&chromium().unwrap());
    let load = b.open(&report);
    eprintln!("report of 2 x 800 tasks: {size} bytes, loaded in {load:?}");
    b.settle();
    assert_eq!(count(&mut b, "#timeline rect.bar"), executed);
    assert_eq!(count(&mut b, "#timeline path.mark"), marks);
    assert!(count(&mut b, "#summary-table tr") > 20);
    assert!(count(&mut b, "#robustness path.cumulative") == 1);
    assert!(count(&mut b, "#level path.level") == 1);

    // A tooltip with the task's trace appears on hover.
    assert_eq!(
        b.eval("document.getElementById('tooltip').hidden"),
        json!(true)
    );
    let (x, y) = centre_on_top(&mut b, "#timeline", "#timeline rect.bar");
    b.mouse("mouseMoved", x, y, 0.0);
    b.settle();
    let tip = b.eval(
        "(() => { const t = document.getElementById('tooltip'); return t.hidden ? null : t.textContent; })()",
    );
    let tip = tip.as_str().expect("a tooltip on hover");
    for field in [
        "task",
        "machine",
        "chance when mapped",
        "outcome",
        "ended by",
    ] {
        assert!(tip.contains(field), "{field} not in the tooltip: {tip}");
    }

    // The wheel zooms in: fewer bars, and the view note says so.
    b.mouse("mouseWheel", x, y, -600.0);
    for _ in 0..5 {
        b.mouse("mouseWheel", x, y, -120.0);
    }
    b.settle();
    let zoomed = count(&mut b, "#timeline rect.bar");
    assert!(zoomed < executed, "zoomed in: {zoomed} of {executed} bars");

    // The second trial from its link in the trials table.
    b.eval("document.querySelector('a.trial[data-trial=\"1\"]').click()");
    b.settle();
    let tasks1 = runner::trace::read_tasks(&out.join("trace/tasks-1.csv")).unwrap();
    let executed1 = tasks1.iter().filter(|r| r.executed()).count() as u64;
    assert_eq!(count(&mut b, "#timeline rect.bar"), executed1);

    // Not blank: the timeline in view has plenty of non-white pixels.
    centre_of(&mut b, "#timeline");
    let (w, h, rgba) = b.screenshot("trial-1");
    let inked = rgba
        .chunks(4)
        .filter(|p| p[0] < 230 || p[1] < 230 || p[2] < 230)
        .count();
    assert!(
        inked > (w * h) as usize / 20,
        "{inked} of {} pixels not white",
        w * h
    );
    let problems = b.problems();
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A synthetic run folder with one trial of `n` tasks on 64 machines.
fn synthetic_run(dir: &Path, n: usize) {
    let machines = 64;
    std::fs::create_dir_all(dir.join("trace")).unwrap();
    std::fs::write(
        dir.join("summary.json"),
        json!({"experiment": "synthetic", "trials": 1, "pet": {"machines": machines}}).to_string(),
    )
    .unwrap();
    let mut sink = CsvTrace::create(&dir.join("trace"), 0).unwrap();
    let mut free = vec![0i64; machines];
    for i in 0..n {
        let m = i % machines;
        let arrival = (i / 8) as i64;
        let start = free[m].max(arrival);
        let end = start + 5 + (i % 7) as i64;
        free[m] = end;
        let (outcome, ran) = match i % 10 {
            0 => (model::Outcome::PrunedPending, false),
            1 => (model::Outcome::ExpiredExecuting, true),
            _ => (model::Outcome::OnTime, true),
        };
        sink.task(&TaskRow {
            task: i,
            task_type: i % 4,
            arrival,
            deadline: end + 10,
            counted: true,
            considered: Some(arrival),
            deferrals: 0,
            first_deferred: None,
            mapped: Some(arrival),
            machine: Some(m),
            chance: Some(0.9),
            start: ran.then_some(start),
            end,
            outcome,
            ended_by: EndedBy::of(outcome, false),
        })
        .unwrap();
    }
    for e in 0..(n / 4) as u64 {
        sink.event(&EventRow {
            event: e,
            tick: e as i64 * 2,
            misses: (e % 3) as usize,
            level: Some((e % 5) as f64 / 2.0),
            engaged: e % 50 < 10,
            batch: 3,
            free_slots: Some(2),
            heuristic_ran: true,
            dropped: 0,
            heuristic_dropped: 0,
            deferred: 0,
            assigned: 1,
        })
        .unwrap();
    }
    sink.commit().unwrap();
}

#[test]
fn a_report_of_100k_tasks_opens_and_draws_slices_until_zoomed_in() {
    if let Some(why) = skip_reason() {
        eprintln!("{why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    synthetic_run(dir.path(), 100_000);
    let report = dir.path().join("report.html");
    let made = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .arg("report")
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let made = made.elapsed();
    let size = std::fs::metadata(&report).unwrap().len();
    let mut b = Browser::launch(&chromium().unwrap());
    let load = b.open(&report);
    b.settle();
    eprintln!("report of 10^5 tasks: {size} bytes, written in {made:?}, loaded in {load:?}");
    assert_eq!(count(&mut b, "#timeline rect.bar"), 0);
    assert!(count(&mut b, "#timeline rect.agg") > 1000);
    centre_of(&mut b, "#timeline");
    b.screenshot("100k-whole");
    let (x, y) = centre_on_top(&mut b, "#timeline", "#timeline rect.agg");
    b.mouse("mouseMoved", x, y, 0.0);
    b.settle();
    let tip = b.eval("document.getElementById('tooltip').textContent");
    assert!(tip.as_str().unwrap().contains("tasks"), "{tip}");
    // Zoomed in far enough, single tasks again.
    for _ in 0..30 {
        b.mouse("mouseWheel", x, y, -200.0);
    }
    b.settle();
    let bars = count(&mut b, "#timeline rect.bar");
    assert!(bars > 0 && bars <= 3000, "{bars} bars");
    b.screenshot("100k-zoomed");
    let problems = b.problems();
    assert!(problems.is_empty(), "{problems:#?}");
}
