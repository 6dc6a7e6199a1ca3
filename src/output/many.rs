//! Several clusters at once: one section per context in text.

use std::io::{self, Write};

/// One cluster's section: its captured output, or the lines of its error
/// (the message, then each cause).
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    pub context: &'a str,
    pub server: Option<&'a str>,
    pub result: Result<&'a [u8], &'a [String]>,
}

/// `NAME (SERVER)`.
pub fn header_name(context: &str, server: Option<&str>) -> String {
    format!(
        "{context} ({})",
        server.unwrap_or("no server in the kubeconfig")
    )
}

/// `== context NAME (SERVER)`.
pub fn header(context: &str, server: Option<&str>) -> String {
    format!("== context {}", header_name(context, server))
}

/// Text: a header line per context, then its output or its error, the
/// sections separated by a blank line.
pub fn write_sections(out: &mut dyn Write, sections: &[Section]) -> io::Result<()> {
    for (i, s) in sections.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", header(s.context, s.server))?;
        match s.result {
            Ok(bytes) => {
                out.write_all(bytes)?;
                if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                    writeln!(out)?;
                }
            }
            Err(lines) => {
                let mut lines = lines.iter();
                if let Some(first) = lines.next() {
                    writeln!(out, "error: {first}")?;
                }
                for cause in lines {
                    writeln!(out, "  caused by: {cause}")?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(sections: &[Section]) -> String {
        let mut out = Vec::new();
        write_sections(&mut out, sections).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn output_without_newline_is_ended_and_errors_keep_their_causes() {
        let causes = ["cannot list".to_string(), "connection refused".to_string()];
        assert_eq!(
            text(&[
                Section {
                    context: "a",
                    server: Some("https://a:6443"),
                    result: Ok(b"no newline"),
                },
                Section {
                    context: "b",
                    server: Some("https://b:6443"),
                    result: Err(&causes),
                },
                Section {
                    context: "c",
                    server: None,
                    result: Ok(b""),
                },
            ]),
            "== context a (https://a:6443)\nno newline\n\n== context b (https://b:6443)\nerror: cannot list\n  caused by: connection refused\n\n== context c (no server in the kubeconfig)\n"
        );
        assert_eq!(text(&[]), "");
    }
}
