//! Escaping, and the pages of made-up reports.

use super::*;

#[test]
fn escape_covers_markup_quotes_and_control_characters() {
    assert_eq!(
        escape("<script>alert('x')</script> & \"q\""),
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
    );
    assert_eq!(escape("a\u{1}b\nc"), "a[U+0001]b\nc");
}

#[test]
fn numbers_read_in_their_unit() {
    assert_eq!(percent(5, 6), "83.33 %");
    assert_eq!(percent(0, 0), "0.00 %");
    assert_eq!(ppm(-250_125), "-250.125 ppm");
    assert_eq!(ppm(2_000_000), "2000.000 ppm");
}

// ---- hardware-in-the-loop pages ----

use crate::hil::tests::{farm_report, probe_board, sample_report, with_mismatches};

const HOSTILE: &str = "<script>alert('x')</script> & \"q\" </svg><img src=x onerror=alert(1)> \u{1}";

fn position(html: &str, needle: &str) -> usize {
    html.find(needle).unwrap_or_else(|| panic!("the page has no `{needle}`"))
}

#[test]
fn a_hil_page_puts_the_verdict_first_then_each_mismatch_with_its_press_and_both_values() {
    let report = with_mismatches(sample_report(), 3);
    let html = render(&hil_page(&report, "<svg id=\"plot\"></svg>", "<svg id=\"histogram\"></svg>"));
    assert!(html.contains("data-verdict=\"fail\"") && html.contains("<h1>FAIL</h1>"), "{html}");
    let verdict = position(&html, "id=\"verdict\"");
    let failures = position(&html, "id=\"failures\"");
    let games = position(&html, "id=\"games\"");
    let drift = position(&html, "id=\"drift\"");
    let latency = position(&html, "id=\"latency\"");
    let facts = position(&html, "id=\"facts\"");
    assert!(verdict < failures && failures < games && games < drift && drift < latency && latency < facts);
    // The first mismatch: press 3, its quantity, both values, in the failures.
    let failure = position(&html, "Game 1: 3 mismatches");
    assert!(failures < failure && failure < games);
    assert!(
        html.contains("press.remaining_us first differs at press 3 (3.5 s): model 58.500000 s, firmware 58.000000 s")
    );
    assert!(html.contains("<td class=\"num\">3</td><td class=\"num\">3.5 s</td><td>press.remaining_us</td><td>58.500000 s</td><td>58.000000 s</td>"));
    assert!(html.contains("<td class=\"num\">5</td>"), "every listed mismatch, press 5 the last");
    assert!(
        html.contains("<pre class=\"replay\">bench hil --board qemu --scenario blitz-3-2 --seed 12 --games 2</pre>")
    );
    assert!(html.contains("Check failed: the firmware matches the clock model"));
    // Drift with its interval, latency percentiles, the firmware image's hash.
    assert!(html.contains("-0.500 ppm ± 0.100 (95 % confidence interval -0.600 to -0.400 ppm; tolerance ±5 ppm)"));
    assert!(html.contains("<svg id=\"plot\"></svg>"));
    for cell in ["4 µs", "6 µs", "9 µs", "3 ms", "80"] {
        assert!(html.contains(&format!("<td class=\"num\">{cell}</td>")), "latency {cell}");
    }
    // The histogram, inline in the latency section, and its non-empty bins.
    let histogram = position(&html, "<svg id=\"histogram\"></svg>");
    assert!(latency < histogram && histogram < facts);
    assert!(html.contains("<td>0–10</td><td class=\"num\">79</td>"), "{html}");
    assert!(html.contains("<td>2k–5k</td><td class=\"num\">1</td>"), "{html}");
    assert!(html.contains("href=\"latency.svg\"") && html.contains("href=\"latency.png\""));
    assert!(html.contains(&format!("<code>{}</code>", report.firmware.sha256)), "the whole ELF hash");
    assert!(html.contains(&report.firmware.sha256[..16]), "the hash in the verdict");
}

