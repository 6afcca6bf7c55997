//! `index.html` in a real browser: headless Chromium (Debian's `chromium`,
//! installed by `scripts/install-deps`, which `scripts/check` runs) opens a
//! report written by `bench sim` from disk, with the network off. The DOM
//! must show the verdict and the plot, hold none of the scenario's hostile
//! markup as elements, and the screenshot must show the verdict banner and
//! the plot's bands.
//!
//! A report written by `bench hil` on QEMU's emulated board (the reference
//! firmware, a short game) is opened the same way: the verdict, the drift
//! plot and the press-latency histogram.
//!
//! Not skipped when Chromium is missing: it fails with the install hint.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{reference_firmware, temp_dir};

/// A scenario whose description and file name are markup, and whose games
/// fail (a 2000 ppm fast clock against a zero time-error bound): few games,
/// so the page is short enough for the plot to be on the first screen.
const HOSTILE: &str = r#"
description = "<script>document.title='pwned'</script> & \"quoted\" </svg><img src=x onerror=alert(1)> \u0001"
control = "60+1"
games = 2
seed = 3
[players]
think = { distribution = "uniform", min_ms = 500, max_ms = 3000 }
[device]
drift_ppm = 2000
[expect]
time_error_max_us = 0
agreement_min_percent = 0
"#;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 2000;

/// The browser: `$BENCH_CHROMIUM`, else `chromium` on the PATH.
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("BENCH_CHROMIUM") {
        return PathBuf::from(path);
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths).map(|dir| dir.join("chromium")).find(|candidate| candidate.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "headless Chromium is needed to test index.html and was not found on the PATH: install Debian's \
             `chromium` package with scripts/install-deps (scripts/check runs it), or set BENCH_CHROMIUM to a \
             Chromium binary"
        )
    })
}

/// Runs Chromium headless on `page` with `extra` arguments and a fresh
/// profile; no network, no background services. Killed after a minute.
fn browse(page: &Path, profile: &Path, extra: &[String]) -> Output {
    let url = format!("file://{}", page.display());
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {}: {error}", chromium().display()));
    // Drain the pipes while waiting, so a large DOM cannot block the browser.
    let stdout = child.stdout.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = std::io::Read::read_to_end(&mut pipe, &mut bytes);
            bytes
        })
    });
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = std::io::Read::read_to_end(&mut pipe, &mut bytes);
            bytes
        })
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let join = |handle: Option<std::thread::JoinHandle<Vec<u8>>>| {
        handle.and_then(|handle| handle.join().ok()).unwrap_or_default()
    };
    Output { status, stdout: join(stdout), stderr: join(stderr) }
}

/// Pixels of the screenshot within `tolerance` of `color` (per channel),
/// in rows `rows`.
fn count_near(image: &Rgb, color: [u8; 3], tolerance: u8, rows: std::ops::Range<u32>) -> usize {
    let mut count = 0;
    for y in rows {
        for x in 0..image.width {
            let pixel = image.pixel(x, y);
            if pixel.iter().zip(color).all(|(a, b)| a.abs_diff(b) <= tolerance) {
                count += 1;
            }
        }
    }
    count
}

struct Rgb {
    width: u32,
    height: u32,
    channels: usize,
    bytes: Vec<u8>,
}

impl Rgb {
    fn decode(path: &Path) -> Rgb {
        let file = std::fs::File::open(path).expect("the screenshot");
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().expect("a PNG");
        let mut bytes = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut bytes).expect("a frame");
        bytes.truncate(info.buffer_size());
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected screenshot colour type {other:?}"),
        };
        Rgb { width: info.width, height: info.height, channels, bytes }
    }

    fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let at = (y as usize * self.width as usize + x as usize) * self.channels;
        [self.bytes[at], self.bytes[at + 1], self.bytes[at + 2]]
    }
}

