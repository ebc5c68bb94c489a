//! The exec sandbox: containment of a command's whole process
//! tree, and a filesystem and network policy, set up by toolexec itself —
//! no container runtime, no root.
//!
//! On Linux a sandboxed command runs in its own user, PID, mount and IPC
//! namespace (and, unless the network is allowed, a network namespace with
//! no interface but a down loopback), with a fresh `/proc` that shows only
//! its own processes, a parent-death signal that ties the whole tree to
//! toolexec's lifetime (SIGKILL of toolexec included), and a Landlock
//! domain that allows writes only beneath the allowed roots. Killing the
//! spawned [`std::process::Child`] (or letting toolexec die) kills every
//! process of the command, also those that left its process group or
//! session. The mechanism is described in the private `linux` module, the
//! only module of the crate with `unsafe` code.
//!
//! | [`SandboxPolicy`] | writes allowed | network |
//! |---|---|---|
//! | `workspace-write` | the workspace, the extra roots ([`Sandbox::writable`]: the session's scratch dir), the system temp dir, `/dev/null`-like devices | per [`Sandbox::allow_network`] |
//! | `read-only` | `/dev/null`-like devices | per [`Sandbox::allow_network`] |
//! | `off` | anywhere | allowed |
//!
//! `off` still contains the process tree (PID namespace) where user
//! namespaces are available, and falls back to the caller's process-group
//! kill where they are not.
//!
//! # Kernel requirements
//!
//! Linux ≥ 5.13 with Landlock enabled (`lsm=…,landlock`; ABI 1 is enough,
//! ABI 4+ adds TCP rules, ABI 6+ scopes signals and abstract UNIX sockets
//! to the sandbox), and user namespaces that the user may create
//! (`user.max_user_namespaces` > 0; on Ubuntu ≥ 23.10 also
//! `kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile)
//! with a `/proc` that may be mounted in them (not over-mounted, as in some
//! containers). Where a part is missing, [`Sandbox::apply`] or the spawn
//! fails with [`SandboxError::Unavailable`] naming it: the sandbox fails
//! closed, it never runs a command with less protection than asked for.
//!
//! # Example
//!
//! ```no_run
//! use toolexec_tools::sandbox::{Sandbox, SandboxPolicy};
//!
//! let workspace = std::path::Path::new("/tmp/ws");
//! let sandbox = Sandbox::new(SandboxPolicy::WorkspaceWrite);
//! let mut cmd = std::process::Command::new("sh");
//! cmd.arg("-c").arg("touch ok; touch /etc/nope");
//! sandbox.apply(&mut cmd, workspace).unwrap();
//! let status = cmd
//!     .status()
//!     .map_err(|e| toolexec_tools::sandbox::decode_spawn_error(e))
//!     .unwrap();
//! assert!(!status.success());
//! ```
//!
//! # Decisions where the spec is silent
//!
//! - Reads are not restricted: a sandboxed command reads everything the
//!   user can read; only writes and the network are confined.
//! - The parent-death signal of the sandbox's first process follows the
//!   *thread* that spawned it (a Linux rule): spawn from threads that live
//!   as long as the commands (tokio's worker threads do; do not spawn from
//!   a short-lived thread).
//! - "`/dev/null`-like devices": `/dev/null`, `/dev/zero`, `/dev/full`,
//!   `/dev/random`, `/dev/urandom`, `/dev/tty`, `/dev/ptmx` and `/dev/pts`.
//!   `/dev/shm` is not writable (it is shared with the rest of the machine).
//! - The command keeps toolexec's uid and gid (mapped 1:1 in its user
//!   namespace), so files it creates belong to the user; `no_new_privs` is
//!   set (setuid programs such as `sudo` do not gain privileges).
//! - In the sandboxed modes the command cannot create nested namespaces
//!   (`unshare` fails), mount, or signal or ptrace a process outside.
//! - UNIX sockets reached through a path (e.g. `$SSH_AUTH_SOCK`) are not
//!   blocked by this kernel's Landlock ABI (ABI 9 adds it); abstract ones
//!   are (ABI 6).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

#[cfg(target_os = "linux")]
mod linux;

