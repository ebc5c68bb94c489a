//! The one module of the crate with `unsafe` code: the `pre_exec` hook that
//! puts a command into its namespaces and under its Landlock domain, and
//! the Landlock ABI query.
//!
//! # The three processes
//!
//! ```text
//! toolexec ── A (supervisor, host PID namespace) ── B (init, PID 1 of the call) ── C (exec's sh -c …)
//! ```
//!
//! `Command::spawn` forks **A**. A runs this hook: it asks for SIGKILL when
//! its parent dies, sets `no_new_privs`, `unshare`s a user, PID, mount and
//! IPC namespace (and a network namespace when the network is denied),
//! writes its one-line uid/gid maps, and forks **B**, the first process of
//! the new PID namespace. A never returns from the hook: it waits for B and
//! exits the way the command exited, so toolexec's `Child` is A, and
//! killing A kills everything: B has a parent-death signal (SIGKILL) on A,
//! and when the init of a PID namespace dies the kernel kills every other
//! process in it — also those that called `setsid`/`setpgid`, double forked
//! or ignore SIGTERM.
//!
//! B makes itself non-dumpable (its memory is a copy of toolexec's: its
//! `/proc/1/environ` and `/proc/1/mem` are closed to the command), makes
//! every mount private, mounts a fresh `/proc`, caps the nested namespaces
//! at 0 and enters the Landlock domain, then forks **C** and reaps orphans
//! until C exits; then it hands C's wait status to A through a pipe and
//! exits, which ends the namespace at once (so a background process that
//! holds the output pipes cannot delay the result). C returns from the hook
//! and std execs the shell.
//!
//! # Rules for the code after `fork`
//!
//! toolexec is multi-threaded, so after the fork only async-signal-safe
//! calls are allowed: everything here is a direct system call (through
//! `nix` or `libc`) on data prepared before `spawn` — paths as `CStr`, the
//! map lines as bytes, the Landlock ruleset as an open fd. Nothing
//! allocates, locks or panics. A failed step returns an error whose raw OS
//! code encodes the step and the errno ([`encode`]); std sends it to the
//! parent, whose `spawn` fails with it, and [`super::decode_spawn_error`]
//! turns it into a sentence.
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::mount::MsFlags;
use nix::sched::CloneFlags;
use nix::sys::signal::Signal;
use nix::sys::stat::Mode;
use nix::unistd::{ForkResult, Pid};

/// Marks raw OS error codes made by [`encode`].
pub(super) const CODE_MARK: i32 = 0x5B00_0000;

/// The steps of the hook, for the error message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub(super) enum Step {
    ParentDeathSignal = 1,
    ParentGone = 2,
    NoNewPrivs = 3,
    Unshare = 4,
    Setgroups = 5,
    UidMap = 6,
    GidMap = 7,
    Pipe = 8,
    Fork = 9,
    Dumpable = 10,
    MountPrivate = 11,
    MountProc = 12,
    NamespaceLimit = 13,
    Landlock = 14,
}

impl Step {
    pub(super) fn from_code(code: i32) -> Option<Step> {
        use Step::*;
        Some(match code {
            1 => ParentDeathSignal,
            2 => ParentGone,
            3 => NoNewPrivs,
            4 => Unshare,
            5 => Setgroups,
            6 => UidMap,
            7 => GidMap,
            8 => Pipe,
            9 => Fork,
            10 => Dumpable,
            11 => MountPrivate,
            12 => MountProc,
            13 => NamespaceLimit,
            14 => Landlock,
            _ => return None,
        })
    }
}

/// An error naming the step and the errno, as a raw OS error code.
fn encode(step: Step, errno: Errno) -> io::Error {
    let errno = (errno as i32) & 0xFFFF;
    io::Error::from_raw_os_error(CODE_MARK | ((step as i32) << 16) | errno)
}

/// The per-user-namespace sysctls set to 0 inside the sandbox, so that the
/// command cannot create nested namespaces (`unshare`).
const NS_LIMITS: &[&CStr] = &[
    c"/proc/sys/user/max_user_namespaces",
    c"/proc/sys/user/max_mnt_namespaces",
    c"/proc/sys/user/max_pid_namespaces",
    c"/proc/sys/user/max_net_namespaces",
    c"/proc/sys/user/max_ipc_namespaces",
    c"/proc/sys/user/max_uts_namespaces",
    c"/proc/sys/user/max_cgroup_namespaces",
    c"/proc/sys/user/max_time_namespaces",
];

/// Everything the hook needs, prepared before `spawn`.
#[derive(Debug)]
pub(super) struct Plan {
    /// toolexec's pid, to detect that it died before the parent-death
    /// signal was set.
    pub(super) parent: Pid,
    /// Also unshare the network namespace (network denied).
    pub(super) new_net: bool,
    /// Cap nested namespaces (sandboxed modes).
    pub(super) limit_namespaces: bool,
    /// `U U 1\n` for the uid and gid of toolexec.
    pub(super) uid_map: Vec<u8>,
    pub(super) gid_map: Vec<u8>,
    /// The Landlock ruleset to enter (sandboxed modes).
    pub(super) ruleset: Option<OwnedFd>,
    /// Write end of the report pipe: B writes one byte `1` to it when
    /// processes were still running when the shell exited.
    pub(super) report: OwnedFd,
}

