//! The public API of toolexec-limiter against SPEC §5 and §2 (batch budget).

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use toolexec_limiter::{
    char_len, fit_batch, line_count, middle_truncate, middle_truncate_with_cut, spill_failure_line,
    truncate_long_lines, BatchItem, Context, LimitError, Limiter, Limits, MiddleCut,
};

const SPEC_NOTE: &str =
    "...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; use read with offset=15 to see middle]...";

fn build_log(lines: usize) -> String {
    (1..=lines)
        .map(|i| format!("line {i:04} of a long build log\n"))
        .collect()
}

fn first_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

fn last_chars(text: &str, n: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars[chars.len() - n..].iter().collect()
}

/// The numbers of a note, recounted by brute force on the text it was cut from.
fn recount(text: &str, head: usize, tail: usize) -> MiddleCutNumbers {
    let chars: Vec<char> = text.chars().collect();
    let newlines_before = |end: usize| chars[..end].iter().filter(|&&c| c == '\n').count();
    let total = newlines_before(chars.len()) + 1;
    MiddleCutNumbers {
        removed: chars.len() - head - tail,
        b: if head == 0 {
            0
        } else {
            newlines_before(head - 1) + 1
        },
        c: if tail == 0 {
            total + 1
        } else {
            newlines_before(chars.len() - tail) + 1
        },
        t: total,
    }
}

#[derive(Debug, PartialEq, Eq)]
struct MiddleCutNumbers {
    removed: usize,
    b: usize,
    c: usize,
    t: usize,
}

fn numbers(cut: &MiddleCut) -> MiddleCutNumbers {
    MiddleCutNumbers {
        removed: cut.removed,
        b: cut.head_end_line,
        c: cut.tail_start_line,
        t: cut.total_lines,
    }
}

/// Parses `...[truncated N chars; showing lines 1-B and C-D of T total; use read with offset=O to see middle]...`.
fn parse_note(note: &str) -> Option<(MiddleCutNumbers, usize, usize)> {
    let rest = note.strip_prefix("...[truncated ")?;
    let (n, rest) = rest.split_once(" chars; showing lines 1-")?;
    let (b, rest) = rest.split_once(" and ")?;
    let (c, rest) = rest.split_once('-')?;
    let (d, rest) = rest.split_once(" of ")?;
    let (t, rest) = rest.split_once(" total; use read with offset=")?;
    let offset = rest.strip_suffix(" to see middle]...")?;
    let num = |s: &str| s.parse::<usize>().ok();
    Some((
        MiddleCutNumbers {
            removed: num(n)?,
            b: num(b)?,
            c: num(c)?,
            t: num(t)?,
        },
        num(d)?,
        num(offset)?,
    ))
}

/// Splits a middle-truncated output back into (head, note, tail), given the
/// head and tail sizes.
fn split_output(out: &str, head: usize, tail: usize) -> (String, String, String) {
    let chars: Vec<char> = out.chars().collect();
    let head_s: String = chars[..head].iter().collect();
    let tail_s: String = chars[chars.len() - tail..].iter().collect();
    let mut middle: String = chars[head..chars.len() - tail].iter().collect();
    if !head_s.is_empty() && !head_s.ends_with('\n') {
        middle = middle
            .strip_prefix('\n')
            .expect("newline after a head not ending in one")
            .to_owned();
    }
    if !tail_s.is_empty() && !tail_s.starts_with('\n') {
        middle = middle
            .strip_suffix('\n')
            .expect("newline before a tail not starting with one")
            .to_owned();
    }
    (head_s, middle, tail_s)
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).expect("metadata").permissions().mode() & 0o777
}

// ---------------------------------------------------------------- SPEC §5 examples

#[test]
fn spec_example_200_lines_read_only_budget_400_gives_exact_note_between_first_and_last_400_chars() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(scratch.path()));
    let log = build_log(200);
    assert_eq!(char_len(&log), 6_000);
    // `read`'s own view of a file from line 1.
    let ctx = Context::new(true).reader(Some("read")).reader_view(Some(0));
    let limited = limiter.limit_with(&log, &ctx);
    assert!(limited.spill_path.is_none());
    let head = first_chars(&log, 400);
    let tail = last_chars(&log, 400);
    assert_eq!(limited.content, format!("{head}\n{SPEC_NOTE}\n{tail}"));
    assert!(
        head.ends_with("line 0014 "),
        "head ends inside line 14: {head:?}"
    );
    assert!(
        tail.starts_with("build log\nline 0188"),
        "tail starts inside line 187: {tail:?}"
    );
    let cut = limited.middle.expect("middle truncation");
    assert_eq!(cut.note(), SPEC_NOTE);
    assert_eq!(cut.reread_offset(), 15);
    assert_eq!(
        fs::read_dir(scratch.path()).expect("read_dir").count(),
        0,
        "nothing spilled"
    );
}

