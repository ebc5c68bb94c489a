//! toolexec-limiter: placeholder, filled by its issue.
#![deny(missing_docs)]