/// Installs the hook on `cmd`.
pub(super) fn install(cmd: &mut std::process::Command, plan: Plan) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child of a multi-threaded
    // process and only makes async-signal-safe system calls on data that
    // was prepared before the fork (see the module docs); it never
    // allocates, locks or panics.
    unsafe {
        cmd.pre_exec(move || hook(&plan));
    }
}

/// Installs only a parent-death signal (SIGKILL) on `cmd`'s process, for
/// the containment fallback where namespaces are not available
/// ([`super::contain`]).
pub(super) fn install_parent_death(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the forked child of a multi-threaded
    // process and makes only async-signal-safe system calls (prctl,
    // getppid) on a pid read before the fork; it never allocates, locks or
    // panics.
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
                .map_err(|e| encode(Step::ParentDeathSignal, e))?;
            if nix::unistd::getppid() != parent {
                return Err(encode(Step::ParentGone, Errno::ESRCH));
            }
            Ok(())
        });
    }
}

/// Writes all of `data` to the file `path` (a `/proc` control file).
fn write_file(path: &CStr, data: &[u8]) -> Result<(), Errno> {
    let fd = nix::fcntl::open(path, OFlag::O_WRONLY | OFlag::O_CLOEXEC, Mode::empty())?;
    let n = nix::unistd::write(&fd, data)?;
    if n != data.len() {
        return Err(Errno::EIO);
    }
    Ok(())
}

/// Closes every fd except those in `keep`.
fn close_all_except(mut keep: [RawFd; 3]) {
    keep.sort_unstable();
    let mut next: RawFd = 0;
    for fd in keep {
        if fd > next {
            // SAFETY: close_range only closes descriptors; the ones this
            // process still uses are kept.
            unsafe {
                libc::close_range(next as u32, (fd - 1) as u32, 0);
            }
        }
        next = next.max(fd + 1);
    }
    // SAFETY: as above.
    unsafe {
        libc::close_range(next as u32, u32::MAX, 0);
    }
}

fn exit(code: i32) -> ! {
    // SAFETY: _exit ends the process without running atexit handlers or
    // destructors, which is what a forked child of a threaded process must
    // do.
    unsafe { libc::_exit(code) }
}

/// Waits for `pid`, retrying on EINTR; the raw wait status.
fn wait_raw(pid: libc::pid_t) -> Option<libc::c_int> {
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: waitpid writes only to `status`.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r >= 0 {
            return Some(status);
        }
        if Errno::last() != Errno::EINTR {
            return None;
        }
    }
}

fn hook(plan: &Plan) -> io::Result<()> {
    // --- A: the supervisor, still in toolexec's namespaces. ---
    // A never execs, so it still has toolexec's signal handlers (tokio's
    // would report a signal to toolexec's own signal driver): back to the
    // defaults, so that any signal toolexec sends A ends it.
    for sig in 1..libc::SIGRTMAX() {
        if sig != libc::SIGKILL && sig != libc::SIGSTOP {
            // SAFETY: sigaction is async-signal-safe; SIG_DFL is no handler.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
    }
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(|e| encode(Step::ParentDeathSignal, e))?;
    if nix::unistd::getppid() != plan.parent {
        // toolexec died before the signal was set.
        return Err(encode(Step::ParentGone, Errno::ESRCH));
    }
    nix::sys::prctl::set_no_new_privs().map_err(|e| encode(Step::NoNewPrivs, e))?;
    let mut flags = CloneFlags::CLONE_NEWUSER
        | CloneFlags::CLONE_NEWPID
        | CloneFlags::CLONE_NEWNS
        | CloneFlags::CLONE_NEWIPC;
    if plan.new_net {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    nix::sched::unshare(flags).map_err(|e| encode(Step::Unshare, e))?;
    write_file(c"/proc/self/setgroups", b"deny").map_err(|e| encode(Step::Setgroups, e))?;
    write_file(c"/proc/self/uid_map", &plan.uid_map).map_err(|e| encode(Step::UidMap, e))?;
    write_file(c"/proc/self/gid_map", &plan.gid_map).map_err(|e| encode(Step::GidMap, e))?;
    // B → A: C's wait status. A → B: held open by A only, so that B sees
    // A's death (end of file) if A died before B's parent-death signal.
    let (status_r, status_w) =
        nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(|e| encode(Step::Pipe, e))?;
    let (alive_r, alive_w) =
        nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(|e| encode(Step::Pipe, e))?;
    // SAFETY: this process is single-threaded (a fresh fork), and the
    // child only makes async-signal-safe calls.
    match unsafe { nix::unistd::fork() }.map_err(|e| encode(Step::Fork, e))? {
        ForkResult::Parent { child } => supervise(plan, child, status_r, alive_w),
        ForkResult::Child => {
            drop(status_r);
            drop(alive_w);
            init(plan, status_w, alive_r)
        }
    }
}

/// A after the fork: wait for B, then exit as the command did.
fn supervise(plan: &Plan, b: Pid, status_r: OwnedFd, alive_w: OwnedFd) -> ! {
    // The pipes of the command (stdin, stdout, stderr, std's exec-error
    // pipe) are C's business: close A's copies so that they reach end of
    // file as soon as the namespace is gone.
    close_all_except([
        status_r.as_raw_fd(),
        alive_w.as_raw_fd(),
        plan.report.as_raw_fd(),
    ]);
    let _ = nix::sys::prctl::set_dumpable(false);
    let b_status = wait_raw(b.as_raw());
    let mut buf = [0u8; 4];
    let n = nix::unistd::read(status_r.as_fd(), &mut buf).unwrap_or(0);
    if n != 4 {
        // B died without reporting: killed from outside, or its setup
        // failed (std already reported the error to toolexec).
        match b_status {
            Some(s) if libc::WIFEXITED(s) => exit(libc::WEXITSTATUS(s)),
            _ => exit(255),
        }
    }
    let status = i32::from_ne_bytes(buf);
    if libc::WIFEXITED(status) {
        exit(libc::WEXITSTATUS(status));
    }
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: signal/raise are async-signal-safe; resetting the
        // disposition and unblocking make the signal end this process
        // the way it ended the command (no core: A is not dumpable).
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(sig);
        }
        exit(128 + sig);
    }
    exit(255)
}

