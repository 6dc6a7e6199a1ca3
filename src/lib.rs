//! The `kubectl-mirrorpolicy` command line: parse arguments, run the
//! command, map errors to the documented exit codes. The binary is a thin
//! `main` over [`main`]; this library exists so that the one integration
//! test target can test the binary's own modules (output formatting, flags,
//! exit codes) beside the commands it runs through the built binary.

pub mod cli;
pub mod commands;
pub mod exit;
pub mod many;
pub mod output;
pub mod settings;
pub mod steps;
pub mod term;

use std::io;
use std::process;

use clap::FromArgMatches;

use cli::{Cli, Command};
use exit::ExitCode;
use settings::Settings;

/// Runs the command line of this process and exits with its code.
pub fn main() -> ! {
    no_huge_pages();
    let argv0 = std::env::args().next().unwrap_or_default();
    let name = cli::display_name(&argv0);
    let mut command = cli::command_named(name);
    let matches = command.get_matches_mut();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if let Err(e) = cli::check_cluster_flags(&cli, &mut command) {
        e.exit();
    }
    let settings = Settings::new(&cli, name);
    term::apply_colour(settings.colour);
    let result = if settings.many_clusters() || many::wants_summary(&cli.command) {
        many::run(&settings, std::sync::Arc::new(cli), run)
    } else {
        steps::at_exit::exit_follows_command();
        return_freed_memory_soon();
        run(&settings, &cli.command)
    };
    match result {
        Ok(code) => process::exit(code as i32),
        Err(e) => process::exit(report(&e, name) as i32),
    }
}

/// Turns transparent huge pages off for this process, as mimalloc's own
/// `allow_thp` option does, before anything is read. With them, a kernel
/// in THP mode `madvise` or `always` makes 2 MiB resident where mimalloc
/// touches a few KiB: a fleet read 32 clusters at a time held 1.9 times
/// the memory, a render of 20,000 sources 17 MiB more (71 instead of 54
/// MiB), for no measurable speed in a fleet and about 15 ms in that render
/// (BENCHMARKS.md). Child processes (exec credential plugins) inherit the
/// setting.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes integers and touches no
    // memory of ours; a kernel without it fails with EINVAL, ignored.
    unsafe {
        // prctl is variadic and reads its arguments as unsigned longs.
        let one: libc::c_ulong = 1;
        let zero: libc::c_ulong = 0;
        libc::prctl(libc::PR_SET_THP_DISABLE, one, zero, zero, zero);
    }
}

/// mimalloc's `purge_delay` in the mimalloc 3 that the locked
/// libmimalloc-sys builds (its `mi_option_e`; the crate names only some).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
// A mimalloc with another list of options fails to build here, rather
// than have the number above set some other option.
const _: () = assert!(libmimalloc_sys::_mi_option_last == 47);

/// Makes mimalloc return freed memory to the system after 10 ms instead
/// of its default second, for a single run. A run of a few hundred
/// milliseconds frees its parse buffers and intermediate lists and
/// allocates the next step's: with the default, the freed pages stay
/// resident beside the new ones. `explain -f` of 20,000 sources peaks at 53
/// MiB instead of 70, for about 10 ms more system time (BENCHMARKS.md; 0
/// ms saved 3 MiB more for twice that). A fleet keeps the default: its
/// clusters' threads free and allocate all the time. `MIMALLOC_PURGE_DELAY`
/// in the environment is left to mimalloc.
fn return_freed_memory_soon() {
    // mimalloc's own setting, from the environment, wins.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: mi_option_set takes an option number and a value and is
    // called before any other thread of this process allocates.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
}

/// Runs one command with `s`.
fn run(s: &Settings, command: &Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Explain(args) => commands::explain::run(s, args, printed(args.output.printed())?),
        Command::Render(args) => commands::render::run(s, args).map(|()| ExitCode::Success),
        Command::List(args) => commands::list::run(s, args).map(|()| ExitCode::Success),
        Command::Lint(args) => commands::lint::run(s, args),
        Command::MigrateIcsp(args) => commands::migrate::run(s, args),
        Command::Audit(args) => commands::audit::run(s, args, printed(args.output.printed())?),
        Command::Diff(args) => commands::diff::run(s, args, printed(args.output.printed())?),
        Command::UpgradeCheck(args) => {
            commands::upgrade::run(s, args, printed(args.output.printed())?)
        }
        Command::OperatorCheck(args) => commands::operator_check::run(s, args),
        Command::CollectNodeFiles(args) => commands::collect::run(s, args),
        Command::Completion(args) => {
            commands::complete::run_completion(args.shell).map(|()| ExitCode::Success)
        }
        Command::Complete(args) => {
            commands::complete::run_protocol(&args.args).map(|()| ExitCode::Success)
        }
    }
}

/// The format a command prints its report in. `-o summary` is not one: it
/// goes through [`many::run`] (see [`many::wants_summary`]), which counts
/// the commands' reports and never gets here.
fn printed<F>(format: Option<F>) -> anyhow::Result<F> {
    format.ok_or_else(|| {
        exit::Failure::input("internal error: -o summary counts reports, it does not print one")
            .into()
    })
}

/// Prints the error chain and any hint to stderr, naming commands as the
/// user ran this one (`name`); returns the exit code.
fn report(e: &anyhow::Error, name: &str) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::Success;
    }
    let said = exit::Described::of(e, name);
    let mut lines = said.lines.iter();
    if let Some(first) = lines.next() {
        eprintln!("error: {first}");
    }
    for cause in lines {
        eprintln!("  caused by: {cause}");
    }
    if let Some(hint) = &said.hint {
        eprintln!("\nhint: {hint}");
    }
    said.code
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}
