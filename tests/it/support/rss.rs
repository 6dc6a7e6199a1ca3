//! A process's own peak resident memory, read from /proc as it runs.
//! Shared by the integration tests and, through `#[path]`, the benchmarks.

/// What [`peak_rss`] saw of one run.
pub struct Measured {
    /// The process's peak resident memory, in KiB, from the kernel.
    pub peak_kib: i64,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` to its end, reading its peak resident memory (`VmHWM`) from
/// /proc as it runs. Not `getrusage`: Linux carries the high-water mark
/// of the memory a child had before `exec` (the test process's, which
/// spawned it) into the child's `ru_maxrss`.
pub fn peak_rss(mut cmd: std::process::Command) -> Measured {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).expect("read");
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        // VmHWM is the process's own high-water mark; it is gone once the
        // process has exited, so it is read until then.
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Measured {
        peak_kib,
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    }
}