#[test]
fn spec_example_of_another_tool_names_the_spill_file_holding_the_complete_output() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(scratch.path()));
    let log = build_log(200);
    let limited = limiter.limit(&log, true);
    let path = limited.spill_path.clone().expect("complete output saved");
    assert_eq!(fs::read_to_string(&path).expect("spill file"), log);
    #[cfg(unix)]
    assert_eq!(mode(&path), 0o600);
    let note = format!(
        "...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; use read on {} with offset=15 to see middle]...",
        path.display()
    );
    let head = first_chars(&log, 400);
    let tail = last_chars(&log, 400);
    assert_eq!(limited.content, format!("{head}\n{note}\n{tail}"));
    // Following the hint: line 15 of the file is the first line not shown whole.
    let line15 = fs::read_to_string(&path)
        .unwrap()
        .lines()
        .nth(14)
        .unwrap()
        .to_string();
    assert_eq!(line15, "line 0015 of a long build log");

    // No reading tool this turn: the path alone.
    let bare = limiter.limit_with(&log, &Context::new(true));
    let path = bare.spill_path.clone().expect("saved");
    let note = format!(
        "...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; the full output is in {}]...",
        path.display()
    );
    assert_eq!(bare.content, format!("{head}\n{note}\n{tail}"));
}

#[test]
fn read_view_note_counts_the_call_offset() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(scratch.path()));
    let log = build_log(200);
    // The view started at offset=500: 499 lines come before it.
    let ctx = Context::new(true)
        .reader(Some("read"))
        .reader_view(Some(499));
    let limited = limiter.limit_with(&log, &ctx);
    assert!(limited
        .content
        .contains("use read with offset=514 to see middle]..."));
    assert!(limited.spill_path.is_none());
}

#[test]
fn spill_message_without_a_reader_names_no_tool() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(scratch.path()));
    let log = build_log(2000);
    let limited = limiter.limit_with(&log, &Context::new(true));
    let path = limited.spill_path.clone().expect("spilled");
    assert_eq!(
        limited.content,
        format!(
            "Result too large (60000 chars). Full output was spilled to scratch file: {}",
            path.display()
        )
    );
    let proxy = Limiter::new(
        Limits::default()
            .budget(400)
            .scratch_dir(scratch.path())
            .reader_tool(Some("toolexec_read_spill")),
    );
    let limited = proxy.limit(&log, true);
    assert!(limited
        .content
        .ends_with("\nUse toolexec_read_spill tool on this path if you need full content."));
}

#[test]
fn spec_example_through_middle_truncate_with_budget_1200() {
    let log = build_log(200);
    let (out, cut) = middle_truncate_with_cut(&log, 1200);
    assert_eq!(
        out,
        format!("{}\n{SPEC_NOTE}\n{}", &log[..400], &log[log.len() - 400..])
    );
    assert_eq!(cut.map(|c| c.to_string()).as_deref(), Some(SPEC_NOTE));
}

#[test]
fn result_of_2000_lines_read_only_budget_400_is_spilled_whole_with_exact_message() {
    let parent = tempfile::tempdir().expect("tempdir");
    let scratch = parent.path().join("scratch");
    let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(&scratch));
    let log = build_log(2000);
    assert_eq!(char_len(&log), 60_000);
    let limited = limiter.limit(&log, true);
    let path = limited.spill_path.clone().expect("spilled");
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .expect("utf-8 name");
    let nanos = name
        .strip_prefix("tool_result_")
        .and_then(|n| n.strip_suffix(".txt"))
        .expect("name shape");
    assert!(
        !nanos.is_empty() && nanos.bytes().all(|b| b.is_ascii_digit()),
        "{name}"
    );
    assert_eq!(path, scratch.join(name));
    assert_eq!(
        limited.content,
        format!(
            "Result too large (60000 chars). Full output was spilled to scratch file: {}\n\
             Use read tool on this path if you need full content.",
            scratch.join(name).display()
        )
    );
    assert_eq!(fs::read_to_string(&path).expect("spill file"), log);
    #[cfg(unix)]
    {
        assert_eq!(mode(&path), 0o600, "spill file mode");
        assert_eq!(mode(&scratch), 0o700, "scratch dir mode");
    }
}