/// The last line exec adds when a command failed with the sandbox on.
pub const BLOCKED_NOTE: &str =
    "[sandbox: writes outside the workspace and network access are blocked]";

/// The filesystem policy of the sandbox (`--sandbox MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SandboxPolicy {
    /// Writes beneath the workspace, the extra roots, the system temp dir
    /// and `/dev/null`-like devices (the default).
    #[default]
    WorkspaceWrite,
    /// Writes to `/dev/null`-like devices only.
    ReadOnly,
    /// No filesystem or network policy; the process tree is still
    /// contained.
    Off,
}

impl SandboxPolicy {
    /// The names accepted by [`FromStr`], in the order of the docs.
    pub const NAMES: [&'static str; 3] = ["workspace-write", "read-only", "off"];

    /// The mode's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxPolicy::WorkspaceWrite => "workspace-write",
            SandboxPolicy::ReadOnly => "read-only",
            SandboxPolicy::Off => "off",
        }
    }
}

impl fmt::Display for SandboxPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown sandbox mode name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPolicy(pub String);

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown sandbox mode \"{}\" (expected workspace-write, read-only or off)",
            self.0
        )
    }
}

impl std::error::Error for UnknownPolicy {}

impl FromStr for SandboxPolicy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "workspace-write" => Ok(SandboxPolicy::WorkspaceWrite),
            "read-only" => Ok(SandboxPolicy::ReadOnly),
            "off" => Ok(SandboxPolicy::Off),
            other => Err(UnknownPolicy(other.to_string())),
        }
    }
}

/// Why a command cannot run in the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxError {
    /// The kernel or the platform lacks a part the policy needs.
    Unavailable {
        /// What is missing, as a sentence fragment.
        reason: String,
    },
}

impl SandboxError {
    fn unavailable(reason: impl Into<String>) -> Self {
        SandboxError::Unavailable {
            reason: reason.into(),
        }
    }

    /// The message exec returns: `exec: sandbox unavailable: REASON (run
    /// with --sandbox off to run without it)`, with `exec` replaced by
    /// `who`.
    pub fn message_for(&self, who: &str) -> String {
        format!("{who}: {self} (run with --sandbox off to run without it)")
    }
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxError::Unavailable { reason } => write!(f, "sandbox unavailable: {reason}"),
        }
    }
}

impl std::error::Error for SandboxError {}

/// How the spawned process tree is contained.
#[derive(Debug)]
#[non_exhaustive]
pub enum Containment {
    /// In its own PID namespace: killing the spawned child kills the whole
    /// tree.
    Namespace(Report),
    /// Not contained by the sandbox (policy `off` where namespaces are not
    /// available): the caller kills the process group.
    ProcessGroup,
}

/// What the sandbox reports after the command's shell exited.
#[derive(Debug)]
pub struct Report {
    read: std::fs::File,
}

impl Report {
    /// Whether processes of the command were still running when its first
    /// process exited (they were killed with the namespace). Call it after
    /// the spawned child was waited for; it does not block then.
    pub fn others_were_running(mut self) -> bool {
        use std::io::Read;
        let mut buf = [0u8; 1];
        matches!(self.read.read(&mut buf), Ok(1))
    }
}

impl Containment {
    /// Whether the tree is in its own PID namespace.
    pub fn is_namespace(&self) -> bool {
        matches!(self, Containment::Namespace(_))
    }
}

/// A sandbox configuration: the policy, the network switch and extra
/// writable roots. Cheap to clone; [`apply`](Self::apply) it to each
/// command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sandbox {
    policy: SandboxPolicy,
    allow_network: bool,
    writable: Vec<PathBuf>,
    no_temp_dir: bool,
}

impl Sandbox {
    /// A sandbox with this policy, network denied, no extra roots.
    pub fn new(policy: SandboxPolicy) -> Self {
        Sandbox {
            policy,
            ..Sandbox::default()
        }
    }

    /// Allows (or denies) the network.
    pub fn allow_network(mut self, yes: bool) -> Self {
        self.allow_network = yes;
        self
    }

