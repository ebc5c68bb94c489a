//! toolexec-guard: placeholder, filled by its issue.
#![deny(missing_docs)]
