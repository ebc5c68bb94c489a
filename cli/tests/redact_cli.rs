//! `toolexec redact`: user rules are checked before any input is read, and
//! the stream through the command equals the library's one-shot redaction.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn redact(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolexec"))
        .arg("redact")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolexec");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    // Written from a thread: the command writes while it reads.
    let writer = std::thread::spawn(move || {
        // A command that refuses its rules exits without reading: a broken
        // pipe is expected then.
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn a_bad_user_pattern_fails_before_any_input_with_the_regex_message() {
    let dir = tempfile::tempdir().unwrap();
    for (pattern, group) in [
        ("a(b", "0"),
        ("[z-a]x", "0"),
        ("ab(c)", "2"),
        (r"\w{9000}{9000}", "0"),
    ] {
        let path = dir.path().join("rules.toml");
        std::fs::write(
            &path,
            format!(
                "[[rules]]\nid = \"bad-rule\"\npattern = '''{pattern}'''\nkeywords = [\"ab\"]\nsecret_group = {group}\n"
            ),
        )
        .unwrap();
        let expected = toolexec_redact::RuleSet::from_path(&path).unwrap_err();
        let out = redact(&["--rules", path.to_str().unwrap()], b"ab token\n");
        assert_eq!(out.status.code(), Some(2), "{pattern}");
        assert!(out.stdout.is_empty(), "{pattern}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("toolexec: --rules {}: {expected}\n", path.display()),
            "{pattern}"
        );
    }
}

#[test]
fn a_good_user_rule_masks_through_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rules.toml");
    std::fs::write(
        &path,
        "[[rules]]\nid = \"acme-token\"\npattern = '''\\bacme_[a-z0-9]{16}\\b'''\nkeywords = [\"acme_\"]\n",
    )
    .unwrap();
    let out = redact(
        &["--rules", path.to_str().unwrap(), "--no-env"],
        b"key acme_0123456789abcdef here\n",
    );
    assert!(out.status.success());
    assert_eq!(out.stdout, b"key [REDACTED:acme-token] here\n");
}

#[test]
fn the_command_streams_what_the_library_gives_in_one_shot() {
    // ~6 MB: several rounds, secrets in some lines, long clean runs.
    let mut text = String::new();
    let mut seed = 7u64;
    for i in 0..120_000u64 {
        if i % 50 == 0 {
            let token: String = (0..36)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        [(seed >> 33) as usize % 62] as char
                })
                .collect();
            text.push_str(&format!(
                "[{i}] export GITHUB_TOKEN=ghp_{token} password=x{token}\n"
            ));
        } else {
            text.push_str(&format!(
                "[{i}] worker {} finished job {} token_count={}\n",
                i % 7,
                i * 3,
                i % 100
            ));
        }
    }
    let redactor = toolexec_redact::Redactor::builder()
        .env_values(false)
        .build()
        .unwrap();
    let expected = redactor.redact(&text).into_owned();
    assert!(expected.matches("[REDACTED:").count() >= 4_000);
    let same = |out: Output, how: &str| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == expected.as_bytes(),
            "the command's output differs with {how}"
        );
    };
    // The default thread count, and one to three threads given.
    for threads in [None, Some("1"), Some("2"), Some("3")] {
        let mut args = vec!["--no-env"];
        if let Some(n) = threads {
            args.extend(["--threads", n]);
        }
        same(
            redact(&args, text.as_bytes()),
            &format!("{threads:?} threads"),
        );
    }
    // Input from a regular file (read ahead while the rounds are judged).
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.log");
    std::fs::write(&input, &text).unwrap();
    for threads in ["1", "2", "3"] {
        let out = Command::new(env!("CARGO_BIN_EXE_toolexec"))
            .args(["redact", "--no-env", "--threads", threads])
            .stdin(std::fs::File::open(&input).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        same(out, &format!("{threads} threads reading a file"));
    }
}

#[test]
fn a_thread_count_out_of_range_is_refused() {
    for bad in ["0", "65", "two"] {
        let out = redact(&["--threads", bad], b"password=hunter2\n");
        assert_eq!(out.status.code(), Some(2), "--threads {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--threads"), "--threads {bad}: {err}");
        assert!(out.stdout.is_empty(), "--threads {bad}");
    }
}
