//! The built-in tools through the `Tool` trait, on real files and real
//! processes.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use proptest::prelude::*;
use serde_json::{json, Value};
use tempfile::TempDir;
use toolexec_core::{ChangeKind, ChangeObserver, FileChange, ToolContext, ToolInfo};
use toolexec_tools::{builtin_tools, BuiltinConfig, BuiltinTools, ExecConfig, Jail};

struct Fixture {
    dir: TempDir,
    /// A directory outside the workspace, with a file in it.
    outside: TempDir,
    tools: BuiltinTools,
}

impl Fixture {
    fn new() -> Self {
        Fixture::with_config(&BuiltinConfig::default())
    }

    fn with_config(config: &BuiltinConfig) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        fs::write(outside.path().join("secret.txt"), "SECRETWORD\n").expect("write");
        Fixture {
            dir,
            outside,
            tools: builtin_tools(config),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn ctx(&self) -> ToolContext {
        ToolContext::new(self.dir.path(), "call")
    }

    fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        fs::write(path, content).expect("write");
    }

    fn content(&self, rel: &str) -> String {
        fs::read_to_string(self.root().join(rel)).expect("read back")
    }

    async fn call(&self, name: &str, input: Value) -> Result<String, String> {
        self.call_ctx(name, input, self.ctx()).await
    }

    async fn call_ctx(&self, name: &str, input: Value, ctx: ToolContext) -> Result<String, String> {
        let tool = self
            .tools
            .get(name)
            .unwrap_or_else(|| panic!("tool {name}"));
        tool.call(input, ctx)
            .await
            .map_err(|e| e.message().to_string())
    }

    fn outside_listing(&self) -> Vec<(String, String)> {
        let mut entries: Vec<(String, String)> = fs::read_dir(self.outside.path())
            .expect("list outside")
            .map(|e| {
                let e = e.expect("entry");
                let content = fs::read_to_string(e.path()).unwrap_or_default();
                (e.file_name().to_string_lossy().into_owned(), content)
            })
            .collect();
        entries.sort();
        entries
    }
}

// ---------------------------------------------------------------- jail

#[tokio::test]
async fn jail_refuses_every_escape_for_every_tool() {
    let fx = Fixture::new();
    fx.write("a/inside.txt", "inside\n");
    symlink(fx.outside.path(), fx.root().join("out")).expect("symlink dir");
    symlink(
        fx.outside.path().join("secret.txt"),
        fx.root().join("leak.txt"),
    )
    .expect("symlink file");
    let outside_abs = fx.outside.path().join("secret.txt");
    let outside_abs = outside_abs.to_str().expect("utf-8 path");
    let before = fx.outside_listing();

    let escapes = [
        "../x",
        "a/../../x",
        "a/../../../etc/passwd",
        "/etc/passwd",
        outside_abs,
        "out/secret.txt",
        "out/new.txt",
        "leak.txt",
        "out",
    ];
    for path in escapes {
        let calls = [
            ("read", json!({"path": path})),
            ("write", json!({"path": path, "content": "pwned"})),
            (
                "edit",
                json!({"path": path, "old_string": "SECRETWORD", "new_string": "pwned"}),
            ),
            ("grep", json!({"pattern": "SECRETWORD", "path": path})),
            ("glob", json!({"pattern": "**/*", "path": path})),
            (
                "exec",
                json!({"command": "echo pwned > pwned.txt", "cwd": path}),
            ),
        ];
        for (tool, input) in calls {
            let err = fx
                .call(tool, input)
                .await
                .expect_err(&format!("{tool} {path} must be refused"));
            assert!(
                err.contains(&format!("path \"{path}\" is outside the workspace")),
                "{tool} {path}: {err}"
            );
        }
    }
    assert_eq!(fx.outside_listing(), before, "nothing outside was touched");
    assert!(!fx.root().join("pwned.txt").exists());
}

#[tokio::test]
async fn jail_error_says_why() {
    let fx = Fixture::new();
    symlink(fx.outside.path(), fx.root().join("out")).expect("symlink");
    let err = fx
        .call("read", json!({"path": "a/../../x"}))
        .await
        .unwrap_err();
    assert!(err.contains("`..` leads above the workspace root"), "{err}");
    let err = fx
        .call("read", json!({"path": "/etc/passwd"}))
        .await
        .unwrap_err();
    assert!(err.contains("an absolute path elsewhere"), "{err}");
    let err = fx
        .call("read", json!({"path": "out/secret.txt"}))
        .await
        .unwrap_err();
    assert!(err.contains("through a symbolic link"), "{err}");
}

#[tokio::test]
async fn absolute_paths_and_inner_links_inside_the_root_are_fine() {
    let fx = Fixture::new();
    fx.write("src/lib.rs", "fn main() {}\n");
    symlink("src", fx.root().join("code")).expect("inner symlink");
    let abs = fx.root().join("src/lib.rs");
    let out = fx
        .call("read", json!({"path": abs.to_str().expect("utf-8")}))
        .await
        .expect("absolute inside");
    assert_eq!(out, "     1\tfn main() {}");
    let out = fx
        .call("read", json!({"path": "code/lib.rs"}))
        .await
        .expect("inner link");
    assert_eq!(out, "     1\tfn main() {}");
    let out = fx
        .call("read", json!({"path": "src/../src/./lib.rs"}))
        .await
        .expect("dots");
    assert_eq!(out, "     1\tfn main() {}");
}