#[test]
fn spilled_file_holds_the_input_exactly_not_the_line_truncated_text() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let limiter = Limiter::new(Limits::default().budget(1_000).scratch_dir(scratch.path()));
    let content = format!("{}\r\nsecond\n{}", "é".repeat(25_000), "x".repeat(10));
    let limited = limiter.limit(&content, false);
    let path = limited.spill_path.expect("spilled");
    assert_eq!(fs::read_to_string(path).expect("spill file"), content);
    assert!(limited
        .content
        .starts_with("Result too large (25019 chars). "));
}

#[test]
fn spill_threshold_is_max_of_spill_floor_and_three_times_effective_budget() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let limits = Limits::default()
        .budget(10_000)
        .scratch_dir(scratch.path())
        .max_line(usize::MAX);
    assert_eq!(limits.spill_threshold(false), 30_000);
    assert_eq!(limits.spill_threshold(true), 90_000);
    assert_eq!(Limits::default().budget(400).spill_threshold(false), 20_000);
    let limiter = Limiter::new(limits);
    let at = "a".repeat(30_000);
    let limited = limiter.limit(&at, false);
    assert!(
        limited.middle.is_some() && !limited.content.starts_with("Result too large"),
        "exactly at the threshold is not spilled (but cut, its complete output saved)"
    );
    let over = "a".repeat(30_001);
    assert!(limiter
        .limit(&over, false)
        .content
        .starts_with("Result too large"));
    assert!(
        limiter.limit(&over, true).middle.is_some(),
        "read-only success: threshold 90 000"
    );
}

#[test]
fn two_spills_in_a_row_get_distinct_files() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let limiter = Limiter::new(
        Limits::default()
            .spill_floor(10)
            .budget(1)
            .scratch_dir(scratch.path()),
    );
    let a = limiter
        .limit("first result text", false)
        .spill_path
        .expect("spilled");
    let b = limiter
        .limit("second result text", false)
        .spill_path
        .expect("spilled");
    assert_ne!(a, b);
    assert_eq!(fs::read_to_string(a).expect("a"), "first result text");
    assert_eq!(fs::read_to_string(b).expect("b"), "second result text");
}

#[test]
fn spill_failure_under_a_non_directory_gives_truncated_result_and_one_failure_line() {
    let parent = tempfile::tempdir().expect("tempdir");
    let blocker = parent.path().join("not-a-dir");
    fs::write(&blocker, "file").expect("write blocker");
    let scratch = blocker.join("scratch");
    let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(&scratch));
    let log = build_log(2000);
    let limited = limiter.limit(&log, true);
    assert!(limited.spill_path.is_none());
    let error = limited.spill_error.as_ref().expect("spill error kept");
    assert!(
        matches!(error, LimitError::CreateScratchDir { path, .. } if *path == scratch),
        "{error:?}"
    );
    let line = spill_failure_line(error);
    assert!(line.starts_with(&format!(
        "[spill failed: cannot create scratch directory {}: ",
        scratch.display()
    )));
    assert!(line.ends_with("; output truncated instead]"));
    let cut = limited.middle.expect("middle truncation instead");
    // No file holds the middle: the note points nowhere.
    let note = format!(
        "...[truncated {} chars; showing lines 1-{} and {}-{} of {} total]...",
        cut.removed, cut.head_end_line, cut.tail_start_line, cut.total_lines, cut.total_lines
    );
    let expected = format!(
        "{}\n{note}\n{}{line}",
        first_chars(&log, 400),
        last_chars(&log, 400)
    );
    assert_eq!(limited.content, expected);
    assert_eq!(numbers(&cut), recount(&log, 400, 400));
}