#[test]
fn a_farm_page_lists_each_board_and_the_latency_measured_on_the_boards() {
    let html = render(&hil_page(&farm_report(), "<svg></svg>", "<svg></svg>"));
    let (games, boards) = (position(&html, "id=\"games\""), position(&html, "id=\"boards\""));
    let (drift, latency) = (position(&html, "id=\"drift\""), position(&html, "id=\"latency\""));
    let facts = position(&html, "id=\"facts\"");
    assert!(games < boards && boards < drift, "the boards follow the games");
    assert!(html.contains("<a href=\"#boards\">Boards</a>"), "the section is in the navigation");
    assert!(html.contains("A farm of 2 boards"));
    let row_b = position(
        &html,
        "<tr><td>0483:374b:B</td><td>NUCLEO-F401RE via STLink V2-1 (B)</td><td>0</td><td>ok</td>\
         <td class=\"num\">+0.250 ppm</td><td class=\"num\">-40.000 ppm ± 0.120</td>\
         <td>16 of 20</td><td>900 µs / 9 ms</td></tr>",
    );
    let row_a = position(&html, "<tr><td>0483:374b:A</td>");
    assert!(boards < row_b && row_b < row_a && row_a < drift, "one row per board, in the report's order");
    assert!(html.contains("<td class=\"num\">+12.000 ppm ± 0.120</td>"));
    assert!(html.contains(
        "Oscillator drift ± half of its 95 % confidence interval. Reads used: probe round trip within the \
         fastest + 100 µs."
    ));
    assert!(!html.contains("<tr class=\"bad\">"), "no board failed");
    // The latency on the boards, in the latency section.
    let on_board = position(&html, "<tr><td>write to edge stamp</td>");
    assert!(latency < on_board && on_board < facts);
    assert!(html.contains(
        "<tr><td>write to edge stamp</td><td class=\"num\">180 µs</td><td class=\"num\">205 µs</td>\
         <td class=\"num\">230 µs</td><td class=\"num\">260 µs</td><td class=\"num\">300 µs</td>\
         <td class=\"num\">80</td></tr>"
    ));
    assert!(html.contains("<tr><td>write bracket</td><td class=\"num\">380 µs</td><td class=\"num\">400 µs</td>"));
    assert!(html.contains("1 bracketed presses without a matching Press record."));
}

#[test]
fn a_failed_board_is_highlighted_with_what_stopped_it() {
    let mut report = farm_report();
    report.boards[0].games = vec![0, 2, 4, 5, 6, 7, 8];
    report.boards[1].error = Some("0483:374b:A: the debug probe went away; games 3 not played".into());
    if let Some(oscillator) = report.boards[1].oscillator.as_mut() {
        (oscillator.ppm, oscillator.error) = (None, Some("2 usable reads".into()));
    }
    let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
    assert!(html.contains("<tr><td>0483:374b:B</td><td>NUCLEO-F401RE via STLink V2-1 (B)</td><td>0, 2, 4–8</td>"));
    assert!(html.contains(
        "<tr class=\"bad\"><td>0483:374b:A</td><td>NUCLEO-F401RE via STLink V2-1 (A)</td><td>1</td>\
         <td>FAILED: 0483:374b:A: the debug probe went away; games 3 not played</td>"
    ));
    assert!(html.contains("<td class=\"num\">not measured (2 usable reads)</td>"));
    assert_eq!(html.matches("<tr class=\"bad\">").count(), 1, "only the failed board");
    assert!(html.contains("1 failed (highlighted, with what stopped it)"));
}