    /// Also allows writes beneath `dir` in `workspace-write` (e.g. the
    /// session's scratch dir).
    pub fn writable(mut self, dir: impl Into<PathBuf>) -> Self {
        self.writable.push(dir.into());
        self
    }

    /// Leaves the system temp dir out of the writable roots (the proxy's
    /// child servers write only to `--workdir`).
    pub fn without_temp_dir(mut self) -> Self {
        self.no_temp_dir = true;
        self
    }

    /// The policy.
    pub fn policy(&self) -> SandboxPolicy {
        self.policy
    }

    /// Whether the network is reachable from inside.
    pub fn network_allowed(&self) -> bool {
        self.allow_network || self.policy == SandboxPolicy::Off
    }

    /// Whether a filesystem and network policy applies (not `off`).
    pub fn is_on(&self) -> bool {
        self.policy != SandboxPolicy::Off
    }

    /// The roots writes are allowed beneath, for `workspace` (none for
    /// `read-only`; empty for `off`, which allows everything).
    pub fn write_roots(&self, workspace: &Path) -> Vec<PathBuf> {
        match self.policy {
            SandboxPolicy::WorkspaceWrite => {
                let mut roots = vec![workspace.to_path_buf()];
                roots.extend(self.writable.iter().cloned());
                if !self.no_temp_dir {
                    roots.push(std::env::temp_dir());
                }
                roots
            }
            SandboxPolicy::ReadOnly | SandboxPolicy::Off => Vec::new(),
        }
    }

    /// Prepares `cmd` to run in this sandbox with writes allowed beneath
    /// `workspace` (and the other roots of the policy). Spawn it afterwards
    /// and pass a spawn error through [`decode_spawn_error`]. Returns how
    /// the tree will be contained. Call it once per command.
    pub fn apply(
        &self,
        cmd: &mut std::process::Command,
        workspace: &Path,
    ) -> Result<Containment, SandboxError> {
        #[cfg(target_os = "linux")]
        {
            self.apply_linux(cmd, workspace)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (cmd, workspace);
            match self.policy {
                SandboxPolicy::Off => Ok(Containment::ProcessGroup),
                _ => Err(SandboxError::unavailable(
                    "this platform has no Landlock or Linux namespaces",
                )),
            }
        }
    }

    /// Checks that a command can run in this sandbox here, by running
    /// `sh -c true` in it (about a millisecond). The CLI calls it once at start
    /// to warn.
    pub fn check(&self) -> Result<(), SandboxError> {
        let dir = std::env::temp_dir();
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "true"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if !self.apply(&mut cmd, &dir)?.is_namespace() {
            return Ok(());
        }
        match cmd.status() {
            Ok(_) => Ok(()),
            Err(e) => Err(decode_spawn_error(e).unwrap_or_else(|e| {
                SandboxError::unavailable(format!("cannot start a process in it: {e}"))
            })),
        }
    }
}