#[test]
fn index_html_shows_the_verdict_and_the_plot_in_chromium() {
    let browser = chromium();
    let dir = temp_dir("chromium");
    let hostile_dir = dir.join("<b>&\"x'");
    std::fs::create_dir_all(&hostile_dir).expect("mkdir");
    let scenario = hostile_dir.join("evil<i>.toml");
    std::fs::write(&scenario, HOSTILE).expect("write the scenario");
    let out = dir.join("report");
    let output = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["sim", "--scenario"])
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("bench runs");
    assert_eq!(output.status.code(), Some(1), "the hostile run fails: {}", String::from_utf8_lossy(&output.stdout));
    let page = out.join("index.html");

    let dom = browse(&page, &dir.join("profile-dom"), &["--dump-dom".into()]);
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.status.success(), "{} --dump-dom failed: {}", browser.display(), String::from_utf8_lossy(&dom.stderr));
    let verdict = dom_text.find("id=\"verdict\"").expect("the verdict element is in the DOM");
    let headline = dom_text.get(verdict..).and_then(|rest| rest.find("<h1>FAIL</h1>")).map(|at| at + verdict);
    assert!(headline.is_some(), "the verdict says FAIL:\n{dom_text}");
    let svg = dom_text.find("<svg").expect("the plot is in the DOM as inline SVG");
    assert!(verdict < svg, "the verdict comes before the plot");
    assert_eq!(dom_text.matches("<svg").count(), 1, "exactly the drift plot");
    assert!(dom_text.contains("</svg>"));
    assert!(!dom_text.contains("<script") && !dom_text.contains("<img"), "no markup from the scenario:\n{dom_text}");
    assert!(dom_text.contains("&lt;script&gt;document.title="), "the description is shown as text");
    assert!(dom_text.contains("evil&lt;i&gt;"), "the scenario's name is shown as text");
    assert!(!dom_text.contains("pwned</title>"), "the title is not the hostile one");
    assert!(dom_text.contains("bench sim --scenario"), "the replay commands are shown");

    let shot = dir.join("screenshot.png");
    let screenshot = browse(
        &page,
        &dir.join("profile-shot"),
        &[format!("--screenshot={}", shot.display()), format!("--window-size={WIDTH},{HEIGHT}")],
    );
    assert!(
        screenshot.status.success() && shot.is_file(),
        "{} --screenshot failed: {}",
        browser.display(),
        String::from_utf8_lossy(&screenshot.stderr)
    );
    // Kept for a look: BENCH_KEEP_SCREENSHOT=path copies it there.
    if let Some(keep) = std::env::var_os("BENCH_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).expect("keep the screenshot");
    }
    let image = Rgb::decode(&shot);
    assert_eq!((image.width, image.height), (WIDTH, HEIGHT));
    // The FAIL banner (#cf222e) fills the top of the page.
    let banner = count_near(&image, [0xcf, 0x22, 0x2e], 4, 0..300);
    assert!(banner > 50_000, "the red FAIL banner is at the top ({banner} pixels)");
    // The plot's bands below the banner: the edges of White's (blue) and
    // Black's (red) display error, in the plot's own colours.
    let white = count_near(&image, [31, 119, 180], 12, 300..HEIGHT);
    // (Tight: the failure markers are #cf222e, close to the plot's red.)
    let black = count_near(&image, [214, 39, 40], 3, 300..HEIGHT);
    assert!(white > 300 && black > 300, "the drift plot is drawn ({white} blue, {black} red band pixels)");
    // Not blank: many colours (text, tables, plot).
    let mut colours = std::collections::BTreeSet::new();
    for y in (0..HEIGHT).step_by(4) {
        for x in (0..WIDTH).step_by(4) {
            colours.insert(image.pixel(x, y));
        }
    }
    assert!(colours.len() > 200, "the page is not blank ({} colours)", colours.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A short game for the emulated board, its description markup.
const HIL_GAME: &str = r#"
description = "<script>document.title='pwned'</script> </svg><img src=x onerror=alert(1)>"
control = "30+1"
games = 1
seed = 4
[players]
think = { distribution = "uniform", min_ms = 300, max_ms = 2000 }
[board]
ends_per_move = 0
max_moves = 6
"#;

#[test]
fn a_hil_page_shows_the_verdict_the_drift_plot_and_the_latency_histogram_in_chromium() {
    let browser = chromium();
    let dir = temp_dir("chromium-hil");
    let scenario = dir.join("hil<b>game.toml");
    std::fs::write(&scenario, HIL_GAME).expect("write the scenario");
    let out = dir.join("report");
    let output = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["hil", "--board", "qemu", "--scenario"])
        .arg(&scenario)
        .arg("--firmware")
        .arg(reference_firmware())
        .arg("--out")
        .arg(&out)
        .output()
        .expect("bench runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "the reference firmware passes: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    let page = out.join("index.html");

    let dom = browse(&page, &dir.join("profile-dom"), &["--dump-dom".into()]);
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.status.success(), "{} --dump-dom failed: {}", browser.display(), String::from_utf8_lossy(&dom.stderr));
    let verdict = dom_text.find("id=\"verdict\"").expect("the verdict element is in the DOM");
    assert!(dom_text.get(verdict..).is_some_and(|rest| rest.contains("<h1>PASS</h1>")), "PASS:\n{dom_text}");
    assert_eq!(dom_text.matches("<svg").count(), 2, "the drift plot and the latency histogram");
    let latency = dom_text.find("id=\"latency\"").expect("the latency section");
    let histogram = dom_text.rfind("<svg").expect("the histogram");
    assert!(verdict < latency && latency < histogram, "the histogram is in the latency section");
    assert!(dom_text.get(histogram..).is_some_and(|rest| rest.contains("presses")), "the histogram's caption");
    assert!(dom_text.contains("href=\"latency.png\""), "a link to the PNG");
    assert!(!dom_text.contains("<script") && !dom_text.contains("<img"), "no markup from the scenario:\n{dom_text}");
    assert!(dom_text.contains("hil&lt;b&gt;game"), "the scenario's name is shown as text");

    let shot = dir.join("screenshot.png");
    let tall = 6_000;
    let screenshot = browse(
        &page,
        &dir.join("profile-shot"),
        &[format!("--screenshot={}", shot.display()), format!("--window-size={WIDTH},{tall}")],
    );
    assert!(screenshot.status.success() && shot.is_file(), "{}", String::from_utf8_lossy(&screenshot.stderr));
    let image = Rgb::decode(&shot);
    // The PASS banner (#1a7f37) at the top; the histogram's bars
    // (rgb(31, 119, 180) at 70 % on white) further down.
    let banner = count_near(&image, [0x1a, 0x7f, 0x37], 4, 0..300);
    assert!(banner > 50_000, "the green PASS banner is at the top ({banner} pixels)");
    let bars = count_near(&image, [98, 160, 203], 6, 300..image.height);
    assert!(bars > 500, "the histogram's bars are drawn ({bars} pixels)");
    let _ = std::fs::remove_dir_all(&dir);
}
