//! Benchmarks of the built-in tools against the obvious baselines.
//!
//! `cargo bench -p toolexec-tools --bench tools`
//!
//! - `exec`: the exec tool running `true` against spawning `sh -c true`
//!   directly with std and with tokio (goal: at most 1.5× the direct
//!   spawn).
//! - `grep`: the grep tool over a generated tree of 10 000 files against
//!   `grep -rn` on the same tree. The tree is generated at run time in a
//!   temporary directory.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::LazyLock;

use serde_json::json;
use tempfile::TempDir;
use toolexec_core::{Tool, ToolContext};
use toolexec_tools::{ExecConfig, ExecTool, GrepTool};

fn main() {
    divan::main();
}

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
});

mod exec {
    use super::*;

    #[divan::bench(sample_count = 60)]
    fn tool_exec_true(bencher: divan::Bencher<'_, '_>) {
        let tool = ExecTool::new(ExecConfig::default());
        let dir = tempfile::tempdir().expect("tempdir");
        let dir = dir.path();
        bencher.bench_local(|| {
            let out = RUNTIME
                .block_on(tool.call(json!({"command": "true"}), ToolContext::new(dir, "b")))
                .expect("exec true");
            assert!(out.ends_with("exit status: 0"));
        });
    }

    #[divan::bench(sample_count = 60)]
    fn std_spawn_sh_true() {
        let status = Command::new("sh")
            .args(["-c", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("sh -c true");
        assert!(status.status.success());
    }

    #[divan::bench(sample_count = 60)]
    fn tokio_spawn_sh_true() {
        let output = RUNTIME
            .block_on(async {
                tokio::process::Command::new("sh")
                    .args(["-c", "true"])
                    .stdin(Stdio::null())
                    .output()
                    .await
            })
            .expect("sh -c true");
        assert!(output.status.success());
    }

    /// The direct spawn with exec's options (own process group, filtered
    /// environment, working directory, both pipes): what the tool adds on
    /// top of this is its own logic.
    #[divan::bench(sample_count = 60)]
    fn tokio_spawn_sh_true_same_options() {
        let config = ExecConfig::default();
        let dir = tempfile::tempdir().expect("tempdir");
        let dir = dir.path();
        let output = RUNTIME
            .block_on(async {
                tokio::process::Command::new("sh")
                    .args(["-c", "true"])
                    .current_dir(dir)
                    .env_clear()
                    .envs(config.child_env(std::env::vars_os()))
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .process_group(0)
                    .kill_on_drop(true)
                    .output()
                    .await
            })
            .expect("sh -c true");
        assert!(output.status.success());
    }
}

mod grep {
    use super::*;

    const DIRS: usize = 100;
    const FILES_PER_DIR: usize = 100;

    /// 10 000 files of 40 lines; one file in 97 holds a `needle_N` line.
    static TREE: LazyLock<TempDir> = LazyLock::new(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        for d in 0..DIRS {
            let sub = dir.path().join(format!("dir{d:03}"));
            fs::create_dir_all(&sub).expect("mkdir");
            for f in 0..FILES_PER_DIR {
                let n = d * FILES_PER_DIR + f;
                let mut text = String::new();
                for line in 0..40 {
                    if line == 20 && n.is_multiple_of(97) {
                        text.push_str(&format!("    let needle_{n} = compute({line});\n"));
                    } else {
                        text.push_str(&format!(
                            "    let value_{line} = some_function(argument_{line}, {n});\n"
                        ));
                    }
                }
                fs::write(sub.join(format!("file{f:03}.rs")), text).expect("write");
            }
        }
        dir
    });

    fn tree() -> &'static Path {
        TREE.path()
    }

    #[divan::bench(sample_count = 20)]
    fn tool_grep_10k_files(bencher: divan::Bencher<'_, '_>) {
        let tool = GrepTool::new();
        let root = tree();
        bencher.bench_local(|| {
            let out = RUNTIME
                .block_on(tool.call(
                    json!({"pattern": "needle_[0-9]+", "max_results": 1000}),
                    ToolContext::new(root, "b"),
                ))
                .expect("grep");
            assert_eq!(out.lines().count(), 104);
        });
    }

    #[divan::bench(sample_count = 20)]
    fn grep_rn_10k_files(bencher: divan::Bencher<'_, '_>) {
        let root = tree();
        bencher.bench_local(|| {
            let output = Command::new("grep")
                .args(["-rnE", "needle_[0-9]+", "."])
                .current_dir(root)
                .stdin(Stdio::null())
                .output()
                .expect("grep -rn");
            assert_eq!(output.stdout.iter().filter(|&&b| b == b'\n').count(), 104);
        });
    }
}
