//! Streams stdin to stdout through the redactor (what `toolexec redact`
//! does), for quick measurements: `cargo run --release -p toolexec-redact
//! --example redact_stdin < input > /dev/null`.

use std::io;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let redactor = toolexec_redact::Redactor::builder().build()?;
    let stdin = io::stdin();
    let stdout = io::stdout();
    let stats = redactor.redact_stream(stdin.lock(), io::BufWriter::new(stdout.lock()))?;
    eprintln!("{} bytes in, {} masks", stats.bytes_in, stats.redactions);
    Ok(())
}
