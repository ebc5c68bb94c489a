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
    let scratch = tempfile::tempdir().expect("tempdir");
    let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(scratch.path()));
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
        line_then_middle_case(&text, budget, max_line, read_only)?;
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A middle cut of a result that is not the reader's own view names a
    /// spill file holding exactly the complete content (or, without a
    /// reader, the path alone), and its numbers agree with a recount.
    #[test]
    fn prop_middle_cut_names_a_file_holding_the_complete_content(
        text in text(), budget in 0..3_000usize, reader in any::<bool>()
    ) {
        let scratch = tempfile::tempdir().expect("tempdir");
        let limiter = Limiter::new(
            Limits::default()
                .budget(budget)
                .max_line(usize::MAX)
                .spill_floor(usize::MAX)
                .scratch_dir(scratch.path()),
        );
        let ctx = Context::new(false).reader(reader.then_some("read"));
        let limited = limiter.limit_with(&text, &ctx);
        match limited.middle {
            None => {
                prop_assert_eq!(&*limited.content, text.as_str());
                prop_assert!(limited.spill_path.is_none());
            }
            Some(cut) => {
                let path = limited.spill_path.clone().expect("the complete content saved");
                prop_assert_eq!(fs::read_to_string(&path).unwrap(), text.clone());
                let keep = budget / 3;
                prop_assert_eq!(numbers(&cut), recount(&text, keep, keep));
                let hint = if reader {
                    format!("; use read on {} with offset={} to see middle]...", path.display(), cut.head_end_line + 1)
                } else {
                    format!("; the full output is in {}]...", path.display())
                };
                prop_assert!(limited.content.contains(&hint), "{}", limited.content);
            }
        }
    }
}

/// The body of `prop_limiter_is_line_truncation_then_middle_truncation`.
fn line_then_middle_case(
    text: &str,
    budget: usize,
    max_line: usize,
    read_only: bool,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let limiter = Limiter::new(
        Limits::default()
            .budget(budget)
            .max_line(max_line)
            .spill_floor(usize::MAX),
    );
    // `read`'s own view from line 1: the note is the plain re-read hint.
    let ctx = Context::new(read_only)
        .reader(Some("read"))
        .reader_view(Some(0));
    let limited = limiter.limit_with(text, &ctx);
    let e = if read_only { budget * 3 } else { budget };
    let lines = truncate_long_lines(text, max_line);
    let (expected, cut) = middle_truncate_with_cut(&lines, e);
    prop_assert_eq!(&*limited.content, &*expected);
    prop_assert_eq!(limited.middle, cut);
    prop_assert_eq!(limited.original_chars, char_len(text));
    if let Some(cut) = cut {
        prop_assert_eq!(numbers(&cut), recount(&lines, e / 3, e / 3));
    }
    Ok(())
}

/// The shrunk case of `api.proptest-regressions` (a long line of mixed
/// scripts, zero-width joiners and control characters), as a named test.
#[test]
fn seed_long_mixed_script_line_budget_274_max_line_310() {
    line_then_middle_case(SEED_TEXT, 274, 310, false).unwrap();
}