#[cfg(unix)]
#[test]
fn spill_failure_in_a_read_only_scratch_dir_gives_truncated_result() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = tempfile::tempdir().expect("tempdir");
    fs::set_permissions(scratch.path(), fs::Permissions::from_mode(0o500)).expect("chmod");
    // Root ignores permission bits: then the directory is not read-only for
    // this process and the case below is what actually happens to it.
    let writable = fs::write(scratch.path().join("probe"), "x").is_ok();
    let limiter = Limiter::new(Limits::default().budget(100).scratch_dir(scratch.path()));
    let content = "word ".repeat(5_000);
    let limited = limiter.limit(&content, false);
    if writable {
        assert!(limited.spill_path.is_some());
    } else {
        let error = limited.spill_error.as_ref().expect("spill failed");
        assert!(
            matches!(error, LimitError::CreateSpillFile { .. }),
            "{error:?}"
        );
        assert!(limited
            .content
            .ends_with(&format!("\n{}", spill_failure_line(error))));
        assert!(limited.content.starts_with(&first_chars(&content, 33)));
    }
    fs::set_permissions(scratch.path(), fs::Permissions::from_mode(0o700)).expect("chmod back");
}

#[test]
fn failed_or_writing_tool_result_uses_the_plain_budget() {
    let limiter = Limiter::new(Limits::default().budget(400));
    let log = build_log(200);
    // Not read-only, or a failed result: E = 400, 133 chars each side.
    let limited = limiter.limit(&log, false);
    let cut = limited.middle.expect("6000 > 400");
    assert_eq!((cut.head_chars, cut.tail_chars), (133, 133));
    assert_eq!(numbers(&cut), recount(&log, 133, 133));
    assert_eq!(
        cut.note(),
        "...[truncated 5734 chars; showing lines 1-5 and 196-201 of 201 total; use read with offset=6 to see middle]..."
    );
}

#[test]
fn content_within_budget_comes_back_borrowed_and_unchanged() {
    let limiter = Limiter::default();
    let limited = limiter.limit("small result\n", false);
    assert!(limited.is_unchanged());
    assert_eq!(limited.content, "small result\n");
    assert!(
        limited.middle.is_none() && limited.spill_path.is_none() && limited.spill_error.is_none()
    );
}

#[test]
fn long_line_is_replaced_whole_and_the_line_count_kept() {
    let limiter = Limiter::new(Limits::default().max_line(10));
    let content = format!("ok\n{}\n\nÿÿÿÿÿÿÿÿÿÿ\nend", "é".repeat(11));
    let limited = limiter.limit(&content, false);
    assert_eq!(
        limited.content,
        "ok\n[line truncated: 11 chars]\n\nÿÿÿÿÿÿÿÿÿÿ\nend"
    );
    assert_eq!(limited.lines_truncated, 1);
    assert_eq!(line_count(&limited.content), line_count(&content));
}

#[test]
fn line_truncation_happens_before_middle_truncation_and_the_note_counts_its_result() {
    let limiter = Limiter::new(
        Limits::default()
            .budget(60)
            .max_line(20)
            .spill_floor(usize::MAX),
    );
    let content = format!(
        "head line\n{}\nmiddle\n{}\ntail line",
        "x".repeat(500),
        "y".repeat(500)
    );
    // A `read` result from line 1: the note is the plain re-read hint.
    let ctx = Context::new(false)
        .reader(Some("read"))
        .reader_view(Some(0));
    let limited = limiter.limit_with(&content, &ctx);
    let truncated = truncate_long_lines(&content, 20);
    assert_eq!(
        truncated,
        "head line\n[line truncated: 500 chars]\nmiddle\n[line truncated: 500 chars]\ntail line"
    );
    assert_eq!(limited.content, middle_truncate(&truncated, 60));
    assert_eq!(
        limited.middle.map(|c| numbers(&c)),
        Some(recount(&truncated, 20, 20))
    );
    assert_eq!(limited.lines_truncated, 2);
}

#[test]
fn middle_truncation_never_splits_multibyte_characters() {
    let text = "😀é\u{301}日\n".repeat(100);
    let (out, cut) = middle_truncate_with_cut(&text, 31);
    let cut = cut.expect("cut");
    assert_eq!((cut.head_chars, cut.tail_chars), (10, 10));
    assert!(out.starts_with(&first_chars(&text, 10)));
    assert!(out.ends_with(&last_chars(&text, 10)));
}

#[test]
fn budget_below_three_keeps_only_the_note_with_empty_ranges() {
    let (out, cut) = middle_truncate_with_cut("a\nb\nc", 2);
    assert_eq!(out, "...[truncated 5 chars; showing lines 1-0 and 4-3 of 3 total; use read with offset=1 to see middle]...");
    assert_eq!(
        cut.map(|c| (c.head_end_line, c.tail_start_line)),
        Some((0, 4))
    );
}