#[test]
fn one_board_on_a_probe_has_its_row_and_an_emulated_run_has_no_boards_section() {
    let mut report = sample_report();
    report.boards = vec![probe_board("X", &[0, 1, 2, 3], 3.0)];
    let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
    assert!(html.contains("One board on a debug probe."));
    assert!(html.contains("<tr><td>0483:374b:X</td><td>NUCLEO-F401RE via STLink V2-1 (X)</td><td>0–3</td>"));
    assert!(!html.contains("write to edge stamp"), "no latency on the board without its figures");

    let emulated = sample_report();
    assert!(emulated.boards.iter().all(|board| board.probe.is_none()) && emulated.boards.len() == 1);
    let html = render(&hil_page(&emulated, "<svg></svg>", "<svg></svg>"));
    assert!(!html.contains("id=\"boards\"") && !html.contains("#boards"), "no boards section");
    assert!(!html.contains("On the board") && !html.contains("bracketed presses"), "no latency on the board");
}

#[test]
fn a_passing_hil_page_says_pass_and_nothing_failed() {
    let html = render(&hil_page(&sample_report(), "<svg></svg>", "<svg></svg>"));
    assert!(html.contains("data-verdict=\"pass\"") && html.contains("<h1>PASS</h1>"));
    assert!(html.contains("Every check passed, and the firmware matched the clock model"));
    assert!(!html.contains("class=\"failure\"") && !html.contains("<tr class=\"bad\">"));
    assert!(!html.contains("INCOMPLETE"));
}

#[test]
fn an_incomplete_hil_page_says_why_and_a_run_without_data_still_renders() {
    let mut report = sample_report();
    report.complete = false;
    report.verdict = "fail".into();
    report.error = Some("QEMU went away".into());
    report.latency = None;
    report.games_detail.clear();
    let drift = &mut report.drift;
    (drift.measured, drift.error, drift.ppm, drift.ci_half_ppm) = (false, Some("2 usable samples".into()), None, None);
    let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
    assert!(html.contains("<strong>INCOMPLETE:</strong>") && html.contains("QEMU went away"), "{html}");
    assert!(html.contains("not measured (2 usable samples)"));
    assert!(html.contains("No press was registered"));
}

/// Every string of a HIL report a user or a firmware reaches (scenario,
/// file names, the board's description, mismatch values, errors) is
/// escaped: none becomes markup.
#[test]
fn every_string_of_a_hil_report_is_escaped() {
    let mut report = with_mismatches(sample_report(), 1);
    report.scenario.name = HOSTILE.into();
    report.scenario.description = HOSTILE.into();
    report.firmware.file = HOSTILE.into();
    report.firmware.name = Some(HOSTILE.into());
    report.board.description = HOSTILE.into();
    report.command = format!("bench hil --scenario '{HOSTILE}'");
    report.drift.note = Some(HOSTILE.into());
    report.boards = vec![probe_board("B", &[0], -40.0), probe_board("A", &[1], 12.0)];
    for board in &mut report.boards {
        (board.probe, board.description, board.error) = (Some(HOSTILE.into()), HOSTILE.into(), Some(HOSTILE.into()));
        if let Some(oscillator) = board.oscillator.as_mut() {
            (oscillator.ppm, oscillator.error) = (None, Some(HOSTILE.into()));
        }
    }
    if let Some(game) = report.games_detail.last_mut() {
        game.error = Some(HOSTILE.into());
        game.schedule_end = HOSTILE.into();
        for mismatch in game.mismatches.iter_mut().chain(&mut game.first_of_each) {
            (mismatch.model, mismatch.firmware) = (HOSTILE.into(), HOSTILE.into());
        }
    }
    let html = render(&hil_page(&report, "<svg></svg>", "<svg></svg>"));
    for raw in ["<script", "<img", "onerror=alert(1)>", "\u{1}"] {
        assert!(!html.contains(raw), "the page holds `{raw}` unescaped");
    }
    assert_eq!(html.matches("</svg>").count(), 2, "only the two plots close an svg");
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") && html.contains("[U+0001]"));
    assert!(html.contains("id=\"boards\""), "the boards' strings were on the page");
}