const SEED_TEXT: &str = "\r本-$\t  \u{200d} \taa\n本\u{200d}a  0 0ß0-a  a -z00\rß\u{feff}-009a\r\u{feff}-\u{301}z本0\u{200d}z\t\rca-z\r'zé本z0😀🚀\u{7f}0\u{200d}z  日 -éa-aaz本z\tz\u{dfb}日z\u{200d}\t\t\té-\u{7f} \t\t- -Ω0é\tß🕴\t\r \t\u{308}- z -z\u{feff}0aaa \u{200d}0 GΩ本éa\té-\tßéa\t Ω\u{308}-0\u{92354} a\r -\u{200d}z0 Ω\t\u{feff}z\u{10f5e5}🕴Ω Ω0\t\t\t0-z z\t0\rz0\rz0\u{3e3ba}é0-\u{feff}-z -é0  -\u{fedd0}\u{308}--é -aazé本0\tMa\u{ce781}-0z-\t0日{\u{feff}z0`\ta0-뮶é\u{308}\tΩ-日\tß\u{200d}\u{feff}\t \u{301}0-\"éa\u{200d}\t\nz本--a\r    0\u{1b}  \t\u{301}0 aaH🕴  \t\u{feff}\n\u{7de6b}-  - \u{308}-😀0\r0\t\t0 < \u{feff}\r \r\"a-[\u{feff}日\r\u{301}a\ta\raa00😀 \u{308}😀日本0\raΩ`\t-ß🕴éz:\r\téaΩ \t本\u{301}\t\tz本-😀\u{301}--\tß🚀zz\t.z\u{308}本本0 `zU0--\u{7f}\tzza a😀--é0😀üa\t0ß\u{308}0本\u{301}\ta-\t \rz-\t¥\taaaé0-\t[ßa\u{feff}  \t\t-\t0\t日ß0zéaßz\t-本a0\u{308}- 𢉌ß\u{200d}$-z-zìzz😀0\t\u{200d}-aa\u{feff}本-a0\t\u{7f} a\t\u{a99af} \t-😀-0z\té\u{200d} 0\t \t-\taa0zz?\u{d6804}00 ΩΩ \u{308}\ta-\r  \u{7f}-00 Bza\u{200d}\u{308}é\u{308}\t\rz\u{feff}-\t0\u{feff}0\tΩ日\t🚀-�本\u{308}zΩ0🚀-\t¥é-a $😀ézz\u{301}-\téßa0\u{200d}Ѩ 本 < 本0é\t -\ta\tß\u{200d}a\t\u{feff}本0-\t0-\u{301}éa\0 \ta\t-本🚀\tß\u{301}0-\t0\u{301}a🚀é\r0ß0Ω0🚀 O\u{301}\u{301}ßa\u{200d}$\t\r< 🚀 \u{301}\r \t  \r -\ta.az本0za!\tC\u{301}\u{308}-😀\t \tΩ.\u{feff}\u{301}\t\u{200d}\u{200d}\u{200d}😀0aé0\r0za匸本0 \u{308}�\t\u{301}a0a日-z\n日az🚀'-é\u{200d}-z日--\u{301}-a&Ω-z😀&😀z-&\t\r\u{462d6}h\rz-*\r-\u{994cd}/-🚀00-😀z\u{feff}aßz\tz{-😀 0a-\u{308}0\u{feff}aa-a 0=zaz\u{301}0\u{feff}\u{feff}$\u{99f3b}\r00z-本-0ß🚀az a-\t\u{301}0z\u{308}\t\u{feff}本 z\u{feff}\u{308}\u{308} \t\u{ad84e}az\u{feff}\u{9e70f} \u{301}\u{301}zzΩ%\u{308}Ω😀 -z\t\u{308}\u{308}\u{200d}\u{301}\u{9d}-🚀é🚀H�\t-\u{feff}\u{10222f}\u{308}\tΩ-z-éa\u{301}/  0本\té\t=0-\u{feff} \t\t$-ca0日\u{301}  \tz-ß Ω\u{feff} - a\u{feff}\tß🚀-ß\u{67379}🚀\t\t\tΩ🚀 z\taa0  0  \u{feff}\t0-\r0本\u{301}a\t&\u{feff}\u{feff} 00\u{feff}\u{7f}😀-0\tz0=-- -0本a🚀0本0�z a0😀$z😀z\\z日-Ω\t日\t0a\tl😀 a-\t-本\u{202e}-az\t\t-\u{200d}0  /aß\u{200d}\t 日0-\u{200d}a-ß*<-\t03\u{feff}\r0-za<\ra0-a\u{feff}-\u{feff}a aΩz0🚀a0🚀00\u{feff}-z\u{200d}\u{200d}a \u{308}Ω0\tz0\u{107b65}\ta\u{301}ß\u{308}本ß-0 0\t \rz0 0éa本0\t 本é\u{36465}a-z \r😀\t\r  🕴0z \tzaz-a\tÐ:-000\u{fd9df}z-\té Ω\0本s0ß\u{308}\t -a0é\t 0-aaß$-\u{308}\t0😀本\u{200d}\u{feff}Z\0a\u{200d} Ωzza- 日\u{200d}zz😀-\t日日\u{301}\u{308}aѨ-ß本éé\t\u{1c10b}😀🚀\t日ß-\t\t\t0  🚀\rz\t0 \"a\u{feff}a\t 日\u{200d}本0´ 日aaßß%a<z\t🚀\u{692e3}\u{feff}--\tz\u{feff}zz\u{feff}0z\ra\t7😀 z\u{200d}0\t\u{8e0c9}a-0\u{feff}\u{301}aX --\u{feff} a\t0% Ω\u{308}é \t0za\tz\t\twza\u{47107}--\t\u{200d}zß`\u{301}\u{200d}a \t0a%a0\n\u{e42f4}\u{200d} -日-\t\u{200d}a\u{308}  \t\u{301}ßzé-🚀-a\u{301}\u{feff} zz\t0\t-b日 \t\t\t K\t\u{308}z\t\u{308}日\t\t-\u{358af}🚀é0z😀😀\t日é\u{8f567}\u{308}aß0a本\t🚀 a\u{200d}\u{301}\tȺa-\u{308}+\t-\u{feff}本\ta-0é \t0日a{0本z\t- éz\u{301}日😀z🚀\r\taaa0\u{feff}.😀 z zza🚀z\u{ec889}a本\n-0😀m\r🚀 -\t\\\t\t ka-\t-\u{301} �\u{feff}z😀a-\u{308}\u{301}z日 😀0🚀z\u{200d} \téa\u{feff}ß\u{76d97}aa \u{e5a8a}\u{308}00- 日😀\u{301}\t\u{308}\t\u{200d}🚀zz🚀aé\u{308}🚀00\u{200d}😀-\r0\u{301}Ωa \u{feff}\tzzzz\tz\t\u{1b}-0🚀a😀 zß\t\t🚀\u{200d} 日\t\u{bf57d}Ⱥ🚀-\r\tz z0 ---0é\u{308}日😀\u{301}a\r日0-'\réß0ß0 z日z\r-aé,z本\t-00🚀0az🚀\u{feff}本 Z-aΩ0zz0\r\t-😀Ω0a- P\t--0-😀 \u{200d} 0\u{200d}日0日zßa\u{308}azaa -🚀\u{301}z\u{308}a😀\u{feff}\u{308}%a\rz-\tz-za\tz-\u{b}🚀zßz0-aaa \u{9c1ef}- 本0z0\u{feff}\t0&0-😀zaza-0-😀z\tz\u{301}-zzz😀z😀\u{301}\u{feff}0a😀ß\u{200d}\u{7f}\u{301}a\u{301}本--😀\u{8d} z日 😀0🚀-\t0 😀zé z日-z日az-\u{308}ß日\t-0{é🚀z🚀\u{200d}z\u{feff}\u{200d}z\t-\t0\u{1093ec} \u{301}0\r\t本\u{feff}00- ΩΩ\u{301} 😀\u{200d}\t{a-0\u{feff}本0 é-\t \r\u{308}\u{301}- %0\u{3c047}Ω0\t--0\u{feff}ß本\u{200d}a \u{301}é🚀0ßa😀\taz-日` z0-\t- \t\u{feff}a \u{301}0zz😀日 \u{feff}0本\t0z-\t z😀 z\t0\\é0\tz\u{308}a0z-0𖨦 \t\t 0ß-\"\u{200d}0\r-p本.🚀\u{feff}\t 0\u{ab669}z😀\tȺ0 -l\u{7e816}z\u{301}z\u{feff}--z\u{200d}z-🚀\razz本z\ta🕴🚀zßza0--{\t\tΩ\u{200d}-\u{308}aa`日日z-\u{1b}\u{308}-\r本é0za本\u{200d}0za--🚀日0 𲁰aaz a\t\t本本\u{da110}日 azß\\\"Ω本 \tz$zé\u{200d}\u{feff}za本\u{200d}-  z\u{308}⾿ß-0zaz  00 \r00 \u{308} 🚀0本 0\u{f5a65} \t\u{301}a \u{200d}\t\tßéA-\t\u{200d}G\u{200d}🚀\t 日z🚀\u{202e}\u{308}z- \u{200d}0ç 本\"\t-本\u{301}0 Ѩaa\t\u{301}日a- z0ß\t-z0 😀\u{308} zéz\t\u{200d}\t\raa\tß\u{feff}\tzz本Ωa🚀\ta0日%\ta𨥊\té a0a00本🚀 a--\u{feff}zz\r-0-z日aa\u{308}z-z- 😀z z\rz🕴\u{feff}\tz本zé\u{308}zza \u{200d}-- 日\taa\u{200d} aa\u{feff}-//\t 0🚀\t日\u{308}- 0--zé\tazz\u{200d}🚀🚀7aa\t0\u{308}0 本\ta00\tz\u{200d}\u{33c58}\u{d0ce4} 日\u{301}a本 \t0\u{80e8d}\t0Ωz0本 z-\u{d4a92}本a-本zzz0本 a\u{301}z 00  \u{200d}0a\u{200d}a\u{5c96d}--0  Ω 日\u{1b}0本a0-ßazz a- z🚀\u{301}-\u{308}z 0-0🚀=Ω z é\tß\t \u{200d}a \t000-😀\u{308}日a\t-😀\t60¥<\t & \t0Ω-<zß-\t-日0a\t🚀--0日\tΩzȺ\t\u{308} -\t\u{200d}Ω$aa😀pzz0'z\u{308}日aa0a本0Ωa00 😀 &日\u{200d}- \" z z\u{308}000\r00-Ω-a00 -a0日😀 aß-ß-😀\u{301}z\tß本&a-Ω 00a\u{200d}ß0-0-cz-\u{200d}\u{e7913}\u{200d}\u{301}\t0\t\t\u{85ae2}z😀a0本a\t\u{308}: Ωz\tß😀- a- \u{200d}\t\t--Q\u{4599b}Ω\na🚀😀 zéa Ω0 😀a\u{308}0本\t z\u{301}🚀 \u{200d}\r0 zz0\r0a-\u{200d}0🚀- \u{200d}Ω-\u{301}a.z\u{308} -zz\u{301}本😀z\t\t0\t本 -- 0a🚀 zé0\u{c87b8}-a\u{200d}😀\tz\t-.0本\u{200d}V\t0😀\t-日a\t日- z\r0\tΩ日本本😀--\tz z🚀\u{301}z\u{308} ézzΩz\u{feff}日9- 0a a¥\t000aa0az\t本 \u{feff}- 𮦋😀¥\u{202e}:🚀\té\u{feff}0z\u{feff}\u{feff}z日😀z\u{200d}a\u{301}a -0\rß &x\u{202e}- 日:a\r0aa 淵\t😀0a\tΩ本\0-0 \u{feff}日0-0-🚀a\t\taѨ日 🚀a0zz🚀🚀0日\tΩ\r\u{feff} \t\u{301}\u{308}z\u{202e}\n0😀 \u{feff}z-\t-a0éß z-\r\t\t00-\u{301}\u{1b7d2}\u{301}本zza\u{200d}\tß-é\u{200d}0ézaz0-\u{200d}  \r\u{83a63}*0\t\t0\t-  😀 \u{e080c}ßaa-Ⱥaº\t\u{301}0本-\u{65348}\t\t\r\u{89e56}\u{301}  \r-Ω😀 \u{200d}- 0日日z\u{308}\t-éaz\r\n\tz-z'a \t\rzz😀a0az0日é`\t0😀&-z\u{308}\ta--aa-z😀😀\u{1099a3}0😀--\u{200d}\t0aß 日zaz:-00z\u{301}\u{308}é zO🚀\t🚀\u{594e9}\r\t\tz\r0 00a0日0\ta\u{308}-\ra日\u{feff}\u{feff}aa日-a\u{301}\t-ßz-0aa\t-ßz\u{200d}本\t-Ωß😀\u{feff} \u{301}0z\u{10799e}z\ta 0&a \t\u{200d}ß-日 za😀az \t--😀  日0z\ra\u{feff}本\u{7f}-z \r\u{feff}z\t-\u{308}0🚀 😀a- zzzé🚀--a--\t/a\tz-\t\u{308}\u{200d}--\u{200d}🚀a本a🚀z\t\t 0 w\u{bc740}z\u{301}ßzΩ0a0a本0-\u{feff}-0-\u{feff}-\r\t\u{b7a1e}\u{308}azz本00\u{308}0\u{308}Ω\u{10139f}-  > 日za$\t日\t a \u{200d}z\u{feff}aéa本 0\u{a38e2}本🚀\r🕴\t\u{200d}🚀-00 ¥\t\tz\u{301}0z\u{200d}0\r�-\"本a\t本zz\u{6f16e}\u{308} zz-Ω*\u{308}本\tß\ta0a\0-Ω\t\u{301}za🚀\t🚀z-\r-\t\u{200d}-😀 a \r 🕴-\t\u{feff}z  0z😀\u{200d} \u{feff}\t-\t\t y\u{308}z -z\u{feff}Ω\tz- \u{301} --Ω0 \r\u{3dd34} z\r\u{301} az0\u{9a}0\u{feff}a0aa0aßaz00-az-aD00\u{308}Ω\u{d7433}-&z-a\u{200d} \u{9493d}z\\\t😀0z0\u{200d}\u{feff}\u{308};0-\u{feff}-z0z? z--\t\u{c8962}0 a日zéz0\t--0a\u{200d}*本-\u{301}z\t\u{308}本0😀 zaa\u{feff}\u{feff}0\u{feff}Ω z🚀-zz  0\t\u{200d}a\u{feff}Ω🚀\tz  aa\t-%z本0\t\tΩ\t0 00😀  本\u{200d}a0\t\t:zß\tΩ\u{200d}🚀a\rz a & az日\u{200d}日🕴😀𤳑0- \tѨ\\- 😀-\u{e895}aa0-\t0\u{feff}本\tz Ωa\t-  -\0-z \t 🕴🚀-\t\t𡦄日\taa🚀z\u{200d}a \t\u{200d}-z日\u{feff}🚀-a\u{5ea38}ß¥ 😀 -z\r\u{301}日a\t\u{308}0\tz日 \u{308}¥本\u{200d}-\t\u{301}\u{5f146}-🚀-\t-ßz \\本😀㙿🕴z本\t- *!aΩzza🚀0ßaa:\t0 ?😀 O\u{308}本0a\t \ta\r\rz\t-- a zßa\t\t\t\t zß本aa_-z  😀00\u{301}\u{301}日 Ω本ß🚀\u{301}ß0\u{200d}a \tza -Ω\t0\t\t-😀\r0\ta\u{200d}ß🚀\t \u{200d} 0z0a😀z 本 🚀- a本0-a&a\u{d920a}\t\u{301}-\tza`\tz-日'z\taΩ本\u{200d}本\u{301}%az00\u{301}本0\u{cceb3}\tz\t日\r\u{301}\u{feff}- \u{308}-\ta本a日\u{301}\ta- - --aa\"0-\u{301}00a\ta日a0🚀 \t�\tß-a\t.- 0ß\u{308}a\u{308}-\t\u{102f36}a-\u{a27d4}Ωa0\t  \t0\t本z\u{fe0f4}\u{feff}--0az本0-z00 \u{301}a😀0\tBa 0\u{308} 0\u{202e}z-a 😀本\t-zaz\u{feff}a-\u{308}\u{301}MȺ\u{308}\tz0\t本é\u{308}\u{200d}本\tѨ00 0\t0-0\t😀😀;-日\t0-\r\u{e3a68}\u{feff}日z \r本\u{1b}日\u{308}a0zz😀0z\ra \t\téa\t\u{8c9b9}z本\t\t \t\u{200d}日z\u{feff}a\u{308}😀az$aa🚀<\u{308}\t本 -zé\tß\u{308}-\u{200d}rΩ\r\u{308}\r<😀z0日日  \u{200d}Ωz\u{5b9c5}\u{301}\t-a🚀-z-🚀\u{200d}z -\u{301}\u{301}Ω \u{301}\0éz😀-/ 本\t\u{200d}😀 Ωa0a-a😀-a\ta葭Ω0\t\t-\t日é😀𩘁a z-\t\u{1b}   0 \r0\t az\ta\u{fdc37}0𭫷\u{882e6}\u{308}0z0ß z\u{301}a& \u{c2f07}aé\r\u{200d}\u{9575e}🕴本a-\u{feff}zz🚀$\u{200d}日\u{82}日-0\u{feff}a\rz\u{200d}本-Ωa😀\u{308}aa--0z0a本-\t\t0z-\tg🚀\u{301}\u{feff}\u{feff}aΩa0 \t�-a\u{200d}-\t\t\t -é\tz\t -0\r𧵣1\t0\u{308}-\u{200d}z za0\rz\u{feff}\u{301}0😀aaa0¥\u{feff}本za\tzé\u{308}\t\r\u{308}-:z-- 000oz- z🚀 本🚀-\tz0日a-a\u{10844c} -=0\u{301}0S-zȺ/\r?a\u{d5197}\u{301}🕴z -{日za\u{200d}z\ta\té本\t \t\u{200d}0.z -ß \ta0 \u{feff}本ß+\t\u{feff}a-\u{9b}\u{9151f}\t0z\r\t<\t -za\tY\tRz0-\u{308}0=0-e日\u{ef00f}\t𨂌😀本az本日本 -\r本zé\nß 0a a&\u{200d}\u{68629} a\r \t\u{9c71f}aa\u{301}0- \u{200d}\u{200d}0`-本 \tv\u{308}0a\rfaa  🚀0Ω\t日🚀z\tΩz Ω-a \u{feff}0\u{308}\u{308}日🚀^ßȺ日 éaa\u{feff}a\u{feff}za\t-za0-a\u{feff} 0-本😀0\t0\u{7f}\t 😀¥za-a\t0ß\t\u{202e}\t\tΩ\u{feff}日\u{200d}a本\t0\u{feff} 0`0本本z- a-本-\t0\u{308}\u{89e53}z-* éz\t0ß\u{308}s\t\u{200d} \t0\r\u{8509b}\u{301}\u{301}é\u{200d} 🕴\t日z\t本é .\u{aeba2}-\u{200d}0a\t\t \taa🚀az😀é\u{308}\t\u{308}😀z\t0'a0ΩaΩ-é\t \r\r�\u{feff}Ω🚀-ΩΩΩ \tz🚀-0 ß\u{fb28a}\u{7ad3a} ba\r0a¥a-\u{200d}\tzé\u{200d}\u{308}z0c😀%\u{200d}\t🚀\u{7f}🚀aI本0\u{308}0-\u{200d}\raz\t-\t-\u{308}0本z😀z😀\u{feff}=--ß𲸤 aßz�0?0 z0\u{301}日\u{feff}\t0🚀0\t\t本日-😀 ßza z -日\t\r\u{308}0 0é-\u{feff}z0z\u{feff} Z   \r\" -¥\u{200d}🚀z🚀0\u{308}a-0a\tz& z\u{200d}\u{301}\r\t-a😀😀z  😀\"😀\t😀{  本\t-éz🚀\t-aΩ\u{308}\u{301}z6-\u{feff}-zzdaa\t\u{308}0\u{200d}Ωz =\t\u{308}a\tz\\0 \ra\u{301}0\r \u{200d}-a\u{450d2}-\u{301}\u{200d}\u{feff} \t\u{200d}\u{308}za -¥日\u{308}Ä\t本🚀aa&J\t0\ta\u{308}aO\u{301}a本a-\u{301}-ß0 \u{93}z\r😀a😀é aΩ\u{200d} \tf--🚀日z 0\u{301}0aΩ\u{200d}\u{200d}\u{200d}\u{301}a'本\u{308}\u{301}Ω-0 😀¥日\ré0\u{301}ùé  i\tz\t\t Ωz-\t`Ωß本0\u{365fc}🚀0 z \t0[ \u{308}-8<{😀a-azz\u{feff}a日😀 \u{200d}.-\u{200d}a \r\t🚀z\u{308}\t z-aE\t0 !-\u{81}0z\rß\rΩ\u{301}\u{f5bde}\r-ß08-ß& azΩz -z😀Ω0 0 za%a😀Ω \t --\ta\u{7f}\u{5c5f6} \t\t\u{200d} a🕴zßw\rz\t\taé0a\u{200d}\r-a-\r😀🚀😀0000 oa 🚀&\u{feff}a😀\ta0U0\t\u{feff}aazzzzK \t`T\u{301}\r0ßz-\u{308}\u{308}\t0日N\u{feff}\u{200d}0\taß -\t\u{feff}ß本\tΩ 0ß a\t\u{d0c21}-0z\u{308} Ω:.\"aé-Ωa-zz😀-日a0a\u{feff}z-0--0\t\t🚀 日本\ta\u{301} \u{301}6\u{d79fd}é\t0-😀aaa0z\u{200d}\t\t\u{97}\tȺ0\u{301} -0😀\u{1b}0z\u{feff}-zΩ0\téΩa\u{308}- \u{b} az<0本日é0éz日\r\u{87a59}ßaa-' z0\u{301}'zz\u{200d}- -\t\u{8c96a}0é00z\u{301}\u{301}\taa🚀a`\t\u{301}0日   \u{feff}aa\u{200d}\t\r-z--\t-\t0-😀🚀\u{200d}\u{103585}/ 0\r\u{feff}\u{bef43}\t\t  \u{308}\u{301}z0\u{301}a\t-\r0-ß\u{f2ad6}\u{308} ΩȺ\u{200d}aa\t --\u{feff}\u{308}\u{feff}🚀--0日\u{308}0-\raa-日-\u{308}😀-z0😀0&za\n\u{200d}Ω-é\u{202e}\u{c6f12} 0-\u{feff}\u{308}\u{feff}a-0Ωz %🚀\t-😀\t-é😀z-0\u{feff}\r-z 0\tΩ\u{200d}本--a\u{15c38}a$-\"-z-az0-aΩ🚀a?😀\t0zzNzaéaazéz\u{200d}é¥�zΩa𛋳本\u{200d} \u{301}z🚀a\u{308}😀-0-\t\tazé-😀日0-本 本c0 -Ω -\r0😀本\t0\t \t\t\u{feff}\u{301}\u{308}aa\r\u{dbdbf}\u{6dff1}Ω ßΩz本日\u{308}\u{200d}本-a\rz 0-iz-zWa--zz`ßΩ\u{308}\r¥a😀z- z 00a-0a- \u{1dd88}\u{200d} z0\u{301}zzz\t\u{200d}-z本a\ta0 z\u{301}\u{7f}az\u{feff}\u{308}. a日0\taΩzß-本本\té😀a-V-🚀z \tz0azz00Ѩ?😀Ωaza0\raßa\u{b}-Ωa\u{308} \u{feff}0z\u{b417a}0\u{301}\u{200d}日0z\t\r0\t\taz--😀a0Ωazza-日-z-\t00-\u{feff}zß`-a0\u{feff}za🚀a\t0aΩa\u{308}za😀\t\t`--\r\u{200d}0日0z\ta\u{200d}-\r\r -\t 🚀\u{feff}a\t本本0 0-~\u{200d}éa--\tz \r\u{feff}a\r -z\t\u{9e0aa}0--0🚀a\t\t\u{301}Ω\t\u{301}\tz本😀0 é\u{b}😀aé--😀-\t-a-0z-🚀z\r\tz\u{308}Ѩa\u{feff}0\u{308}🚀\t🚀aȺ🚀z0a\t\u{feff}-z\u{200d}\t😀0Ω\u{84b26}0 -zzéa🚀Ω\t-\t😀\té本a\taz\t\t00zza😀\u{308}\u{200d}z-z\t`\u{200d}za0-\r:\u{feff}\u{62373}\t日zzz\t\u{200d}a\u{200d}\u{200d}a\u{9c} -\u{200d}0a a\t-\t0a0az\u{301}Ωaz\t\téwß😀z\u{200d}z z0😀00-🚀日\u{feff}00-ß 日ß\t\u{feff}\t\u{301}az`\t  a\u{308}日zz本-\t😀z zaѨz\taz-00=\u{308}aa \t0a\u{feff} \ta\r&a\t本z0\t=-0\t0-日azz日\t--\tazz本\u{b261a}\r-0  \u{308}%😀\u{200d}\u{1b}0本a🚀aa0\u{200d}ß\t0a\u{200d}\\日\u{301}本0z \t\téa\u{308}ßzaa0 \t\tz\u{301}🚀z-0z ßzza0a\u{301} \ra\téaa/-|ziß-😀 Ωa 本z\té\t\u{4b794}0-%ßΩ\t\u{200d}aaz\u{feff}🚀0 本ßΩß0zѨa\u{feff}zß00 -&'\r \t`a\u{200d}aa-本00z 日z zßa\ta0\u{990e6}0Ω --\t-`\t-a\t--\t😀a\u{ad301}-\u{ecda}😀ß0\tzé\t\t-0\u{200d}zza-z😀\r\tΩ\u{feff}z\u{200d} \t日\r \t\t0 aa\u{74cb9} --\t\u{301}🚀-\t\n%zza\t\t \u{feff}日 ß\u{301}0\r\u{feff}\u{8963c}0 é日\u{308} zaaz 🚀3\r本 😀-\\z😀a-  Ω😀a-\u{301} 00\u{feff} é\u{301}0\t-\"a 0日-本é😀\tzz{0Ω\rΩz\\zaaz\t $z\tz本z  0\tß\t0\u{301} 0\u{200d}0azh0  \t- \rΩ\u{dc782}\té\naz z ß\u{feff}Ω\r\r\t$0-\u{944f0}\ra🚀;z😀a\t0😀-\tß\u{308}-😀z😀zd\u{40dc9} m日\t0\t0Ω\t-\u{308}\t0-^az\r日a0a-a.z` 😀%z \t0\tß0\u{301}\t🚀\u{308}a0\tz\t\u{301}00 Ω\u{308}ß 2z0¥\u{feff}\t>0aß-éz-\u{feff}00-本zz0\u{301}\t  0\tzßa\u{c695e} ßΩ😀a  z\t8😀0\u{301}z本  Ⱥz\u{feff}0ßz0\"% Ωé\t�\u{301} \u{feff}-aé0\u{200d}\u{feff}😀 -\u{200d}😀0 ΩzΩz\t 日\u{301}日¥z-\u{feff}z-0--9-----a本🚀 z日 �- a😀é- 🕴a\t 00\r\t0本\t\t\u{301}\0  a日wú0日\tza本\u{308}z本:z -00 \u{200d} 0 \u{308}\u{308}a0\t 0ß-\u{308}z\0z\ta\t\u{308}za\u{308} \r�a本🕴z \t  本a- z0z本-\t0 \u{1043de} ß -\u{89867}zzzz�0  \u{200d}\u{308} \t´zaa/\r--0a\t\rzz\u{feff}�\u{f6453}00k 本�a0-\t0a0 本 \u{feff}Ω-\u{200d}aß\t0本 \u{301}ßßz&\u{6eb6f}\tßaa \u{308}\u{feff} 😀ßé\u{200d}0😀%-\u{301}\tL-a0\t\u{feff}\u{feff}\r  z 00zz-\u{587a8} \u{feff} z\ta0\t- -\u{feff}0aé日本\tß-\u{feff}z Ωz \u{feff}0\u{301}-z 日\u{301}a0z0😀z\t00Ωÿaz-\t\t\tß \u{308}ia  \t-\tΩ日-0z0za0z \r🚀\u{200d}\tΩ-a-𨨣😀\u{feff} 🕴0a\t\réz/\r\ta \u{200d}az\t-0ßz😀\u{feff}\t本\u{4ca9c}ß$0Ω  \u{200d} -ah\u{200d}a日🚀\t\t\r0az\u{41d14}z\u{ae0d8}\t-zaéa🚀日`---a\u{200d}z-🕴\r🚀🚀0z z 0éaQΩ 00-<\u{70bb2}\u{301}\r日a-\u{feff} éW\taß-z-觸日\taΩ\u{feff}-az\t\u{200d}-\u{200d}\t\u{301}\tz\tß\u{feff}Ωzzß🚀0a\t-\ré-\u{200d}z本ß\u{202e}a🚀日\u{b}\tz-\u{308}{éé0 0\u{895a9}\"-本z\t\t?\tfz 🚀é\u{308}日Ω0🚀zZ\u{d91ad}\rz\u{feff}z%Ⱥz -z Ωa\u{367df}\t0az日ß🚀\t0éaé-00🚀本z\r\u{35a6b}🚀   \u{308}\u{7afdb}-Ω\tz\u{308}\r z0\t0a-\taa--\t0a z0za\t�\t\u{308} \u{301}\t-zß🚀z �`zßé\u{308}𗦑日zzé\u{feff}0éa-z-\n\u{feff}aza\u{feff} aΩ😀 本\raßCaéß*\u{200d}\t0\u{a4239}a00\rz\u{200d}a-\u{308}z00zH0\u{7a34f}é-\u{200d}😀\tzΩ\u{301}0\u{feff}日日\u{308}: za日\u{200d}-ß-Y\u{1b}日🚀\u{1b}--0zaaazé \u{200d} \u{6c388}a-\0a\u{301}Ѩ0-za-\r000😀a\t0d\u{37cc2}0 --zz😀\u{57e54}a/Ѩ0&0az🚀 dz \u{200d}\t本z\u{308}\t\t\u{301}zΩ\tΩ00\rȺ -aé \".-0\u{feff}a\t-z😀😀0\u{301}本 日 -\u{200d}0日a&\u{308}\u{7f1cf}本0a?zz-\u{301}0éa\u{b}\r 本a`Ω😀a-\t\u{308}z\rßz\t0%0\u{308}\r🚀 \u{200d} zP\t😀-\tzz\u{301} 0\t\rz\t\u{308}% z a\taß0-ΩaΩ本\t\tz\r---0\t\u{200d}z\t\tΩ\t0🚀\tz -0z \t-\u{feff}-z\t\u{dc369}a本日z\u{feff}\u{5713e}aȺ\r\t\"0Ωa\t0\t?a\u{308}\u{feff} \u{b}\u{200d}0W0-¥🕴0zz\u{576b6}\t\r\t- -a--z-a\t\u{b352a}0日\t\tzz7🚀日-𑨏🚀😀\u{103942}-0/zΩ\tza-\t\u{301}0Ω\u{feff}0本z00 本a🚀aΩ 00\\ß- \tz\u{3dded}a😀aa\t\u{feff}*z\u{308}aΩ0\u{c1ade}é😀\u{b}\t-a\ta\\0az\n zk\r日\t0\u{200d}a-\r\\ Ωß\t日-z日\t\t\t-z -z本 日)-\u{a2795}\u{1b}\ra0🚀-😀😀-z-\\\u{200d}-000Ω-a -'0-\t0z0🚀\tz\u{f26c9}0é0🚀\n\t\t\u{301}\t0\r\0é-0Ω日\t😀aaza é00aé-\\z00-0zé\u{feff}0\u{acdd7}aßzz😀\r\u{308}\u{301}a  0本\u{301}-a\u{ef857}é\u{200d}z\t\u{7f}日\tJ0 本 -*😀\u{200d}日 a\u{301}日\u{200d}😀z😀-a\u{feff}-<本\u{308} 日 z \u{308}î本-ß\u{feff}mßΩ日-日\u{200d}%Ω\u{f34c}z0$\u{301}-🚀0- \u{7ce1f}-0本z日 -z0 \u{200d}0本a\r\r日aé\u{83026}--\t \u{feff}-😀 🚀\u{308}é\t 🚀\u{35bff}\u{308}-z\r\t'z0z\u{feff} \t0 \u{feff}\r-\u{301}z日 ß\u{200d}-𪆞-\t \u{91}Ω日6a本  -\u{e2a74} \u{200d}🕴0-0  z0😀0a aß😀\u{200d} a😀-¡- 本\u{b}\t-z\u{feff}ß本- Ωaa0Ω-z.Ω\u{c7531}-日0'-\tΩ-a\t0 z\u{200d}é本-😀Ωaaa\t本🚀 z😀\u{301}\t-z本\u{200d}\u{308}é Ω-z'00za\0Z 0 0\t z😀\r\u{202e}00-.\t🚀 aa\u{feff}\rßza\u{301}z -\u{308}a本'z😀0 `\t-z日-z\" Ñ 😀0 本-0Saaa\u{200d}\t\r\ta\u{301} é\u{301} 😀é0z  -本本\tzΩa-\u{200d}-😀\u{308}é\t0\u{200d}本😀0Ω0本\u{200d}\tz\ra\u{200d}a0Ωz\t\t🚀Ⱥ日0a 本\raz\u{308}-\u{200d}-éazf0-\u{200d}:\r -0\t\u{feff}日z日\t|\r\ta \u{200d} \t日\u{301}日 ß-\r\t-日🚀-\"0z ?-\t0\u{301}ßΩa\t0z-本a\r\tΩ\u{d169e}Ω0zz🚀\u{301}日-😀a\ta\tΩ-本日z0z\u{308}0é本z\r日aa0\t0\t\0\t🚀0-z-\u{200d}\t\u{200d}0z\u{51a44}🚀 \t-az  \t a 0-😀0\u{b} 🚀\t本😀zzz\u{308}é- -\u{feff}日a-0\u{7f}0 ß-aé�aa00a a \u{4debc}z\u{200d}🚀Ωa\u{9b066}\r\u{308} Ω\u{308}`0\u{301}🚀\t0🚀a-åa0\taé😀0z0{ \u{feff}\u{200d}é\u{308}-Ω\u{feff} \t-\t日aȺ0--za日 😀ß 本-a-0-aΩ本z\t0Ωzz\tza\u{200d} zza 0\u{301}\u{c0584}\t 本z--\u{301}\t🚀\tßa-\t\r\u{b}-i0日 .j?\t0zΩ0aß\t-a\tz😀-\tß\u{7f}0 z0 zz-\tß zé=\u{feff}\u{308} \u{feff} -🚀0:\u{202e}aß\u{200d}\u{308}- a😀 zΩ\r\t z😀\t\u{301}z\u{308}Ω\u{dec8e}\u{feff}\t \t😀日0-本z¼\t\t z😀ßz😀-😀-zz\u{f37a9}日\u{308}a z -a-0Ѩ\u{5c466} éé ß--a本P=  Ω\t=\t0-V\t\u{c1535}🕴\u{1034db}本-a\t-aaa😀az\u{200d} -z\u{200d}\u{200d} \u{200d}zaz0zaaza\taz\u{301}0z  0aΩa-%-\u{9d}\u{200d}-  \\Ωz0\t\u{308}é\r0\u{308}é 0\u{feff}ß\u{200d}\u{301}\t` \t00\u{feff}Ⱥza =z\n\u{308}0-\u{200d}zz a\t本0z㣞꺡\u{301}本\té ß\t 本-zѨ🚀'ß-z<\u{feff}0--\u{308}-🚀\u{feff}ßaz\t本\t0\t\tß \u{feff}C😀Ω ß😀 \u{308}\u{308}-🚀\u{200d}Q \u{feff}a😀 - -vz-\t zéßaΩ\u{301}😀az- 3-Ω0 本 本日z? 0\t0ß本 -\ta0_' \u{200d} z/🚀 Ω\u{308}\u{200d}\r0Ωz-=😀😀z-azßΩ\r🚀¥\t0\u{200d}\r日😀-0\u{200d}.a -a-z-0Ω\u{301}\u{301}\u{a8678}Ω\u{301}日 \u{308}0éaa本z日&本é本-0\u{308}a日éa0 \u{fc5c4}-é0é\u{200d}za0z\u{200d}\u{308}-\t\u{308}zaQ- a-Ωa\u{200d} z0-'0😀^0 Ωz0\téz- 0 0aaa00z\t-a\tl\t z0z\u{301}zz🚀z\u{feff}\t\u{a377e}zѨ\u{301}a本😀-本\u{200d}Ω 本.00-aȺ\u{f8d85}\r日0\u{feff}\u{308}.本本🚀0z0\u{d6c95}a\t\u{440b8}\ta0M0Ω\u{308}\u{308}ìzΩ0\t日\r0🚀0 日0\t0 \u{d9dc3}0  éßz日日00\u{e04ac}0-\u{b0c31}\r\u{7f}😀-\t  0本日-z0aa\u{feff}z\tÂa-本z\t\u{308}\ta \u{301}\u{feff}\u{1b}\tßaz\u{64d8d}\tzzé\u{feff} -`🚀00 \r😀\u{200d}za\u{301}aaa-a0a-本z az🚀0z 0 -zΩ\r🚀日J<0\u{feff}\u{301}-\t0😀00/\t 0z日z\t🚀\t0aa \u{feff}本日z😀\u{301}zz🕴0z -a\u{301} zß🚀\t\ta %00\r\ra-\u{301}";