#[test]
fn head_ending_in_newline_and_tail_starting_with_one_add_no_empty_lines() {
    // E = 15 keeps 5 chars each side: the head "abcd\n" ends with a newline
    // and the tail "\nwxy\n" starts with one, so none is added.
    let text = format!("abcd\n{}\nwxy\n", "m".repeat(30));
    let (out, _) = middle_truncate_with_cut(&text, 15);
    assert_eq!(out, "abcd\n...[truncated 30 chars; showing lines 1-1 and 2-4 of 4 total; use read with offset=2 to see middle]...\nwxy\n");
    let (out, _) = middle_truncate_with_cut("aaa\n\nbbbbbb\nccc", 9);
    assert_eq!(out, "aaa\n...[truncated 9 chars; showing lines 1-1 and 4-4 of 4 total; use read with offset=2 to see middle]...\nccc");
}

// ---------------------------------------------------------------- batch budget

#[test]
fn batch_within_total_is_left_alone() {
    let mut a = "x".repeat(100);
    let mut b = "y".repeat(100);
    let fit = fit_batch(
        &mut [BatchItem::new(&mut a, false), BatchItem::new(&mut b, true)],
        200,
    );
    assert_eq!(
        (fit.cap, fit.cut.len(), fit.fits, fit.chars_after),
        (None, 0, true, 200)
    );
}

#[test]
fn batch_leaves_results_under_their_fair_share_whole_and_cuts_the_largest() {
    let mut small = "s".repeat(300);
    let mut medium = "m\n".repeat(600);
    let mut large = build_log(200);
    let (small0, medium0, large0) = (small.clone(), medium.clone(), large.clone());
    let mut items = [
        BatchItem::new(&mut small, false),
        BatchItem::new(&mut medium, false),
        BatchItem::new(&mut large, false),
    ];
    let fit = fit_batch(&mut items, 3_000);
    let cap = fit.cap.expect("cut");
    assert!(fit.fits);
    assert_eq!(fit.cut, [2]);
    assert!((1_200..6_000).contains(&cap), "cap {cap}");
    assert_eq!((small, medium), (small0, medium0));
    assert!(char_len(&large) <= cap);
    assert!(300 + 1_200 + char_len(&large) <= 3_000);
    assert!(
        300 + 1_200 + char_len(&large) >= 3_000 - 10,
        "the fair share is used, not wasted"
    );
    assert!(large.starts_with("line 0001"));
    assert!(large.ends_with(&last_chars(&large0, 100)));
}

#[test]
fn batch_never_cuts_an_error_result_below_its_first_line() {
    let first = format!("error: {}\n", "build failed in crate foo ".repeat(20));
    let mut error = format!("{first}{}", "detail line\n".repeat(1_000));
    let mut ok = "o".repeat(5_000);
    let mut items = [
        BatchItem::new(&mut error, true),
        BatchItem::new(&mut ok, false),
    ];
    let fit = fit_batch(&mut items, 800);
    assert_eq!(fit.cut, [0, 1]);
    assert!(error.starts_with(&first), "{error}");
    assert!(fit.fits, "{fit:?}");
    let mut single_line_error = "e".repeat(5_000);
    let fit = fit_batch(&mut [BatchItem::new(&mut single_line_error, true)], 100);
    assert!(fit.cut.is_empty() && !fit.fits);
    assert_eq!(single_line_error.len(), 5_000);
}

#[test]
fn batch_total_out_of_reach_cuts_everything_to_its_smallest_and_says_so() {
    let mut a = "a".repeat(1_000);
    let mut b = "b".repeat(1_000);
    let fit = fit_batch(
        &mut [BatchItem::new(&mut a, false), BatchItem::new(&mut b, false)],
        50,
    );
    assert!(!fit.fits);
    assert_eq!(fit.cut, [0, 1]);
    assert!(a.starts_with("...[truncated ") && b.starts_with("...[truncated "));
    assert_eq!(fit.chars_after, char_len(&a) + char_len(&b));
}

// ---------------------------------------------------------------- properties

