//! `toolexec`: placeholder, filled by its issue.
fn main() {}
