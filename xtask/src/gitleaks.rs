//! The gitleaks binary the redaction rows of `cargo xtask bench` compare
//! with (issue 15 asks for ≥ 10× gitleaks).
//!
//! Found in this order: `gitleaks` on `PATH`; the copy a previous bench run
//! unpacked under the target dir (`target/tools/gitleaks/usr/bin/gitleaks`);
//! else Debian's package of the version the issue measured
//! ([`VERSION`]), fetched from Debian's archive with `curl`, checked
//! against its SHA-256 ([`SHA256`]) and unpacked with `dpkg-deb -x` (all
//! three are on a Debian machine). Nothing is installed system-wide. Any
//! step that fails is reported as the reason the rows are not measured;
//! the bench goes on without them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Debian package version: gitleaks 8.16.0, the one the issue timed.
pub const VERSION: &str = "8.16.0-1+b12";

/// Where Debian's archive keeps that package.
const URL: &str =
    "http://deb.debian.org/debian/pool/main/g/gitleaks/gitleaks_8.16.0-1+b12_amd64.deb";

/// SHA-256 of the package file at [`URL`].
pub const SHA256: &str = "77da749c812cb875e95bcd7a3dd48cd0ac2420a1c88487f15c996197b81cdfa9";

/// The path of a gitleaks that runs (see the module docs), or why there is
/// none.
pub fn ensure(target: &Path) -> Result<PathBuf, String> {
    if runs(Path::new("gitleaks")) {
        return Ok(PathBuf::from("gitleaks"));
    }
    let root = target.join("tools").join("gitleaks");
    let exe = root.join("usr/bin/gitleaks");
    if runs(&exe) {
        return Ok(exe);
    }
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Err(
            "gitleaks is not on PATH, and Debian's amd64 package does not fit this machine".into(),
        );
    }
    let staging = target
        .join("tools")
        .join(format!("gitleaks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
    let result = fetch_into(&staging);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::rename(&staging, &root)
        .map_err(|e| format!("cannot move gitleaks to {}: {e}", root.display()))?;
    if runs(&exe) {
        Ok(exe)
    } else {
        Err(format!("{} was unpacked but does not run", exe.display()))
    }
}

/// Fetches, checks and unpacks the package into `dir`.
fn fetch_into(dir: &Path) -> Result<(), String> {
    eprintln!("==> gitleaks {VERSION}: {URL}");
    let deb = dir.join("gitleaks.deb");
    let fetched = Command::new("curl")
        .args(["-fsS", "--max-time", "120", "-o"])
        .arg(&deb)
        .arg(URL)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run curl to fetch gitleaks: {e}"))?;
    if !fetched.success() {
        return Err(format!("curl could not fetch {URL} ({fetched})"));
    }
    let sum = Command::new("sha256sum")
        .arg(&deb)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run sha256sum: {e}"))?;
    let got = String::from_utf8_lossy(&sum.stdout);
    let got = got.split_whitespace().next().unwrap_or("");
    if got != SHA256 {
        return Err(format!(
            "the gitleaks package has SHA-256 {got:?}, expected {SHA256}"
        ));
    }
    let unpacked = Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(dir)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run dpkg-deb to unpack gitleaks: {e}"))?;
    if !unpacked.success() {
        return Err(format!("dpkg-deb could not unpack gitleaks ({unpacked})"));
    }
    let _ = std::fs::remove_file(&deb);
    Ok(())
}

/// Whether `exe --help` runs and names gitleaks (8.16's `version` prints
/// no number, so the help text is the test).
fn runs(exe: &Path) -> bool {
    Command::new(exe)
        .arg("--help")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("Gitleaks")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_does_not_run() {
        assert!(!runs(Path::new("/nonexistent/xtask-test/gitleaks")));
        // A program that runs but is not gitleaks.
        assert!(!runs(Path::new("true")));
    }

    #[test]
    fn the_pinned_package_names_its_version() {
        assert!(URL.contains(&format!("gitleaks_{VERSION}_amd64.deb")));
        assert_eq!(SHA256.len(), 64);
        assert!(SHA256.bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