/// Characters that stress UTF-8 handling: multi-byte, combining, ZWJ, CR.
fn stress_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => prop::sample::select(vec!['a', 'z', ' ', '0', '-', '\t']),
        3 => prop::sample::select(vec!['é', 'ß', 'Ω', '日', '本', '😀', '🚀', '\u{301}', '\u{308}', '\u{200d}', '\r', '\u{FEFF}']),
        1 => any::<char>(),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(stress_char(), 0..60).prop_map(|c| c.into_iter().collect()),
        1 => Just(String::new()),
        1 => (stress_char(), 100..3_000usize).prop_map(|(c, n)| std::iter::repeat_n(c, n).collect()),
    ]
}

/// Random Unicode text: empty lines, CRLF, with or without a trailing
/// newline, sometimes a single huge line.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (prop::collection::vec(line(), 0..80), any::<bool>()).prop_map(|(lines, trailing)| {
            let mut s = lines.join("\n");
            if trailing {
                s.push('\n');
            }
            s
        }),
        1 => prop::collection::vec(stress_char(), 1_000..12_000).prop_map(|c| c.into_iter().collect()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn prop_middle_output_never_exceeds_budget_plus_note(text in text(), budget in 0..4_000usize) {
        let (out, cut) = middle_truncate_with_cut(&text, budget);
        match cut {
            None => {
                prop_assert!(char_len(&text) <= budget);
                prop_assert_eq!(&*out, &*text);
            }
            Some(cut) => {
                prop_assert!(char_len(&text) > budget);
                prop_assert!(char_len(&out) <= 2 * (budget / 3) + cut.note().len() + 2);
                prop_assert!(char_len(&out) <= budget + cut.note().len() + 2);
            }
        }
    }

    #[test]
    fn prop_head_and_tail_are_exactly_the_first_and_last_third_of_the_budget(text in text(), budget in 0..4_000usize) {
        prop_assume!(char_len(&text) > budget);
        let (out, cut) = middle_truncate_with_cut(&text, budget);
        let cut = cut.expect("over budget");
        let keep = budget / 3;
        prop_assert_eq!((cut.head_chars, cut.tail_chars), (keep, keep));
        let (head, note, tail) = split_output(&out, keep, keep);
        prop_assert_eq!(&head, &first_chars(&text, keep));
        prop_assert_eq!(&tail, &last_chars(&text, keep));
        prop_assert!(text.starts_with(&head) && text.ends_with(&tail), "char-aligned prefix and suffix");
        prop_assert_eq!(note, cut.note());
    }

    #[test]
    fn prop_note_numbers_agree_with_a_recount_on_the_input(text in text(), budget in 0..4_000usize) {
        prop_assume!(char_len(&text) > budget);
        let (out, cut) = middle_truncate_with_cut(&text, budget);
        let cut = cut.expect("over budget");
        let (_, note, _) = split_output(&out, budget / 3, budget / 3);
        let (parsed, d, offset) = parse_note(&note).expect("note parses");
        let expected = recount(&text, budget / 3, budget / 3);
        prop_assert_eq!(d, expected.t);
        prop_assert_eq!(offset, expected.b + 1);
        prop_assert_eq!(&parsed, &expected);
        prop_assert_eq!(&numbers(&cut), &expected);
    }

    #[test]
    fn prop_line_truncation_keeps_the_number_of_lines(text in text(), max_line in 0..400usize) {
        let out = truncate_long_lines(&text, max_line);
        prop_assert_eq!(line_count(&out), line_count(&text));
        for (before, after) in text.split('\n').zip(out.split('\n')) {
            let (body, cr) = before.strip_suffix('\r').map_or((before, ""), |b| (b, "\r"));
            let n = char_len(body);
            if n > max_line {
                prop_assert_eq!(after, format!("[line truncated: {n} chars]{cr}"));
            } else {
                prop_assert_eq!(after, before);
            }
        }
    }

    #[test]
    fn prop_limiter_is_line_truncation_then_middle_truncation(
        text in text(), budget in 0..3_000usize, max_line in 0..400usize, read_only in any::<bool>()
    ) {
        let limiter = Limiter::new(Limits::default().budget(budget).max_line(max_line).spill_floor(usize::MAX));
        // `read`'s own view from line 1: the note is the plain re-read hint.
        let ctx = Context::new(read_only).reader(Some("read")).reader_view(Some(0));
        let limited = limiter.limit_with(&text, &ctx);
        let e = if read_only { budget * 3 } else { budget };
        let lines = truncate_long_lines(&text, max_line);
        let (expected, cut) = middle_truncate_with_cut(&lines, e);
        prop_assert_eq!(&*limited.content, &*expected);
        prop_assert_eq!(limited.middle, cut);
        prop_assert_eq!(limited.original_chars, char_len(&text));
        if let Some(cut) = cut {
            prop_assert_eq!(numbers(&cut), recount(&lines, e / 3, e / 3));
        }
    }

    #[test]
    fn prop_batch_total_fits_whenever_reachable(
        items in prop::collection::vec((text(), any::<bool>()), 1..6), total in 0..20_000usize
    ) {
        let originals: Vec<(String, bool)> = items.clone();
        let mut contents: Vec<String> = items.iter().map(|(t, _)| t.clone()).collect();
        let mut batch: Vec<BatchItem<'_>> = contents
            .iter_mut()
            .zip(&items)
            .map(|(c, (_, is_error))| BatchItem::new(c, *is_error))
            .collect();
        let fit = fit_batch(&mut batch, total);
        drop(batch);
        let after: usize = contents.iter().map(|c| char_len(c)).sum();
        prop_assert_eq!(after, fit.chars_after);
        // A note for these sizes is at most 95 + 6 × 5 digits; joining adds 2.
        let smallest: usize = originals
            .iter()
            .map(|(t, is_error)| {
                let first = if *is_error { t.find('\n').map_or(char_len(t), |i| char_len(&t[..=i])) } else { 0 };
                char_len(t).min(first + 127)
            })
            .sum();
        if smallest <= total {
            prop_assert!(fit.fits);
            prop_assert!(after <= total, "after {} > total {}", after, total);
        }
        for (i, ((orig, is_error), now)) in originals.iter().zip(&contents).enumerate() {
            if fit.cut.contains(&i) {
                let cap = fit.cap.expect("cap when cutting");
                prop_assert!(char_len(orig) > cap);
                if *is_error {
                    let first = orig.find('\n').map_or(orig.as_str(), |at| &orig[..=at]);
                    prop_assert!(now.starts_with(first), "error keeps its first line");
                }
            } else {
                prop_assert_eq!(now, orig);
                if let Some(cap) = fit.cap {
                    // Left whole: under the fair share, or no longer than its
                    // smallest cut form (note, plus the first line for errors).
                    let first = if *is_error { orig.find('\n').map_or(char_len(orig), |i| char_len(&orig[..=i])) } else { 0 };
                    prop_assert!(char_len(orig) <= cap || char_len(orig) <= first + 127);
                }
            }
        }
    }
}

