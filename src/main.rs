//! The `kubectl-mirrorpolicy` binary: parse arguments, run the command, map
//! errors to the documented exit codes.

/// mimalloc: the registries.conf reader makes hundreds of thousands of
/// small allocations on oc-mirror-scale files; mimalloc roughly halves
/// whole-process time there (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;
mod commands;
mod exit;
mod settings;
mod term;

use std::io;
use std::process;

use clap::FromArgMatches;

use cli::{Cli, Command};
use exit::{ExitCode, Failure};
use settings::Settings;

fn main() {
    let argv0 = std::env::args().next().unwrap_or_default();
    let name = cli::display_name(&argv0);
    let matches = cli::command_named(name).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let settings = Settings::new(&cli, name);
    term::apply_colour(settings.colour);
    let s = &settings;
    let result = match &cli.command {
        Command::Explain(args) => commands::explain::run(s, args),
        Command::Render(args) => commands::render::run(s, args).map(|()| ExitCode::Success),
        Command::List(args) => commands::list::run(s, args).map(|()| ExitCode::Success),
        Command::Lint(args) => commands::lint::run(s, args),
        Command::MigrateIcsp(args) => commands::migrate::run(s, args),
        Command::Audit(args) => commands::audit::run(s, args),
        Command::Diff(args) => commands::diff::run(s, args),
        Command::Completion(args) => {
            commands::complete::run_completion(args.shell).map(|()| ExitCode::Success)
        }
        Command::Complete(args) => {
            commands::complete::run_protocol(&args.args).map(|()| ExitCode::Success)
        }
    };
    match result {
        Ok(code) => process::exit(code as i32),
        Err(e) => process::exit(report(&e, name) as i32),
    }
}

/// Prints the error chain and any hint to stderr, naming commands as the
/// user ran this one (`name`); returns the exit code.
fn report(e: &anyhow::Error, name: &str) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::Success;
    }
    // The outermost `Failure` decides: one added with `anyhow::Context`
    // (`Failure` as the context of a lower error) or one in the chain.
    let failure = e
        .downcast_ref::<Failure>()
        .or_else(|| e.chain().find_map(|c| c.downcast_ref::<Failure>()));
    let safe = |text: &dyn std::fmt::Display| {
        let text = without_os_error_code(&text.to_string());
        term::escape_controls(&cli::as_said_by(name, &text), false).into_owned()
    };
    let mut said = safe(e);
    eprintln!("error: {said}");
    for cause in e.chain().skip(1) {
        // Many errors end their message with their cause's ("cannot read
        // \"x\": No such file"): that cause is said already.
        let text = safe(cause);
        if said.ends_with(&text) {
            continue;
        }
        eprintln!("  caused by: {text}");
        said = text;
    }
    if let Some(hint) = failure.and_then(|f| f.hint.as_deref()) {
        eprintln!("\nhint: {}", safe(&hint));
    }
    failure.map_or(ExitCode::Input, |f| f.code)
}

/// Drops the " (os error 2)" that Rust adds to system errors: the words
/// before it already say what happened.
fn without_os_error_code(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(" (os error ") {
        let after = &rest[at + " (os error ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&rest[..at]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use super::without_os_error_code;

    #[test]
    fn issue_14_os_error_codes_are_dropped() {
        for (input, want) in [
            (
                "cannot read \"x\": No such file or directory (os error 2)",
                "cannot read \"x\": No such file or directory",
            ),
            ("a (os error 13) and b (os error 2)", "a and b"),
            ("no code (os error x)", "no code (os error x)"),
            ("plain", "plain"),
        ] {
            assert_eq!(without_os_error_code(input), want, "{input}");
        }
    }
}
