//! The `lint` report.

use std::io::{self, Write};

use colored::Colorize;

use mirrorpolicy::lint::{Finding, Level};

/// One line per finding, then a summary line.
pub fn write_table(out: &mut dyn Write, findings: &[Finding]) -> io::Result<()> {
    for f in findings {
        let level = match f.level {
            Level::Error => "error".red().bold().to_string(),
            Level::Warning => "warning".yellow().to_string(),
        };
        match (&f.file, &f.object) {
            (Some(file), Some(o)) => writeln!(out, "{level}: {file}: {o}: {}", f.message)?,
            (_, Some(o)) => writeln!(out, "{level}: {o}: {}", f.message)?,
            _ => writeln!(out, "{level}: {}", f.message)?,
        }
    }
    let errors = findings.iter().filter(|f| f.level == Level::Error).count();
    let warnings = findings.len() - errors;
    writeln!(out, "{errors} error(s), {warnings} warning(s)")
}