// ---- Scratch (SPEC §6) ----

mod scratch {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use proptest::prelude::*;
    use toolexec_limiter::{
        is_spill_file_name, LimitError, Limiter, Limits, ScratchError, ScratchRoot,
    };

    fn spill_into(dir: &Path) -> std::path::PathBuf {
        let limiter = Limiter::new(Limits::default().budget(10).scratch_dir(dir));
        let content = "x".repeat(30_000);
        limiter.limit(&content, false).spill_path.expect("spilled")
    }

    #[test]
    fn two_sessions_get_different_directories_and_read_only_their_own_spills() {
        let base = tempfile::tempdir().expect("tempdir");
        let root = ScratchRoot::open(base.path().join("scratch")).expect("root");
        let a = root.ephemeral_session().expect("a");
        let b = root.ephemeral_session().expect("b");
        assert_ne!(a.dir(), b.dir());
        assert!(a.dir().starts_with(root.path()) && b.dir().starts_with(root.path()));
        let mode = fs::metadata(a.dir()).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);

        let mine = spill_into(a.dir());
        let theirs = spill_into(b.dir());
        assert!(a.is_own_spill_file(&mine));
        assert!(!a.is_own_spill_file(&theirs));
        let err = a
            .open_spill_file(&theirs)
            .expect_err("another session's spill");
        assert!(matches!(err, ScratchError::NotOwnSpillFile { .. }), "{err}");
        // `..` tricks are normalized before comparing directories.
        let sneaky = a
            .dir()
            .join("..")
            .join(b.dir().file_name().unwrap())
            .join(theirs.file_name().unwrap());
        assert!(!a.is_own_spill_file(&sneaky));