#[tokio::test]
async fn read_may_open_extra_roots_by_absolute_path_only() {
    let scratch = tempfile::tempdir().expect("scratch");
    let spilled = scratch.path().join("tool_result_1.txt");
    fs::write(&spilled, "spilled output\n").expect("write");
    let fx = Fixture::with_config(&BuiltinConfig::default().with_read_root(scratch.path()));
    let abs = spilled.to_str().expect("utf-8");
    let out = fx
        .call("read", json!({"path": abs}))
        .await
        .expect("read scratch");
    assert_eq!(out, "     1\tspilled output");
    // Only read, only inside the extra root.
    let err = fx
        .call("write", json!({"path": abs, "content": "x"}))
        .await
        .unwrap_err();
    assert!(err.contains("is outside the workspace"), "{err}");
    let escape = format!("{}/../x", scratch.path().display());
    let err = fx.call("read", json!({"path": escape})).await.unwrap_err();
    assert!(err.contains("is outside the workspace"), "{err}");
    let abs_outside = fx.outside.path().join("secret.txt");
    let err = fx
        .call(
            "read",
            json!({"path": abs_outside.to_str().expect("utf-8")}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("is outside the workspace"), "{err}");
}

#[tokio::test]
async fn walks_do_not_follow_links_out_of_the_root() {
    let fx = Fixture::new();
    symlink(fx.outside.path(), fx.root().join("out")).expect("symlink");
    fx.write("visible.txt", "nothing here\n");
    let out = fx
        .call("grep", json!({"pattern": "SECRETWORD"}))
        .await
        .expect("grep");
    assert_eq!(out, "No matches found for pattern \"SECRETWORD\"");
    let out = fx
        .call("glob", json!({"pattern": "**/*.txt"}))
        .await
        .expect("glob");
    assert_eq!(out, "visible.txt");
}

// ---------------------------------------------------------------- arguments

#[tokio::test]
async fn wrong_argument_types_name_the_field() {
    let fx = Fixture::new();
    let cases = [
        (
            "read",
            json!({"path": 5}),
            "invalid input: field \"path\" must be a string, got a number",
        ),
        (
            "read",
            json!({"path": "x", "offset": "2"}),
            "invalid input: field \"offset\" must be a non-negative integer, got a string",
        ),
        (
            "read",
            json!({"path": "x", "limit": -1}),
            "invalid input: field \"limit\" must be a non-negative integer, got -1",
        ),
        (
            "write",
            json!({"path": "x", "content": ["a"]}),
            "invalid input: field \"content\" must be a string, got an array",
        ),
        (
            "edit",
            json!({"path": "x", "old_string": "a", "new_string": "b", "replace_all": "yes"}),
            "invalid input: field \"replace_all\" must be a boolean (true or false), got a string",
        ),
        (
            "grep",
            json!({"pattern": "x", "max_results": "10"}),
            "invalid input: field \"max_results\" must be a non-negative integer, got a string",
        ),
        (
            "glob",
            json!({"pattern": true}),
            "invalid input: field \"pattern\" must be a string, got a boolean",
        ),
        (
            "exec",
            json!({"command": 1}),
            "invalid input: field \"command\" must be a string, got a number",
        ),
        (
            "exec",
            json!({"command": "true", "timeout_ms": 600_001}),
            "invalid input: field \"timeout_ms\" must be at most 600000",
        ),
        (
            "tool_search",
            json!({"query": {}}),
            "invalid input: field \"query\" must be a string, got an object",
        ),
        (
            "read",
            json!([]),
            "invalid input: expected a JSON object, got an array",
        ),
        (
            "read",
            json!({}),
            "invalid input: missing required field \"path\"",
        ),
    ];
    for (tool, input, expected) in cases {
        let err = fx.call(tool, input.clone()).await.expect_err(tool);
        assert_eq!(err, expected, "{tool} {input}");
    }
    // Unknown fields are ignored.
    fx.write("x", "1\n");
    assert!(fx
        .call("read", json!({"path": "x", "explanation": "why"}))
        .await
        .is_ok());
}

// ---------------------------------------------------------------- read

#[tokio::test]
async fn read_numbers_lines_and_pages() {
    let fx = Fixture::new();
    let text: String = (1..=10).map(|i| format!("line {i}\r\n")).collect();
    fx.write("f.txt", &text);
    let out = fx
        .call("read", json!({"path": "f.txt", "offset": 3, "limit": 2}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "     3\tline 3\n     4\tline 4\n(more lines follow; use offset=5 to continue)"
    );
    let out = fx
        .call("read", json!({"path": "f.txt", "offset": 9}))
        .await
        .unwrap();
    assert_eq!(out, "     9\tline 9\n    10\tline 10");
    let err = fx
        .call("read", json!({"path": "f.txt", "offset": 11}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "offset 11 is past the end of \"f.txt\" (it has 10 lines)"
    );
    let err = fx
        .call("read", json!({"path": "f.txt", "limit": 0}))
        .await
        .unwrap_err();
    assert_eq!(err, "invalid input: field \"limit\" must be at least 1");
}

#[tokio::test]
async fn read_default_limit_is_2000_lines() {
    let fx = Fixture::new();
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    fx.write("long.txt", &text);
    let out = fx.call("read", json!({"path": "long.txt"})).await.unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2001);
    assert_eq!(lines[1999], "  2000\t2000");
    assert_eq!(
        lines[2000],
        "(more lines follow; use offset=2001 to continue)"
    );
}

#[tokio::test]
async fn read_refuses_binary_and_directories_and_notes_empty_files() {
    let fx = Fixture::new();
    fx.write("bin.dat", b"ELF\x00\x01\x02");
    fx.write("dir/x.txt", "x");
    fx.write("empty.txt", "");
    let err = fx
        .call("read", json!({"path": "bin.dat"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "file \"bin.dat\" looks binary (it contains NUL bytes); read only shows text files"
    );
    let err = fx.call("read", json!({"path": "dir"})).await.unwrap_err();
    assert_eq!(
        err,
        "path \"dir\" is a directory, not a file; use glob to list its files"
    );
    let err = fx
        .call("read", json!({"path": "missing.txt"}))
        .await
        .unwrap_err();
    assert_eq!(err, "path \"missing.txt\" does not exist");
    let out = fx.call("read", json!({"path": "empty.txt"})).await.unwrap();
    assert_eq!(out, "(file \"empty.txt\" is empty)");
}

#[tokio::test]
async fn read_is_lossy_on_invalid_utf8_and_cuts_huge_lines() {
    let fx = Fixture::new();
    let mut bytes = b"ok \xff\xfe end\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'x', 3_000_000));
    bytes.extend_from_slice(b"\nafter\n");
    fx.write("odd.txt", &bytes);
    let out = fx.call("read", json!({"path": "odd.txt"})).await.unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "     1\tok \u{fffd}\u{fffd} end");
    assert!(lines[1].starts_with("     2\txxxx"));
    assert!(
        lines[1].ends_with(" [… line cut: 3000000 bytes in total]"),
        "{}",
        &lines[1][lines[1].len() - 60..]
    );
    assert!(lines[1].chars().count() < 2000);
    assert_eq!(lines[2], "     3\tafter");
}

// ---------------------------------------------------------------- read before edit

#[tokio::test]
async fn edit_requires_a_read_first() {
    let fx = Fixture::new();
    fx.write("f.rs", "let x = 1;\n");
    let edit = json!({"path": "f.rs", "old_string": "1", "new_string": "2"});
    let err = fx.call("edit", edit.clone()).await.unwrap_err();
    assert_eq!(
        err,
        "file \"f.rs\" has not been read in this session; read it first (any range), then retry"
    );
    assert_eq!(fx.content("f.rs"), "let x = 1;\n");

    fx.call("read", json!({"path": "f.rs", "offset": 1, "limit": 1}))
        .await
        .unwrap();
    let out = fx.call("edit", edit).await.unwrap();
    assert_eq!(out, "Edited f.rs: replaced 1 occurrence");
    assert_eq!(fx.content("f.rs"), "let x = 2;\n");

    // The tracker holds the edited state: a second edit needs no new read.
    let out = fx
        .call(
            "edit",
            json!({"path": "f.rs", "old_string": "2", "new_string": "3"}),
        )
        .await
        .unwrap();
    assert_eq!(out, "Edited f.rs: replaced 1 occurrence");
}

#[tokio::test]
async fn a_partial_read_counts_as_read() {
    let fx = Fixture::new();
    let text: String = (1..=50).map(|i| format!("row {i}\n")).collect();
    fx.write("big.txt", &text);
    fx.call("read", json!({"path": "big.txt", "offset": 2, "limit": 1}))
        .await
        .unwrap();
    let out = fx
        .call(
            "edit",
            json!({"path": "big.txt", "old_string": "row 50\n", "new_string": "last\n"}),
        )
        .await
        .unwrap();
    assert_eq!(out, "Edited big.txt: replaced 1 occurrence");
}

#[tokio::test]
async fn edit_refused_after_a_change_behind_the_models_back() {
    let fx = Fixture::new();
    fx.write("f.txt", "one\n");
    fx.call("read", json!({"path": "f.txt"})).await.unwrap();
    fx.write("f.txt", "one\ntwo\n");
    let err = fx
        .call(
            "edit",
            json!({"path": "f.txt", "old_string": "one", "new_string": "1"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "file \"f.txt\" has changed since it was last read; read it again, then retry"
    );
    let err = fx
        .call("write", json!({"path": "f.txt", "content": "x"}))
        .await
        .unwrap_err();
    assert!(err.contains("has changed since it was last read"), "{err}");
    assert_eq!(fx.content("f.txt"), "one\ntwo\n");
    // Reading again makes it editable.
    fx.call("read", json!({"path": "f.txt"})).await.unwrap();
    fx.call(
        "edit",
        json!({"path": "f.txt", "old_string": "one", "new_string": "1"}),
    )
    .await
    .unwrap();
    assert_eq!(fx.content("f.txt"), "1\ntwo\n");
}

#[tokio::test]
async fn a_same_content_rewrite_is_no_reason_to_refuse() {
    let fx = Fixture::new();
    fx.write("f.txt", "same\n");
    fx.call("read", json!({"path": "f.txt"})).await.unwrap();
    let path = fx.root().join("f.txt");
    let mtime_before = fs::metadata(&path).unwrap().modified().unwrap();
    fs::write(&path, "same\n").unwrap();
    let later = SystemTime::now() + Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_ne!(
        fs::metadata(&path).unwrap().modified().unwrap(),
        mtime_before
    );
    let out = fx
        .call(
            "edit",
            json!({"path": "f.txt", "old_string": "same", "new_string": "new"}),
        )
        .await
        .unwrap();
    assert_eq!(out, "Edited f.txt: replaced 1 occurrence");
}

#[tokio::test]
async fn files_the_executor_saw_change_count_as_read() {
    let fx = Fixture::new();
    // An exec call creates the file; the model never reads it.
    let out = fx
        .call(
            "exec",
            json!({"command": "printf 'generated = 1\\n' > gen.toml"}),
        )
        .await
        .unwrap();
    assert_eq!(out, "(no output)\nexit status: 0");
    let edit = json!({"path": "gen.toml", "old_string": "1", "new_string": "2"});
    let err = fx.call("edit", edit.clone()).await.unwrap_err();
    assert!(err.contains("has not been read"), "{err}");

    // What the executor does after the call's after-snapshot.
    let observer: Arc<dyn ChangeObserver> = fx.tools.tracker.clone();
    observer.files_changed(
        fx.root(),
        &[FileChange {
            path: "gen.toml".into(),
            absolute: fx.root().join("gen.toml"),
            kind: ChangeKind::Created,
            old_size: None,
            new_size: Some(13),
        }],
    );
    let out = fx.call("edit", edit).await.unwrap();
    assert_eq!(out, "Edited gen.toml: replaced 1 occurrence");

    // A reported deletion forgets the file.
    fs::remove_file(fx.root().join("gen.toml")).unwrap();
    observer.files_changed(
        fx.root(),
        &[FileChange {
            path: "gen.toml".into(),
            absolute: fx.root().join("gen.toml"),
            kind: ChangeKind::Deleted,
            old_size: Some(13),
            new_size: None,
        }],
    );
    assert!(!fx.tools.tracker.is_tracked(&fx.root().join("gen.toml")));
}

#[tokio::test]
async fn write_creates_new_files_without_a_read_but_not_existing_ones() {
    let fx = Fixture::new();
    let out = fx
        .call(
            "write",
            json!({"path": "deep/er/new.md", "content": "# new\n"}),
        )
        .await
        .unwrap();
    assert_eq!(out, "Created deep/er/new.md (6 bytes)");
    assert_eq!(fx.content("deep/er/new.md"), "# new\n");
    // Written content counts as seen.
    let out = fx
        .call(
            "write",
            json!({"path": "deep/er/new.md", "content": "# newer\n"}),
        )
        .await
        .unwrap();
    assert_eq!(out, "Overwrote deep/er/new.md (8 bytes)");

    fx.write("old.md", "old\n");
    let err = fx
        .call("write", json!({"path": "old.md", "content": "x"}))
        .await
        .unwrap_err();
    assert!(err.contains("has not been read"), "{err}");
    assert_eq!(fx.content("old.md"), "old\n");
    fx.call("read", json!({"path": "old.md"})).await.unwrap();
    fx.call("write", json!({"path": "old.md", "content": "x"}))
        .await
        .unwrap();
    assert_eq!(fx.content("old.md"), "x");

    let err = fx
        .call("write", json!({"path": "deep", "content": "x"}))
        .await
        .unwrap_err();
    assert!(err.contains("is a directory"), "{err}");
    // No temporary files are left behind.
    let names: Vec<String> = fs::read_dir(fx.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[tokio::test]
async fn edit_errors_say_what_to_do() {
    let fx = Fixture::new();
    fx.write("f.txt", "a b a b a\n");
    fx.call("read", json!({"path": "f.txt"})).await.unwrap();
    let err = fx
        .call(
            "edit",
            json!({"path": "f.txt", "old_string": "c", "new_string": "d"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "old_string was not found in \"f.txt\"; read the file again and copy the text exactly (check whitespace and indentation)"
    );
    let err = fx
        .call(
            "edit",
            json!({"path": "f.txt", "old_string": "a", "new_string": "z"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "old_string occurs 3 times in \"f.txt\"; add surrounding context to make it unique, or set replace_all to true to replace every occurrence"
    );
    let err = fx
        .call(
            "edit",
            json!({"path": "f.txt", "old_string": "a", "new_string": "a"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        "old_string and new_string are identical; nothing to change"
    );
    let err = fx
        .call(
            "edit",
            json!({"path": "f.txt", "old_string": "", "new_string": "a"}),
        )
        .await
        .unwrap_err();
    assert!(
        err.starts_with("invalid input: field \"old_string\" must not be empty"),
        "{err}"
    );
    assert_eq!(fx.content("f.txt"), "a b a b a\n");
    let out = fx
        .call(
            "edit",
            json!({"path": "f.txt", "old_string": "a", "new_string": "z", "replace_all": true}),
        )
        .await
        .unwrap();
    assert_eq!(out, "Edited f.txt: replaced 3 occurrences");
    assert_eq!(fx.content("f.txt"), "z b z b z\n");
}

#[tokio::test]
async fn edit_keeps_invalid_utf8_elsewhere_in_the_file() {
    let fx = Fixture::new();
    fx.write("latin1.txt", b"caf\xe9 = 1\n");
    fx.call("read", json!({"path": "latin1.txt"}))
        .await
        .unwrap();
    fx.call(
        "edit",
        json!({"path": "latin1.txt", "old_string": "1", "new_string": "2"}),
    )
    .await
    .unwrap();
    assert_eq!(
        fs::read(fx.root().join("latin1.txt")).unwrap(),
        b"caf\xe9 = 2\n"
    );
}

// ---------------------------------------------------------------- grep and glob

fn grep_tree(fx: &Fixture) {
    fx.write("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n");
    fx.write("src/lib.rs", "// hello from lib\npub fn hello() {}\n");
    fx.write("src/a/deep.rs", "hello deep\n");
    fx.write("src.txt", "hello txt\n");
    fx.write("README.md", "Say HELLO\r\n");
    fx.write(".hidden/h.rs", "hello hidden\n");
    fx.write("target/debug/out.rs", "hello ignored\n");
    fx.write(".gitignore", "target/\n");
    fx.write("blob.bin", b"hello\x00binary");
}

#[tokio::test]
async fn grep_lists_sorted_matches_with_ripgrep_filters() {
    let fx = Fixture::new();
    grep_tree(&fx);
    let out = fx.call("grep", json!({"pattern": "hello"})).await.unwrap();
    assert_eq!(
        out,
        "src/a/deep.rs:1:hello deep\nsrc/lib.rs:1:// hello from lib\nsrc/lib.rs:2:pub fn hello() {}\nsrc.txt:1:hello txt"
    );
    let out = fx
        .call(
            "grep",
            json!({"pattern": "^say hello$", "case_insensitive": true}),
        )
        .await
        .unwrap();
    assert_eq!(out, "README.md:1:Say HELLO");
    let out = fx
        .call("grep", json!({"pattern": "hello", "glob": "*.txt"}))
        .await
        .unwrap();
    assert_eq!(out, "src.txt:1:hello txt");
    let out = fx
        .call("grep", json!({"pattern": "hello", "glob": "src/*.rs"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "src/lib.rs:1:// hello from lib\nsrc/lib.rs:2:pub fn hello() {}"
    );
    let out = fx
        .call(
            "grep",
            json!({"pattern": "hello", "path": "src/lib.rs", "max_results": 1}),
        )
        .await
        .unwrap();
    assert_eq!(
        out,
        "src/lib.rs:1:// hello from lib\n(1 more matches not shown; narrow the pattern, path or glob, or raise max_results)"
    );
    let out = fx
        .call("grep", json!({"pattern": "nothing", "path": "src"}))
        .await
        .unwrap();
    assert_eq!(out, "No matches found for pattern \"nothing\" in \"src\"");
    let err = fx.call("grep", json!({"pattern": "("})).await.unwrap_err();
    assert!(err.starts_with("invalid regex \"(\": "), "{err}");
    let err = fx
        .call("grep", json!({"pattern": "x", "glob": "a[" }))
        .await
        .unwrap_err();
    assert!(err.starts_with("invalid glob \"a[\": "), "{err}");
    let err = fx
        .call("grep", json!({"pattern": "x", "path": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(err, "path \"nope\" does not exist");
}

#[tokio::test]
async fn grep_streams_files_larger_than_8_mib() {
    let fx = Fixture::new();
    let mut text = "filler line without the word\n".repeat(320_000);
    text.push_str("the needle is here\r\n");
    text.push_str(&"x".repeat(500_000));
    text.push_str(" needle at the end of a long line");
    assert!(text.len() > 8 * 1024 * 1024);
    fx.write("big.log", &text);
    let out = fx.call("grep", json!({"pattern": "needle"})).await.unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{}", &out[..out.len().min(300)]);
    assert_eq!(lines[0], "big.log:320001:the needle is here");
    assert!(
        lines[1].starts_with("big.log:320002:xxx"),
        "{}",
        &lines[1][..40]
    );
    assert!(lines[1].ends_with(" more chars]"), "clipped");
}

#[tokio::test]
async fn grep_is_bounded_and_counts_the_rest() {
    let fx = Fixture::new();
    for f in 0..30 {
        let text: String = (0..10).map(|l| format!("match {f} {l}\n")).collect();
        fx.write(&format!("d/f{f:02}.txt"), text);
    }
    let out = fx
        .call("grep", json!({"pattern": "match", "max_results": 15}))
        .await
        .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 16);
    assert_eq!(lines[0], "d/f00.txt:1:match 0 0");
    assert_eq!(lines[14], "d/f01.txt:5:match 1 4");
    assert_eq!(
        lines[15],
        "(285 more matches not shown; narrow the pattern, path or glob, or raise max_results)"
    );
    let default = fx.call("grep", json!({"pattern": "match"})).await.unwrap();
    assert_eq!(default.lines().count(), 101);
}

#[tokio::test]
async fn glob_lists_sorted_bounded_paths() {
    let fx = Fixture::new();
    grep_tree(&fx);
    let out = fx
        .call("glob", json!({"pattern": "**/*.rs"}))
        .await
        .unwrap();
    assert_eq!(out, "src/a/deep.rs\nsrc/lib.rs\nsrc/main.rs");
    let out = fx
        .call("glob", json!({"pattern": "*.rs", "path": "src"}))
        .await
        .unwrap();
    assert_eq!(out, "src/lib.rs\nsrc/main.rs");
    let out = fx
        .call("glob", json!({"pattern": "*.{md,txt}"}))
        .await
        .unwrap();
    assert_eq!(out, "README.md\nsrc.txt");
    let out = fx.call("glob", json!({"pattern": "*.py"})).await.unwrap();
    assert_eq!(out, "No files match \"*.py\"");
    let err = fx
        .call("glob", json!({"pattern": "*", "path": "src/lib.rs"}))
        .await
        .unwrap_err();
    assert_eq!(err, "path \"src/lib.rs\" is not a directory");

    let many = Fixture::new();
    for i in 0..1005 {
        many.write(&format!("m/{i:04}.txt"), "");
    }
    let out = many
        .call("glob", json!({"pattern": "m/*.txt"}))
        .await
        .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[0], "m/0000.txt");
    assert_eq!(lines[999], "m/0999.txt");
    assert_eq!(
        lines[1000],
        "(5 more files not shown; narrow the pattern or path)"
    );
}

// ---------------------------------------------------------------- exec

/// Live processes of the host whose command line contains `needle`, from
/// /proc (a zombie's command line is empty). exec's processes live in
/// their own PID namespace, so they are found by a unique argument
/// ([`unique_sleep`]) rather than by a pid the command prints.
fn live_processes_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy() == std::process::id().to_string() {
            continue;
        }
        let Ok(raw) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push(cmdline);
        }
    }
    found
}

/// `300.PID0N`: a sleep duration no other test process uses.
fn unique_sleep(n: u32) -> String {
    format!("300.{}0{n}", std::process::id())
}

/// Waits (up to 3 s) until no process shows `needle`.
fn assert_group_gone(needle: &str) {
    let end = Instant::now() + Duration::from_secs(3);
    loop {
        let live = live_processes_with(needle);
        if live.is_empty() {
            return;
        }
        assert!(
            Instant::now() < end,
            "processes of the call still alive: {live:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test]
async fn exec_returns_output_and_status() {
    let fx = Fixture::new();
    let out = fx
        .call("exec", json!({"command": "echo out; echo err >&2; exit 3"}))
        .await
        .unwrap();
    assert!(out.contains("out\n") && out.contains("err\n"), "{out}");
    // A failed command in the sandbox ends with the sandbox line.
    assert!(
        out.ends_with("\nexit status: 3\n[sandbox: writes outside the workspace and network access are blocked]"),
        "{out}"
    );
    let out = fx
        .call("exec", json!({"command": "kill -9 $$"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        "(no output)\nexit status: killed by signal 9 (SIGKILL)\n[sandbox: writes outside the workspace and network access are blocked]"
    );
    fx.write("sub/marker", "");
    let out = fx
        .call("exec", json!({"command": "ls", "cwd": "sub"}))
        .await
        .unwrap();
    assert_eq!(out, "marker\nexit status: 0");
    let err = fx
        .call("exec", json!({"command": "ls", "cwd": "sub/marker"}))
        .await
        .unwrap_err();
    assert_eq!(err, "path \"sub/marker\" is not a directory");
    let out = fx.call("exec", json!({"command": "cat"})).await.unwrap();
    assert_eq!(out, "(no output)\nexit status: 0", "stdin is empty");
}

#[tokio::test]
async fn exec_declares_its_timeout() {
    let fx = Fixture::new();
    let exec = fx.tools.get("exec").unwrap();
    assert_eq!(
        exec.timeout(&json!({"command": "x"})),
        Duration::from_secs(120)
    );
    assert_eq!(
        exec.timeout(&json!({"command": "x", "timeout_ms": 1500})),
        Duration::from_millis(1500)
    );
    assert_eq!(
        exec.timeout(&json!({"command": "x", "timeout_ms": 600_000})),
        Duration::from_secs(600)
    );
    assert_eq!(
        exec.timeout(&json!({"command": "x", "timeout_ms": "soon"})),
        Duration::from_secs(120)
    );
    // Without a command (or a listing's null input) exec is not safe; a
    // read-only command is, and exec never counts as read-only.
    assert!(!exec.concurrency_safe(&json!({})) && !exec.read_only(&json!({})));
    assert!(!exec.concurrency_safe(&Value::Null));
    assert!(!exec.concurrency_safe(&json!({"command": 5})));
    assert!(exec.concurrency_safe(&json!({"command": "ls -la"})));
    assert!(!exec.read_only(&json!({"command": "ls -la"})));
    assert!(!exec.concurrency_safe(&json!({"command": "rm -rf x"})));
    for name in ["read", "write", "edit", "grep", "glob", "tool_search"] {
        let tool = fx.tools.get(name).unwrap();
        assert_eq!(
            tool.timeout(&json!({})),
            toolexec_core::DEFAULT_TIMEOUT,
            "{name}"
        );
    }
}

#[tokio::test]
async fn exec_flags_and_schemas_follow_the_spec_table() {
    let fx = Fixture::new();
    let table: [(&str, &[&str], bool, bool); 7] = [
        ("read", &["path"], true, true),
        ("write", &["path", "content"], false, false),
        ("edit", &["path", "old_string", "new_string"], false, false),
        ("grep", &["pattern"], true, true),
        ("glob", &["pattern"], true, true),
        ("exec", &["command"], false, false),
        ("tool_search", &["query"], true, true),
    ];
    let names: Vec<&str> = fx.tools.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, table.map(|row| row.0));
    for (name, required, read_only, safe) in table {
        let tool = fx.tools.get(name).unwrap();
        assert_eq!(tool.input_schema()["required"], json!(required), "{name}");
        assert_eq!(tool.input_schema()["type"], "object");
        for (field, spec) in tool.input_schema()["properties"].as_object().unwrap() {
            assert!(spec["type"].is_string(), "{name}.{field} typed");
            assert!(spec["description"].is_string(), "{name}.{field} described");
        }
        assert_eq!(tool.read_only(&json!({})), read_only, "{name}");
        assert_eq!(tool.concurrency_safe(&json!({})), safe, "{name}");
    }
}

#[tokio::test]
async fn exec_returns_at_once_when_a_background_child_holds_the_pipes() {
    let fx = Fixture::new();
    let started = Instant::now();
    let s = unique_sleep(1);
    let out = fx
        .call(
            "exec",
            json!({"command": format!("sleep {s} & echo started")}),
        )
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert!(out.starts_with("started\n"), "{out}");
    assert!(
        out.contains(
            "[processes left running in the background were killed; a command's processes end when it ends]"
        ),
        "{out}"
    );
    assert!(out.ends_with("exit status: 0"), "{out}");
    assert_group_gone(&s);
}

#[tokio::test]
async fn exec_cancellation_kills_grandchildren_and_returns_partial_output() {
    let fx = Fixture::new();
    let ctx = fx.ctx();
    let token = ctx.cancel_token().clone();
    let exec = fx.tools.get("exec").unwrap().clone();
    let s = unique_sleep(2);
    let needle = s.clone();
    let task = tokio::spawn(async move {
        exec.call(
            json!({"command": format!("echo pgid $$; sh -c 'sleep {s} & sleep {s}'")}),
            ctx,
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    let cancelled_at = Instant::now();
    token.cancel();
    let out = task.await.unwrap().unwrap();
    assert!(
        cancelled_at.elapsed() < Duration::from_secs(2),
        "took {:?}",
        cancelled_at.elapsed()
    );
    assert!(out.starts_with("pgid "), "{out}");
    assert!(
        out.contains("\n[cancelled; the process group was killed]\nexit status: killed by signal"),
        "{out}"
    );
    assert_group_gone(&needle);
}

#[tokio::test]
async fn exec_dropped_future_kills_the_group() {
    let fx = Fixture::new();
    let pid_file = fx.root().join("pid");
    let s = unique_sleep(3);
    let call = fx.call(
        "exec",
        json!({"command": format!("echo $$ > pid; sleep {s} & sleep {s}")}),
    );
    assert!(tokio::time::timeout(Duration::from_millis(500), call)
        .await
        .is_err());
    assert!(pid_file.exists(), "the command ran");
    assert_group_gone(&s);
}

#[tokio::test]
async fn exec_stops_itself_after_its_timeout_without_an_executor() {
    let fx = Fixture::new();
    let started = Instant::now();
    let s = unique_sleep(4);
    let out = fx
        .call(
            "exec",
            json!({"command": format!("echo pgid $$; sleep {s}"), "timeout_ms": 200}),
        )
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        out.contains("[timed out after 200 ms; the process group was killed]"),
        "{out}"
    );
    assert_group_gone(&s);
}

#[tokio::test]
async fn exec_capture_is_bounded() {
    let fx = Fixture::new();
    let total: u64 = 2_000_000_000;
    let out = fx
        .call("exec", json!({"command": format!("yes | head -c {total}")}))
        .await
        .unwrap();
    assert!(
        out.len() < 1024 * 1024 + 200,
        "{} bytes returned",
        out.len()
    );
    let dropped = total - 1024 * 1024;
    assert!(
        out.contains(&format!("\n[... {dropped} bytes dropped ...]\n")),
        "marker"
    );
    assert!(out.starts_with("y\ny\n"));
    assert!(
        out.ends_with("y\nexit status: 0"),
        "{}",
        &out[out.len() - 50..]
    );
}

#[tokio::test]
async fn exec_decodes_invalid_utf8_lossily() {
    let fx = Fixture::new();
    let out = fx
        .call(
            "exec",
            json!({"command": "printf 'a\\377\\376b\\n'; printf '\\360\\237' >&2"}),
        )
        .await
        .unwrap();
    assert!(out.contains("a\u{fffd}\u{fffd}b\n"), "{out}");
    assert!(out.ends_with("exit status: 0"));
}

/// Run by `exec_leaves_secret_variables_out_of_the_child` in a child test
/// process whose environment holds the variables from the start (setting
/// them here with `set_var` would race with other tests).
#[tokio::test]
#[ignore = "helper: run by exec_leaves_secret_variables_out_of_the_child"]
async fn env_probe() {
    assert_eq!(
        std::env::var("TOOLEXEC_TEST_API_KEY").as_deref(),
        Ok("sk-not-for-children")
    );
    let config = BuiltinConfig::default()
        .with_exec(ExecConfig::default().allow_env(["TOOLEXEC_TEST_ALLOWED_TOKEN"]));
    let fx = Fixture::with_config(&config);
    let out = fx.call("exec", json!({"command": "env"})).await.unwrap();
    assert!(!out.contains("TOOLEXEC_TEST_API_KEY"), "{out}");
    assert!(!out.contains("sk-not-for-children"), "{out}");
    assert!(!out.contains("toolexec_test_password"), "{out}");
    assert!(out.contains("TOOLEXEC_TEST_PLAIN=visible\n"), "{out}");
    assert!(
        out.contains("TOOLEXEC_TEST_ALLOWED_TOKEN=let-through\n"),
        "{out}"
    );
    println!("ENV PROBE OK");
}

#[test]
fn exec_leaves_secret_variables_out_of_the_child() {
    let exe = std::env::current_exe().unwrap();
    let output = std::process::Command::new(exe)
        .args([
            "--ignored",
            "--exact",
            "env_probe",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TOOLEXEC_TEST_API_KEY", "sk-not-for-children")
        .env("toolexec_test_password", "hunter2hunter2")
        .env("TOOLEXEC_TEST_PLAIN", "visible")
        .env("TOOLEXEC_TEST_ALLOWED_TOKEN", "let-through")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("ENV PROBE OK"), "{stdout}");
}

// ---------------------------------------------------------------- tool_search

#[tokio::test]
async fn tool_search_finds_offered_and_unoffered_tools() {
    let fx = Fixture::new();
    let mut catalog: Vec<ToolInfo> = fx
        .tools
        .tools
        .iter()
        .map(|t| ToolInfo::of(t.as_ref()))
        .collect();
    catalog.push(ToolInfo {
        name: "deploy".into(),
        description: "Deploy the service to staging".into(),
        input_schema: json!({"type": "object", "required": ["env"]}),
        read_only: false,
        concurrency_safe: false,
        offered: false,
        disabled: false,
    });
    let ctx = fx.ctx().with_catalog(Arc::from(catalog));
    let out = fx
        .call_ctx(
            "tool_search",
            json!({"query": "STAGING deploy"}),
            ctx.clone(),
        )
        .await
        .unwrap();
    let found: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(found["tools"][0]["name"], "deploy");
    assert_eq!(
        found["tools"][0]["input_schema"]["required"],
        json!(["env"])
    );
    assert_eq!(found["tools"][0]["offered"], json!(false));
    let out = fx
        .call_ctx("tool_search", json!({"query": "file"}), ctx.clone())
        .await
        .unwrap();
    let found: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"read") && names.contains(&"edit"),
        "{names:?}"
    );
    let out = fx
        .call_ctx(
            "tool_search",
            json!({"query": "select:exec,grep"}),
            ctx.clone(),
        )
        .await
        .unwrap();
    let found: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(found["tools"][0]["name"], "exec");
    assert_eq!(found["tools"][1]["name"], "grep");
    let out = fx
        .call_ctx("tool_search", json!({"query": "kubernetes"}), ctx)
        .await
        .unwrap();
    assert!(out.starts_with("No tools match \"kubernetes\"."), "{out}");
}

// ---------------------------------------------------------------- properties

/// A workspace with links inside and out, for the jail property.
struct JailWorld {
    root: TempDir,
    _outside: TempDir,
    canonical_root: PathBuf,
}

fn jail_world() -> JailWorld {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("a/b")).unwrap();
    fs::write(root.path().join("a/f"), "f").unwrap();
    symlink(outside.path(), root.path().join("out")).unwrap();
    symlink("b", root.path().join("a/in")).unwrap();
    symlink("..", root.path().join("a/up")).unwrap();
    symlink("../..", root.path().join("a/escape")).unwrap();
    symlink("/", root.path().join("slash")).unwrap();
    let canonical_root = fs::canonicalize(root.path()).unwrap();
    JailWorld {
        root,
        _outside: outside,
        canonical_root,
    }
}

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just("a".to_string()),
        Just("b".to_string()),
        Just("f".to_string()),
        Just("out".to_string()),
        Just("in".to_string()),
        Just("up".to_string()),
        Just("escape".to_string()),
        Just("slash".to_string()),
        Just("new".to_string()),
        Just("".to_string()),
    ]
}

/// Where the kernel would take a path: the canonical form of its longest
/// existing prefix, plus the rest.
fn kernel_resolution(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(mut canonical) = fs::canonicalize(&current) {
            for name in rest.iter().rev() {
                canonical.push(name);
            }
            return canonical;
        }
        match current.file_name() {
            Some(name) => {
                rest.push(name.to_os_string());
                current.pop();
            }
            None => return current,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn jail_never_resolves_outside_the_root(
        parts in proptest::collection::vec(component(), 0..7),
        absolute in any::<bool>(),
    ) {
        thread_local! { static WORLD: JailWorld = jail_world(); }
        WORLD.with(|world| {
            let jail = Jail::new(world.root.path()).unwrap();
            let joined = parts.join("/");
            let arg = if absolute {
                format!("{}/{}", world.root.path().display(), joined)
            } else {
                joined
            };
            if let Ok(resolved) = jail.resolve(&arg) {
                prop_assert!(resolved.starts_with(&world.canonical_root), "{arg} -> {resolved:?}");
                let real = kernel_resolution(&resolved);
                prop_assert!(real.starts_with(&world.canonical_root), "{arg} -> {real:?}");
            }
            Ok(())
        })?;
    }

    #[test]
    fn jail_refuses_every_path_through_an_outward_link(
        prefix in proptest::collection::vec(prop_oneof![Just("a"), Just("a/b"), Just(".")], 0..3),
        link in prop_oneof![Just("out"), Just("a/escape"), Just("slash")],
        suffix in proptest::collection::vec(prop_oneof![Just("x"), Just("etc"), Just(".")], 0..3),
    ) {
        thread_local! { static WORLD: JailWorld = jail_world(); }
        WORLD.with(|world| {
            let jail = Jail::new(world.root.path()).unwrap();
            let mut parts: Vec<&str> = Vec::new();
            // Walk down then back up, so the link is reached from the root.
            for p in &prefix {
                parts.push(p);
                parts.extend(std::iter::repeat_n("..", p.split('/').filter(|s| *s != ".").count()));
            }
            parts.push(link);
            parts.extend(suffix.iter().copied());
            let arg = parts.join("/");
            let err = jail.resolve(&arg);
            prop_assert!(err.is_err(), "{arg} resolved to {:?}", err);
            Ok(())
        })?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The edit tool with replace_all does exactly what `str::replace`
    /// does, on real files.
    #[test]
    fn edit_replace_all_equals_str_replace(
        text in "[ab\n é]{1,60}",
        old in "[ab é]{1,3}",
        new in "[abc\n]{0,4}",
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let fx = Fixture::new();
            fx.write("p.txt", &text);
            fx.call("read", json!({"path": "p.txt"})).await.unwrap();
            let result = fx
                .call("edit", json!({"path": "p.txt", "old_string": old, "new_string": new, "replace_all": true}))
                .await;
            let count = text.matches(old.as_str()).count();
            if old == new {
                prop_assert!(result.is_err());
            } else if count == 0 {
                prop_assert!(result.unwrap_err().contains("was not found"));
            } else {
                prop_assert!(result.is_ok(), "{:?}", result);
                prop_assert_eq!(fx.content("p.txt"), text.replace(old.as_str(), new.as_str()));
            }
            Ok(())
        })?;
    }
}

// ---------------------------------------------------------------------------
// The read-only classifier of exec (SPEC §2.1).

// The table is shared with the bench harness (benches/src/main.rs).
include!("data/shell_table.rs");

#[test]
fn shell_classifier_table() {
    assert!(SHELL_TABLE.len() >= 60);
    let mut wrong = Vec::new();
    for &(command, expected) in SHELL_TABLE {
        let got = toolexec_tools::shell::classify(command);
        if got.is_ok() != expected {
            wrong.push(format!("{command:?}: expected {expected}, got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}

#[test]
fn shell_classifier_names_the_reason() {
    use toolexec_tools::shell::{classify, NotReadOnly, MAX_COMMAND_LEN};
    assert_eq!(
        classify("cargo build"),
        Err(NotReadOnly::UnknownProgram("cargo".into()))
    );
    assert_eq!(
        classify("ls > out.txt"),
        Err(NotReadOnly::Redirect("out.txt".into()))
    );
    assert_eq!(
        classify("X=1 ls"),
        Err(NotReadOnly::Assignment("X=1".into()))
    );
    assert_eq!(classify("echo $(date)"), Err(NotReadOnly::Substitution));
    assert_eq!(
        classify("find . -delete"),
        Err(NotReadOnly::WritingArgument {
            program: "find".into(),
            argument: "-delete".into()
        })
    );
    assert_eq!(classify(" "), Err(NotReadOnly::Empty));
    let long = "ls ".repeat(MAX_COMMAND_LEN);
    assert_eq!(classify(&long), Err(NotReadOnly::TooLong(long.len())));
    assert_eq!(
        classify("ls > out.txt").unwrap_err().to_string(),
        "output redirected to out.txt"
    );
}

#[test]
fn shell_classifier_refuses_hostile_input_quickly() {
    use toolexec_tools::shell::is_read_only;
    for text in [
        "$(".repeat(500_000),
        "echo ".to_string() + &"$(".repeat(30_000),
        "(".repeat(60_000),
        "'".repeat(60_001),
        "cat <<EOF\n".to_string() + &"x\n".repeat(30_000),
        "ls | ".repeat(14_000) + "ls",
        "xargs ".repeat(10_000),
        "\"".to_string() + &"\\".repeat(60_000),
    ] {
        assert!(!is_read_only(&text), "{}", &text[..20]);
    }
    // Long but well-formed commands are still read.
    assert!(is_read_only(&format!("{}ls", "ls | ".repeat(10_000))));
}

/// The commands the table calls read-only really leave the workspace as
/// it was (run for real, through exec), and the writers of the table do
/// write (so the check can fail).
#[tokio::test]
async fn shell_table_read_only_commands_change_no_file_when_run() {
    let fx = Fixture::new();
    fs::write(fx.root().join("a.txt"), "hello\nworld\na=b\n").unwrap();
    fs::write(fx.root().join("b.txt"), "b\n").unwrap();
    fs::create_dir(fx.root().join("src")).unwrap();
    fs::write(fx.root().join("src/main.rs"), "fn main() {}\n").unwrap();
    fs::create_dir(fx.root().join("sub")).unwrap();
    let listing = |root: &Path| {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let entry = entry.unwrap();
                let meta = entry.metadata().unwrap();
                if meta.is_dir() {
                    stack.push(entry.path());
                }
                out.push((entry.path(), meta.len(), meta.modified().unwrap()));
            }
        }
        out.sort();
        out
    };
    let before = listing(fx.root());
    for &(command, safe) in SHELL_TABLE {
        // Sleeps, tail and waits for stdin add nothing here.
        if !safe || command.starts_with("sleep") || command == "tee" {
            continue;
        }
        let out = fx
            .call("exec", json!({"command": command, "timeout_ms": 10_000}))
            .await
            .unwrap();
        assert!(out.contains("exit status: "), "{command:?}: {out}");
        assert_eq!(
            listing(fx.root()),
            before,
            "{command:?} changed the workspace"
        );
    }
    for command in [
        "echo hi > x",
        "ls | tee b.txt",
        "sort -o f a.txt",
        "sed -i s/a/b/ a.txt",
    ] {
        assert!(!toolexec_tools::shell::is_read_only(command));
        fx.call("exec", json!({"command": command})).await.unwrap();
        assert_ne!(listing(fx.root()), before, "{command:?} wrote nothing");
    }
}

proptest! {
    #[test]
    fn shell_classifier_never_panics_on_arbitrary_text(text in any::<String>()) {
        let _ = toolexec_tools::shell::classify(&text);
    }

    #[test]
    fn shell_classifier_never_panics_on_shell_like_text(
        text in proptest::string::string_regex("[a-z $(){}`'\"\\\\;&|<>=*\n\t#-]{0,80}").unwrap()
    ) {
        let _ = toolexec_tools::shell::classify(&text);
    }

    /// Joining read-only commands keeps them read-only, and one writer
    /// anywhere makes the whole command not read-only.
    #[test]
    fn shell_classifier_composes(
        picks in proptest::collection::vec(0..SHELL_TABLE.len(), 1..5),
        seps in proptest::collection::vec(prop::sample::select(vec![" ; ", " && ", " || ", " | ", "\n"]), 5),
    ) {
        // Only single-line table rows (here-documents need a newline
        // right after their line).
        let rows: Vec<(&str, bool)> = picks
            .iter()
            .map(|&i| SHELL_TABLE[i])
            .filter(|(c, _)| !c.is_empty() && !c.contains(['\n', '#', '\'', '"', '\\'])
                && !c.contains("<<") && !c.ends_with("&&") && !c.starts_with(';'))
            .collect();
        prop_assume!(!rows.is_empty());
        let mut joined = String::new();
        for (k, (command, _)) in rows.iter().enumerate() {
            if k > 0 {
                joined.push_str(seps[k]);
            }
            joined.push_str(command);
        }
        let expected = rows.iter().all(|(_, safe)| *safe);
        prop_assert_eq!(toolexec_tools::shell::is_read_only(&joined), expected, "{:?}", joined);
    }
}

// ---------------------------------------------------------------- races (issue 14)

/// Swaps `a` and `b` with `renameat2(RENAME_EXCHANGE)` until stopped; returns
/// how many swaps it made.
fn flipper(
    a: PathBuf,
    b: PathBuf,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            if rustix::fs::renameat_with(
                rustix::fs::CWD,
                &a,
                rustix::fs::CWD,
                &b,
                rustix::fs::RenameFlags::EXCHANGE,
            )
            .is_ok()
            {
                swaps += 1;
            }
        }
        swaps
    })
}

/// Every path under `dir` (not following links).
fn all_paths(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("list").flatten() {
            let p = e.path();
            if e.file_type().expect("type").is_dir() {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_an_outward_link_never_gets_writes_outside() {
    let fx = Fixture::new();
    fs::create_dir(fx.root().join("sub")).expect("mkdir");
    symlink(fx.outside.path(), fx.root().join("sublink")).expect("symlink");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = flipper(
        fx.root().join("sub"),
        fx.root().join("sublink"),
        Arc::clone(&stop),
    );
    let mut created = Vec::new();
    for n in 0..300 {
        let name = format!("p{n}.txt");
        if let Ok(out) = fx
            .call(
                "write",
                json!({"path": format!("sub/{name}"), "content": "x"}),
            )
            .await
        {
            assert_eq!(out, format!("Created sub/{name} (1 bytes)"));
            created.push(name);
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swapper.join().expect("flipper");
    assert!(swaps > 0, "the race never ran");
    eprintln!("{swaps} swaps, {} of 300 writes done", created.len());
    // Nothing reached the outside directory: neither files nor temp files.
    assert_eq!(
        fx.outside_listing(),
        vec![("secret.txt".to_string(), "SECRETWORD\n".to_string())]
    );
    // Every reported write is in the real directory, wherever it now is.
    let real = if fs::symlink_metadata(fx.root().join("sub"))
        .expect("sub")
        .is_dir()
    {
        fx.root().join("sub")
    } else {
        fx.root().join("sublink")
    };
    for name in &created {
        assert!(real.join(name).is_file(), "{name} reported but missing");
    }
    let stray: Vec<_> = all_paths(fx.root())
        .into_iter()
        .chain(all_paths(fx.outside.path()))
        .filter(|p| p.to_string_lossy().contains(".toolexec-"))
        .collect();
    assert!(stray.is_empty(), "stray temp files: {stray:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_flipped_with_an_outward_link_or_a_fifo_never_leaks_or_blocks() {
    let fx = Fixture::new();
    fx.write("f.txt", "INSIDE\n");
    symlink(
        fx.outside.path().join("secret.txt"),
        fx.root().join("flink"),
    )
    .expect("symlink");
    fx.write("g.txt", "GEE\n");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        fx.root().join("gfifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let links = flipper(
        fx.root().join("f.txt"),
        fx.root().join("flink"),
        Arc::clone(&stop),
    );
    let fifos = flipper(
        fx.root().join("g.txt"),
        fx.root().join("gfifo"),
        Arc::clone(&stop),
    );
    let (mut inside, mut refused) = (0, 0);
    for _ in 0..300 {
        for path in ["f.txt", "g.txt"] {
            // A read that blocked on the FIFO would hang here; the bound is
            // only a guard against hanging the test run forever.
            let call = fx.call("read", json!({"path": path}));
            let result = tokio::time::timeout(Duration::from_secs(60), call)
                .await
                .expect("a read blocked");
            match result {
                Ok(out) => {
                    assert!(!out.contains("SECRETWORD"), "leaked: {out}");
                    inside += 1;
                }
                Err(err) => {
                    assert!(!err.contains("SECRETWORD"), "leaked: {err}");
                    refused += 1;
                }
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(links.join().expect("flipper") > 0 && fifos.join().expect("flipper") > 0);
    assert!(inside > 0, "no read ever succeeded ({refused} refused)");
    eprintln!("{inside} reads done, {refused} refused");
}

#[tokio::test]
async fn fifos_sockets_and_devices_are_refused_at_once() {
    let fx = Fixture::new();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        fx.root().join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
    let _listener = std::os::unix::net::UnixListener::bind(fx.root().join("sock")).expect("socket");
    symlink("/dev/zero", fx.root().join("zero")).expect("symlink");
    symlink("/dev/stdin", fx.root().join("stdin")).expect("symlink");
    symlink("fifo", fx.root().join("fifolink")).expect("symlink");
    for path in ["fifo", "sock", "fifolink"] {
        for (tool, input) in [
            ("read", json!({"path": path})),
            (
                "edit",
                json!({"path": path, "old_string": "a", "new_string": "b"}),
            ),
            ("write", json!({"path": path, "content": "x"})),
        ] {
            let err = fx.call(tool, input).await.expect_err(path);
            assert!(
                err.contains("is not a regular file"),
                "{tool} {path}: {err}"
            );
        }
    }
    for path in ["zero", "stdin"] {
        let err = fx
            .call("read", json!({"path": path}))
            .await
            .expect_err(path);
        assert!(err.contains("is outside the workspace"), "{path}: {err}");
    }
    fx.write("a.txt", "hello\n");
    let out = fx
        .call("grep", json!({"pattern": "hello"}))
        .await
        .expect("grep");
    assert_eq!(out, "a.txt:1:hello");
}

// ---------------------------------------------------------------- scratch through read

#[tokio::test]
async fn read_opens_only_its_own_sessions_spill_files() {
    let base = tempfile::tempdir().expect("base");
    let root = toolexec_limiter::ScratchRoot::open(base.path().join("scratch")).expect("root");
    let mine = root.ephemeral_session().expect("mine");
    let theirs = root.ephemeral_session().expect("theirs");
    let fx = Fixture::with_config(&BuiltinConfig::default().with_read_root(mine.dir()));
    for (dir, text) in [(mine.dir(), "mine\n"), (theirs.dir(), "theirs\n")] {
        fs::write(dir.join("tool_result_7.txt"), text).expect("spill");
    }
    fs::write(root.path().join("tool_result_8.txt"), "planted\n").expect("plant");
    fs::write(mine.dir().join("notes.txt"), "not a spill\n").expect("plant");
    let read = |p: PathBuf| fx.call("read", json!({"path": p.to_str().expect("utf-8")}));
    assert_eq!(
        read(mine.dir().join("tool_result_7.txt"))
            .await
            .expect("own spill"),
        "     1\tmine"
    );
    for refused in [
        theirs.dir().join("tool_result_7.txt"),
        root.path().join("tool_result_8.txt"),
        mine.dir().join("notes.txt"),
        mine.dir()
            .join("../")
            .join(theirs.dir().file_name().unwrap())
            .join("tool_result_7.txt"),
    ] {
        let err = read(refused.clone()).await.expect_err("refused");
        assert!(
            err.contains("is outside the workspace"),
            "{}: {err}",
            refused.display()
        );
    }
}

// ---------------------------------------------------------------- bounds

#[tokio::test]
async fn reads_limit_is_capped() {
    let fx = Fixture::new();
    let text: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    fx.write("big.txt", &text);
    let out = fx
        .call("read", json!({"path": "big.txt", "limit": 100_000_000u64}))
        .await
        .expect("read");
    assert_eq!(out.lines().count(), 2001);
    assert!(
        out.ends_with("\n(more lines follow; use offset=2001 to continue)"),
        "{out}"
    );
    let capped = Fixture::with_config(&BuiltinConfig::default().with_read_max_limit(10));
    capped.write("big.txt", &text);
    let out = capped
        .call("read", json!({"path": "big.txt", "limit": 50}))
        .await
        .expect("read");
    assert!(
        out.ends_with("    10\t10\n(more lines follow; use offset=11 to continue)"),
        "{out}"
    );
}

#[tokio::test]
async fn a_cancelled_read_stops() {
    let fx = Fixture::new();
    let text: String = (1..=200_000).map(|i| format!("line {i}\n")).collect();
    fx.write("big.txt", &text);
    let ctx = fx.ctx();
    ctx.cancel_token().cancel();
    let err = fx
        .call_ctx("read", json!({"path": "big.txt", "offset": 199_999}), ctx)
        .await
        .expect_err("cancelled");
    assert_eq!(err, "the call was cancelled before it finished");
}

/// CPU time (user + system) of this process so far.
fn cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_over_a_100_gb_sparse_file_ends_and_leaves_no_work_behind() {
    let fx = Fixture::new();
    let head: String = (1..=2000).map(|i| format!("text line {i}\n")).collect();
    fx.write("sparse.log", &head);
    let file = fs::OpenOptions::new()
        .write(true)
        .open(fx.root().join("sparse.log"))
        .expect("open");
    file.set_len(100 * 1024 * 1024 * 1024)
        .expect("sparse 100 GB");
    fx.write("small.txt", "text line here\n");
    let ctx = fx.ctx();
    let token = ctx.cancel_token().clone();
    // The executor's deadline, as the executor fires it.
    let deadline = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        token.cancel();
    });
    let call = fx.call_ctx("grep", json!({"pattern": "line 1999$|here"}), ctx);
    let out = tokio::time::timeout(Duration::from_secs(60), call)
        .await
        .expect("grep ended")
        .expect("grep");
    assert!(out.contains("sparse.log:1999:text line 1999"), "{out}");
    assert!(out.contains("small.txt:1:text line here"), "{out}");
    deadline.abort();
    // No search keeps running: the process's CPU time stays put.
    let before = cpu_time();
    std::thread::sleep(Duration::from_millis(500));
    let burnt = cpu_time() - before;
    assert!(
        burnt < Duration::from_millis(250),
        "{burnt:?} of CPU after the call"
    );
}

#[tokio::test]
async fn grep_refuses_huge_patterns_quoting_only_their_start() {
    let fx = Fixture::new();
    fx.write("a.txt", "x\n");
    let long = "ab".repeat(50_000);
    let err = fx
        .call("grep", json!({"pattern": long}))
        .await
        .expect_err("too long");
    assert!(
        err.starts_with(&format!("pattern \"{}…\" is too large", &long[..100])),
        "{err}"
    );
    assert!(err.len() < 300, "{err}");
    let big = "(\\w{100}){100}";
    let err = fx
        .call("grep", json!({"pattern": big}))
        .await
        .expect_err("too big");
    assert!(
        err.contains("is too large: its compiled program exceeds"),
        "{err}"
    );
    let broken = format!("({}", "x".repeat(5_000));
    let err = fx
        .call("grep", json!({"pattern": broken}))
        .await
        .expect_err("syntax");
    assert!(err.len() < 300, "{err}");
    assert!(err.contains("unclosed group"), "{err}");
}

#[tokio::test]
async fn grep_honours_inline_flags() {
    let fx = Fixture::new();
    fx.write("a.txt", "bar\nfoo one\nxfoo\r\nfoo two\r\n");
    let out = fx
        .call("grep", json!({"pattern": "(?-m)^foo"}))
        .await
        .expect("grep");
    assert_eq!(out, "a.txt:2:foo one\na.txt:4:foo two");
    let out = fx
        .call("grep", json!({"pattern": "(?-R)o$"}))
        .await
        .expect("grep");
    assert_eq!(out, "a.txt:3:xfoo\na.txt:4:foo two");
}

// ---------------------------------------------------------------- bad input

#[tokio::test]
async fn bad_paths_get_clear_errors() {
    let fx = Fixture::new();
    fs::create_dir(fx.root().join("dir")).expect("mkdir");
    let long = "n".repeat(5_000);
    for (tool, path, want) in [
        ("read", "a\0b", "must not contain a NUL byte"),
        ("write", "a\0b", "must not contain a NUL byte"),
        ("read", long.as_str(), "File name too long"),
        ("write", long.as_str(), "File name too long"),
        ("read", "dir", "is a directory"),
        ("write", "dir", "is a directory"),
        ("edit", "dir", "is a directory"),
        ("glob", long.as_str(), "File name too long"),
    ] {
        let input = match tool {
            "write" => json!({"path": path, "content": "x"}),
            "edit" => json!({"path": path, "old_string": "a", "new_string": "b"}),
            "glob" => json!({"pattern": "*", "path": path}),
            _ => json!({"path": path}),
        };
        let err = fx.call(tool, input).await.expect_err(tool);
        assert!(
            err.contains(want),
            "{tool} {}: {err}",
            &path[..path.len().min(20)]
        );
    }
}

#[tokio::test]
async fn odd_names_are_listed_one_a_line_and_read_back() {
    use std::os::unix::ffi::OsStrExt;
    let fx = Fixture::new();
    let invalid = std::ffi::OsStr::from_bytes(b"bad\xffname.txt");
    fs::write(fx.root().join(invalid), "invalid utf-8 name\n").expect("write");
    fs::write(fx.root().join("two\nlines.txt"), "newline name\n").expect("write");
    let out = fx
        .call("glob", json!({"pattern": "*.txt"}))
        .await
        .expect("glob");
    assert_eq!(out, "bad\\xffname.txt\ntwo\\x0alines.txt");
    for (listed, content) in out.lines().zip(["invalid utf-8 name", "newline name"]) {
        let text = fx
            .call("read", json!({"path": listed}))
            .await
            .expect(listed);
        assert_eq!(text, format!("     1\t{content}"));
    }
    let out = fx
        .call("grep", json!({"pattern": "name"}))
        .await
        .expect("grep");
    assert_eq!(
        out,
        "bad\\xffname.txt:1:invalid utf-8 name\ntwo\\x0alines.txt:1:newline name"
    );
}

/// The shrunk case of `tools.proptest-regressions` for
/// `jail_never_resolves_outside_the_root` (`parts = ["out"]`, relative): `out`
/// is a link to a directory outside the root, so the jail refuses it.
#[test]
fn seed_a_relative_outward_link_is_refused() {
    let world = jail_world();
    let jail = Jail::new(world.root.path()).unwrap();
    let resolved = jail.resolve("out");
    assert!(
        resolved.is_err(),
        "the outward link `out` resolved to {resolved:?}"
    );
}