/// Ties the whole process tree of `cmd` to the caller's lifetime, with no
/// filesystem or network policy: the containment of [`SandboxPolicy::Off`]
/// for a program that is not a shell command (the MCP proxy's child
/// server). Spawn `cmd` afterwards (passing a spawn error through
/// [`decode_spawn_error`]) from a thread that lives as long as the child
/// (the parent-death signal follows the spawning thread).
///
/// Where user and PID namespaces work, the tree runs in its own PID
/// namespace below a supervisor with a parent-death signal
/// ([`Containment::Namespace`]): killing the spawned child, or the
/// caller's death (SIGKILL included), ends every process of it. Where they
/// do not, the direct child gets a parent-death signal (SIGKILL) and
/// [`Containment::ProcessGroup`] is returned: the caller must end the
/// child's process group itself, and a SIGKILL of the caller reaches only
/// the direct child.
pub fn contain(cmd: &mut std::process::Command) -> Containment {
    #[cfg(target_os = "linux")]
    {
        match Sandbox::new(SandboxPolicy::Off).apply_linux(cmd, Path::new("/")) {
            Ok(Containment::Namespace(report)) => Containment::Namespace(report),
            _ => {
                linux::install_parent_death(cmd);
                Containment::ProcessGroup
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cmd;
        Containment::ProcessGroup
    }
}

/// Turns the error of spawning a command prepared by [`Sandbox::apply`]
/// into the sandbox step that failed; other errors come back unchanged.
pub fn decode_spawn_error(err: io::Error) -> Result<SandboxError, io::Error> {
    #[cfg(target_os = "linux")]
    {
        linux_decode(err)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(err)
    }
}

#[cfg(target_os = "linux")]
fn linux_decode(err: io::Error) -> Result<SandboxError, io::Error> {
    use linux::{Step, CODE_MARK};
    let Some(code) = err.raw_os_error() else {
        return Err(err);
    };
    if code & !0x00FF_FFFF != CODE_MARK {
        return Err(err);
    }
    let Some(step) = Step::from_code((code >> 16) & 0xFF) else {
        return Err(err);
    };
    let errno = io::Error::from_raw_os_error(code & 0xFFFF);
    let reason = match step {
        Step::Unshare | Step::Setgroups | Step::UidMap | Step::GidMap => format!(
            "cannot create the user, PID and mount namespaces ({errno}); \
             unprivileged user namespaces may be disabled (sysctl user.max_user_namespaces, \
             kernel.apparmor_restrict_unprivileged_userns)"
        ),
        Step::MountPrivate | Step::MountProc => format!(
            "cannot mount a fresh /proc in the sandbox ({errno}); \
             the host's /proc may be partly hidden (as in some containers)"
        ),
        Step::Landlock => format!("cannot enter the Landlock domain ({errno})"),
        Step::NamespaceLimit => format!("cannot limit nested namespaces ({errno})"),
        Step::ParentDeathSignal | Step::NoNewPrivs | Step::Dumpable => {
            format!("cannot set up the sandbox's process ({errno})")
        }
        Step::ParentGone => "toolexec exited while the command was starting".to_string(),
        Step::Pipe | Step::Fork => format!("cannot start the sandbox's processes ({errno})"),
    };
    Ok(SandboxError::unavailable(reason))
}

#[cfg(target_os = "linux")]
impl Sandbox {
    fn apply_linux(
        &self,
        cmd: &mut std::process::Command,
        workspace: &Path,
    ) -> Result<Containment, SandboxError> {
        let ruleset = if self.is_on() {
            Some(self.ruleset(workspace)?)
        } else {
            if !namespaces_usable() {
                return Ok(Containment::ProcessGroup);
            }
            None
        };
        let (plan, report) = self.plan(ruleset)?;
        linux::install(cmd, plan);
        Ok(Containment::Namespace(report))
    }

    fn plan(
        &self,
        ruleset: Option<std::os::fd::OwnedFd>,
    ) -> Result<(linux::Plan, Report), SandboxError> {
        let (read, report) =
            nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK)
                .map_err(|e| {
                    SandboxError::unavailable(format!(
                        "cannot create a pipe ({})",
                        io::Error::from(e)
                    ))
                })?;
        let uid = nix::unistd::geteuid().as_raw();
        let gid = nix::unistd::getegid().as_raw();
        let plan = linux::Plan {
            parent: nix::unistd::getpid(),
            new_net: !self.network_allowed(),
            limit_namespaces: self.is_on(),
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            ruleset,
            report,
        };
        Ok((
            plan,
            Report {
                read: std::fs::File::from(read),
            },
        ))
    }

    /// The Landlock ruleset of this policy for `workspace`.
    fn ruleset(&self, workspace: &Path) -> Result<std::os::fd::OwnedFd, SandboxError> {
        use landlock::{
            Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
            RulesetAttr, RulesetCreatedAttr, Scope, ABI,
        };
        let version = linux::landlock_abi().map_err(|e| {
            SandboxError::unavailable(format!(
                "Landlock is not available in this kernel ({e}); it needs Linux 5.13 or later \
                 with Landlock enabled (lsm=...,landlock)"
            ))
        })?;
        let abi = ABI::from(version);
        let fail = |e: &dyn fmt::Display| {
            SandboxError::unavailable(format!("cannot build the Landlock rules ({e})"))
        };
        let write = AccessFs::from_write(abi);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(write)
            .map_err(|e| fail(&e))?;
        if !self.network_allowed() && version >= 4 {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(abi))
                .map_err(|e| fail(&e))?;
        }
        if version >= 6 {
            ruleset = ruleset
                .scope(Scope::Signal | Scope::AbstractUnixSocket)
                .map_err(|e| fail(&e))?;
        }
        let mut created = ruleset.create().map_err(|e| fail(&e))?;
        for root in self.write_roots(workspace) {
            // An extra root not created yet (a scratch dir made on the
            // first spill) has nothing to allow.
            if root != workspace && !root.exists() {
                continue;
            }
            let fd = PathFd::new(&root).map_err(|e| {
                SandboxError::unavailable(format!(
                    "cannot open the writable root {} ({e})",
                    root.display()
                ))
            })?;
            created = created
                .add_rule(PathBeneath::new(fd, write))
                .map_err(|e| fail(&e))?;
        }
        let device_access = write
            & (AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev | AccessFs::MakeChar);
        for dev in [
            "/dev/null",
            "/dev/zero",
            "/dev/full",
            "/dev/random",
            "/dev/urandom",
            "/dev/tty",
            "/dev/ptmx",
            "/dev/pts",
        ] {
            // A device this machine does not have is skipped.
            let Ok(fd) = PathFd::new(dev) else { continue };
            let access = if dev == "/dev/pts" {
                write & (AccessFs::WriteFile | AccessFs::IoctlDev)
            } else {
                device_access & !AccessFs::MakeChar
            };
            created = created
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| fail(&e))?;
        }
        let fd: Option<std::os::fd::OwnedFd> = created.into();
        fd.ok_or_else(|| SandboxError::unavailable("Landlock did not create a ruleset"))
    }
}