/// B, PID 1 of the new namespace: set up, fork C, reap until C exits.
fn init(plan: &Plan, status_w: OwnedFd, alive_r: OwnedFd) -> io::Result<()> {
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(|e| encode(Step::ParentDeathSignal, e))?;
    // A may have died before the line above: then its end of the pipe is
    // closed and poll reports it at once.
    let mut fds = [nix::poll::PollFd::new(
        alive_r.as_fd(),
        nix::poll::PollFlags::POLLIN,
    )];
    if nix::poll::poll(&mut fds, nix::poll::PollTimeout::ZERO).unwrap_or(0) > 0 {
        return Err(encode(Step::ParentGone, Errno::ESRCH));
    }
    drop(alive_r);
    // B's memory is a copy of toolexec's (its environment included): keep
    // the command from reading it through /proc/1/{environ,mem} or ptrace.
    nix::sys::prctl::set_dumpable(false).map_err(|e| encode(Step::Dumpable, e))?;
    nix::mount::mount(
        None::<&CStr>,
        c"/",
        None::<&CStr>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&CStr>,
    )
    .map_err(|e| encode(Step::MountPrivate, e))?;
    nix::mount::mount(
        Some(c"proc"),
        c"/proc",
        Some(c"proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&CStr>,
    )
    .map_err(|e| encode(Step::MountProc, e))?;
    if plan.limit_namespaces {
        for path in NS_LIMITS {
            match write_file(path, b"0") {
                // A kernel without this kind of namespace has no file.
                Ok(()) | Err(Errno::ENOENT) => {}
                Err(e) => return Err(encode(Step::NamespaceLimit, e)),
            }
        }
    }
    if let Some(ruleset) = &plan.ruleset {
        // SAFETY: a plain system call on an open ruleset fd.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_restrict_self,
                ruleset.as_raw_fd() as libc::c_long,
                0 as libc::c_long,
            )
        };
        if r != 0 {
            return Err(encode(Step::Landlock, Errno::last()));
        }
    }
    // SAFETY: single-threaded process, async-signal-safe child.
    match unsafe { nix::unistd::fork() }.map_err(|e| encode(Step::Fork, e))? {
        ForkResult::Child => {
            // C: back to std, which execs the shell (status_w is
            // close-on-exec).
            Ok(())
        }
        ForkResult::Parent { child } => {
            let report = plan.report.as_raw_fd();
            close_all_except([status_w.as_raw_fd(), report, report]);
            loop {
                let mut status: libc::c_int = 0;
                // SAFETY: waitpid writes only to `status`.
                let r = unsafe { libc::waitpid(-1, &mut status, 0) };
                if r == child.as_raw() {
                    if others_running() {
                        let _ = nix::unistd::write(&plan.report, b"1");
                    }
                    let _ = nix::unistd::write(&status_w, &status.to_ne_bytes());
                    // Exiting ends the namespace: the kernel kills what is
                    // left in it.
                    exit(0);
                }
                if r < 0 && Errno::last() != Errno::EINTR {
                    exit(255);
                }
            }
        }
    }
}

/// Whether B still has children (every other process of the namespace
/// descends from one), after reaping those that already exited.
fn others_running() -> bool {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: waitpid writes only to `status`.
        let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        match r {
            0 => return true,
            r if r > 0 => continue,
            _ if Errno::last() == Errno::EINTR => continue,
            _ => return false,
        }
    }
}

/// The Landlock ABI version of the running kernel (0 when Landlock is not
/// available), and the errno when the query failed.
pub(super) fn landlock_abi() -> Result<i32, io::Error> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
    // SAFETY: the version query takes no pointer (NULL, size 0).
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0 as libc::size_t,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if v < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(v as i32)
    }
}
