//! Markdown pieces every report kind's `summary.md` (and the console) is
//! written with: escaped cells and code, numbers in their unit.

/// Inline code that survives backticks in `text`.
pub fn code(text: &str) -> String {
    let text = escape_text(text);
    let mut fence = String::from("`");
    while text.contains(fence.as_str()) {
        fence.push('`');
    }
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A table cell: one line, pipes escaped.
pub fn cell(text: &str) -> String {
    escape_text(text).replace('|', "\\|")
}

/// Free text on one line (a reason or a description cannot break the
/// layout), with no hidden control character ([`crate::format::visible`]).
pub fn escape_text(text: &str) -> String {
    crate::format::visible::visible(&text.replace(['\n', '\r', '\t'], " ")).into_owned()
}

/// `1234567` → `1.234567 s`; under a second, in ms or µs.
pub fn micros(value_us: u64) -> String {
    if value_us >= 1_000_000 {
        format!("{}.{:06} s", value_us / 1_000_000, value_us % 1_000_000)
    } else if value_us >= 1_000 && value_us % 1_000 == 0 {
        format!("{} ms", value_us / 1_000)
    } else {
        format!("{value_us} µs")
    }
}

/// A signed measurement with `decimals` decimals: `+1.23`, `-0.50`, and
/// `0.00` for anything that rounds to zero, which `{:+.2}` shows as
/// `-0.00` or `+0.00`: a sign on nothing reads as a direction.
pub fn signed(value: f64, decimals: usize) -> String {
    let text = format!("{value:+.decimals$}");
    if text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// `2812500` → `2.8125 s`.
pub fn seconds(value_us: u64) -> String {
    format!("{} s", decimal(value_us, 6))
}

/// `units` counted in 10^-`decimals`, as a decimal number with only the
/// digits it needs: `decimal(12_500_000, 6)` is `12.5`, `decimal(84, 0)` is `84`.
pub fn decimal(units: u64, decimals: u32) -> String {
    let scale = 10u64.pow(decimals);
    let fraction = format!("{:0width$}", units % scale, width = decimals as usize);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        format!("{}", units / scale)
    } else {
        format!("{}.{fraction}", units / scale)
    }
}

/// Numbers as a compact list: runs of three or more as ranges
/// (`0, 2, 4–8`), in ascending order, each once; `none` when empty.
pub fn number_ranges(numbers: &[u64]) -> String {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut rest = sorted.as_slice();
    while let Some(&first) = rest.first() {
        // Sorted and distinct, so a step of one is a run of consecutive numbers.
        let run = 1 + rest.windows(2).take_while(|pair| pair[1] - pair[0] == 1).count();
        let (run_numbers, after) = rest.split_at(run);
        match run_numbers {
            [a, b] => parts.extend([a.to_string(), b.to_string()]),
            [a, .., last] => parts.push(format!("{a}–{last}")),
            _ => parts.push(first.to_string()),
        }
        rest = after;
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// Sorts article numbers as numbers (`5.2` before `13.4`), the other
/// classes after them by name.
pub fn article_key(text: &str) -> (u8, Vec<u64>, String) {
    let number: String = text.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let parts: Option<Vec<u64>> = number.split('.').map(|part| part.parse().ok()).collect();
    match parts {
        Some(parts) if !number.is_empty() => (0, parts, text.to_string()),
        _ => (1, Vec::new(), text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_escapes_pipes_and_newlines() {
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }

    #[test]
    fn code_survives_backticks() {
        assert_eq!(code("bench sim"), "`bench sim`");
        assert_eq!(code("oracle `x`"), "`` oracle `x` ``");
        assert_eq!(code("`x`"), "`` `x` ``");
    }

    #[test]
    fn articles_sort_as_numbers() {
        let mut classes = vec!["move-bound", "13.4", "6.12 b)", "5.1", "6.10", "6.12 a)", "6.3"];
        classes.sort_by_key(|class| article_key(class));
        assert_eq!(classes, vec!["5.1", "6.3", "6.10", "6.12 a)", "6.12 b)", "13.4", "move-bound"]);
    }

    #[test]
    fn numbers_read_as_compact_ranges() {
        assert_eq!(number_ranges(&[0, 2, 4, 5, 6, 7, 8]), "0, 2, 4–8");
        assert_eq!(number_ranges(&[3, 1, 2, 2, 9, 10]), "1–3, 9, 10");
        assert_eq!(number_ranges(&[7]), "7");
        assert_eq!(number_ranges(&[u64::MAX - 2, u64::MAX - 1, u64::MAX]), format!("{}–{}", u64::MAX - 2, u64::MAX));
        assert_eq!(number_ranges(&[]), "none");
    }

    #[test]
    fn a_signed_value_that_rounds_to_zero_has_no_sign() {
        assert_eq!(signed(-0.001, 2), "0.00");
        assert_eq!(signed(0.004, 2), "0.00");
        assert_eq!(signed(-0.0, 3), "0.000");
        assert_eq!(signed(-0.005_1, 2), "-0.01");
        assert_eq!(signed(1.234_6, 3), "+1.235");
        assert_eq!(signed(-12.0, 0), "-12");
    }

    #[test]
    fn decimal_keeps_the_digits_a_number_has() {
        assert_eq!(decimal(84_000_000, 6), "84");
        assert_eq!(decimal(12_500_000, 6), "12.5");
        assert_eq!(decimal(32_768, 6), "0.032768");
        assert_eq!(decimal(995_000, 4), "99.5");
        assert_eq!(decimal(84, 0), "84");
    }

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(micros(750), "750 µs");
        assert_eq!(micros(3_000), "3 ms");
        assert_eq!(micros(3_001), "3001 µs");
        assert_eq!(micros(2_812_500), "2.812500 s");
        assert_eq!(seconds(3_000_000), "3 s");
        assert_eq!(seconds(2_812_500), "2.8125 s");
        assert_eq!(seconds(500), "0.0005 s");
    }
}