/// Whether user and PID namespaces work here (checked once per process),
/// for the containment of `off`.
#[cfg(target_os = "linux")]
fn namespaces_usable() -> bool {
    static USABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *USABLE.get_or_init(|| {
        let sandbox = Sandbox::new(SandboxPolicy::Off);
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "true"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let Ok((plan, _report)) = sandbox.plan(None) else {
            return false;
        };
        linux::install(&mut cmd, plan);
        cmd.status().is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_names_round_trip() {
        for name in SandboxPolicy::NAMES {
            assert_eq!(name.parse::<SandboxPolicy>().unwrap().as_str(), name);
        }
        let err = "loose".parse::<SandboxPolicy>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown sandbox mode \"loose\" (expected workspace-write, read-only or off)"
        );
    }

    #[test]
    fn the_fail_closed_message() {
        let err = SandboxError::unavailable("no Landlock");
        assert_eq!(
            err.message_for("exec"),
            "exec: sandbox unavailable: no Landlock (run with --sandbox off to run without it)"
        );
    }

    proptest::proptest! {
        /// Only the three names parse; any other text is refused with a
        /// message quoting it.
        #[test]
        fn only_the_three_names_parse(name in "\\PC{0,20}") {
            match name.parse::<SandboxPolicy>() {
                Ok(policy) => proptest::prop_assert_eq!(policy.as_str(), name.as_str()),
                Err(err) => {
                    proptest::prop_assert!(!SandboxPolicy::NAMES.contains(&name.as_str()));
                    let quoted = format!("\"{name}\"");
                    proptest::prop_assert!(err.to_string().contains(&quoted));
                }
            }
        }

        /// Ordinary OS errors pass through the decoder unchanged.
        #[cfg(target_os = "linux")]
        #[test]
        fn plain_errors_pass_through(errno in 1i32..4096) {
            let err = decode_spawn_error(io::Error::from_raw_os_error(errno)).unwrap_err();
            proptest::prop_assert_eq!(err.raw_os_error(), Some(errno));
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn spawn_errors_decode_to_their_step() {
        let raw = linux::CODE_MARK | (4 << 16) | libc::EPERM;
        let err = decode_spawn_error(io::Error::from_raw_os_error(raw)).unwrap();
        assert!(err.to_string().contains("user namespaces"), "{err}");
        let plain = decode_spawn_error(io::Error::from_raw_os_error(libc::ENOENT)).unwrap_err();
        assert_eq!(plain.raw_os_error(), Some(libc::ENOENT));
    }
}
