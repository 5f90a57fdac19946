//! Why a run failed, by kind, so that a script can tell a typo from an unreadable table from a
//! finding it asked to fail on (docs/cli.md, "Exit codes").

use std::io::{ErrorKind, Write};

use icescope::analysis::findings::Severity;

pub enum Failure {
    /// The report was printed; `count` findings are `at` or more severe (`inspect --fail-on`).
    Findings { count: usize, at: Severity },
    /// The command line asks for what cannot be: clap's own errors, an option that needs another,
    /// a snapshot, key or metadata file the table does not have.
    Usage(String),
    /// The table or an input could not be read: missing, refused, damaged, undecodable.
    Unreadable(String),
    /// The output could not be written: an export's folder or file, or stdout.
    Output(String),
    /// `watch` saw a writer stall or a critical finding newly hold (the events were printed).
    Alarms(usize),
}

impl Failure {
    pub fn code(&self) -> u8 {
        match self {
            Failure::Findings { .. } | Failure::Alarms(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Unreadable(_) => 3,
            Failure::Output(_) => 4,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Failure::Findings { count, at } => {
                let name = at.label().to_lowercase();
                let (findings, above) = (if *count == 1 { "finding is" } else { "findings are" }, if *at == Severity::Critical { "" } else { " or above" });
                format!("{count} {findings} {name}{above} (--fail-on {name})")
            }
            Failure::Alarms(n) => format!("{n} alarm{} while watching: a writer stalled or a critical finding newly holds", if *n == 1 { "" } else { "s" }),
            Failure::Usage(m) | Failure::Unreadable(m) | Failure::Output(m) => m.clone(),
        }
    }

    // For `map_err`: the library's errors are strings; the CLI knows which kind each call makes.

    pub fn usage(e: impl ToString) -> Failure {
        Failure::Usage(e.to_string())
    }

    pub fn unreadable(e: impl ToString) -> Failure {
        Failure::Unreadable(e.to_string())
    }
}

/// What a write to stdout came to. A closed pipe (`| head`) is the reader's choice, not an error;
/// a full disk is.
pub fn written(r: std::io::Result<()>) -> Result<(), Failure> {
    match r {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(Failure::Output(format!("stdout: {e}"))),
        _ => Ok(()),
    }
}

pub fn print(out: &str) -> Result<(), Failure> {
    let mut w = std::io::stdout().lock();
    written(w.write_all(out.as_bytes()).and_then(|_| w.flush()))
}

/// A value as pretty JSON on stdout, written as it is serialized: a day of snapshots is 20 MB of
/// JSON, and holding it whole was the run's peak memory.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Failure> {
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    written(serde_json::to_writer_pretty(&mut w, value).map_err(std::io::Error::from).and_then(|_| w.write_all(b"\n")).and_then(|_| w.flush()))
}