        // A planted file in the root, and a non-spill name in the session.
        let planted = root.path().join("tool_result_1.txt");
        fs::write(&planted, "planted").expect("plant");
        assert!(!a.is_own_spill_file(&planted));
        let notes = a.dir().join("notes.txt");
        fs::write(&notes, "x").expect("notes");
        assert!(!a.is_own_spill_file(&notes));

        // A symlink or FIFO under a spill name is refused without blocking.
        let link = a.dir().join("tool_result_2.txt");
        std::os::unix::fs::symlink(&theirs, &link).expect("symlink");
        assert!(!a.is_own_spill_file(&link));
        let fifo = a.dir().join("tool_result_3.txt");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
        let err = a.open_spill_file(&fifo).expect_err("fifo");
        assert!(err.to_string().contains("not a regular file"), "{err}");

        let dir = a.dir().to_path_buf();
        drop(a);
        assert!(!dir.exists(), "ephemeral session removed on drop");
        assert!(b.dir().exists());
    }

    #[test]
    fn workspace_sessions_are_shared_by_runs_on_one_workspace() {
        let base = tempfile::tempdir().expect("tempdir");
        let ws = tempfile::tempdir().expect("ws");
        let root = ScratchRoot::open(base.path().join("scratch")).expect("root");
        let first = root.workspace_session(ws.path()).expect("first");
        let spilled = spill_into(first.dir());
        drop(first);
        let second = root.workspace_session(ws.path()).expect("second");
        assert!(second.is_own_spill_file(&spilled));
    }

    #[test]
    fn world_writable_or_foreign_roots_are_refused() {
        let base = tempfile::tempdir().expect("tempdir");
        let open = base.path().join("open");
        fs::create_dir(&open).expect("mkdir");
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).expect("chmod");
        let err = ScratchRoot::open(&open).expect_err("0777");
        assert!(matches!(err, ScratchError::NotPrivate { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("mode 0777 (group- or world-writable)"),
            "{err}"
        );
        // The limiter refuses to spill there too.
        let limiter = Limiter::new(Limits::default().budget(10).scratch_dir(&open));
        let content = "y".repeat(30_000);
        let limited = limiter.limit(&content, false);
        assert!(limited.spill_path.is_none());
        assert!(matches!(limited.spill_error, Some(LimitError::Scratch(_))));

        let link = base.path().join("link");
        std::os::unix::fs::symlink(base.path(), &link).expect("symlink");
        let err = ScratchRoot::open(&link).expect_err("symlink");
        assert!(err.to_string().contains("symbolic link"), "{err}");

        let foreign = base.path().join("foreign");
        fs::create_dir(&foreign).expect("mkdir");
        fs::set_permissions(&foreign, fs::Permissions::from_mode(0o700)).expect("chmod");
        let me = rustix::process::geteuid().as_raw();
        let other = if me == 0 { 65534 } else { 0 };
        // Only root can give a directory away; as another user, a directory
        // owned by root is at hand instead.
        let target = if me == 0 {
            std::os::unix::fs::chown(&foreign, Some(other), None).expect("chown");
            foreign
        } else {
            std::path::PathBuf::from("/")
        };
        let err = ScratchRoot::open(&target).expect_err("foreign owner");
        assert!(
            err.to_string().contains(&format!(
                "owned by uid {other}, not by this user (uid {me})"
            )),
            "{err}"
        );
    }

    proptest! {
        #[test]
        fn spill_names_are_exactly_tool_result_digits_txt(name in "[a-z_0-9.]{0,24}") {
            let expected = name
                .strip_prefix("tool_result_")
                .and_then(|n| n.strip_suffix(".txt"))
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
            prop_assert_eq!(is_spill_file_name(std::ffi::OsStr::new(&name)), expected);
        }

        #[test]
        fn spilled_files_are_their_sessions_own(n in 1usize..4) {
            let base = tempfile::tempdir().expect("tempdir");
            let root = ScratchRoot::open(base.path().join("s")).expect("root");
            let sessions: Vec<_> = (0..n).map(|_| root.ephemeral_session().expect("session")).collect();
            let files: Vec<_> = sessions.iter().map(|s| spill_into(s.dir())).collect();
            for (i, s) in sessions.iter().enumerate() {
                for (j, f) in files.iter().enumerate() {
                    prop_assert_eq!(s.is_own_spill_file(f), i == j);
                }
            }
        }
    }
}
