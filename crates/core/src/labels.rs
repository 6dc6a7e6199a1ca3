//! Label selectors as kubectl's `-l/--selector` takes them (apimachinery's
//! `labels.Parse`): `key=value`, `key==value`, `key!=value`,
//! `key in (a,b)`, `key notin (a,b)`, `key`, `!key`, `key>1`, `key<1`,
//! joined by commas (all must match). The syntax and the error messages are
//! apimachinery's, so a selector means here what it means to the API server.

use std::collections::BTreeMap;
use std::fmt;

/// A parsed selector: every requirement must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    /// The selector as given (what is sent to the API server).
    text: String,
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    operator: Operator,
    /// Sorted and without duplicates, as apimachinery's string set.
    values: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    In,
    NotIn,
    Equals,
    DoubleEquals,
    NotEquals,
    GreaterThan,
    LessThan,
    Exists,
    DoesNotExist,
}

/// Why a selector does not parse: apimachinery's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError(pub String);

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SelectorError {}

impl Selector {
    /// Parses a selector; an empty one selects everything.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let tokens = lex(text.as_bytes());
        let requirements = Parser { tokens, at: 0 }.parse().map_err(SelectorError)?;
        Ok(Self {
            text: text.to_string(),
            requirements,
        })
    }

    /// The selector as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

impl Requirement {
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.key);
        let has = |v: &String| self.values.contains(v);
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => value.is_some_and(has),
            Operator::NotIn | Operator::NotEquals => !value.is_some_and(has),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let Some(Ok(have)) = value.map(|v| v.parse::<i64>()) else {
                    return false;
                };
                let Some(Ok(want)) = self.values.first().map(|v| v.parse::<i64>()) else {
                    return false;
                };
                match self.operator {
                    Operator::GreaterThan => have > want,
                    _ => have < want,
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Error,
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn keyword(text: &[u8]) -> Option<Token> {
    Some(match text {
        b")" => Token::ClosedPar,
        b"," => Token::Comma,
        b"!" => Token::DoesNotExist,
        b"==" => Token::DoubleEquals,
        b"=" => Token::Equals,
        b">" => Token::GreaterThan,
        b"in" => Token::In,
        b"<" => Token::LessThan,
        b"!=" => Token::NotEquals,
        b"notin" => Token::NotIn,
        b"(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// apimachinery's `Lexer`, run to the end of the string.
fn lex(s: &[u8]) -> Vec<(Token, String)> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        while at < s.len() && is_space(s[at]) {
            at += 1;
        }
        if at >= s.len() {
            out.push((Token::End, String::new()));
            return out;
        }
        if is_special(s[at]) {
            // The longest run of special characters that is a token.
            let start = at;
            let mut last: Option<(Token, usize)> = None;
            while at < s.len() && is_special(s[at]) {
                at += 1;
                if let Some(token) = keyword(&s[start..at]) {
                    last = Some((token, at));
                } else if let Some((_, end)) = last {
                    at = end;
                    break;
                }
            }
            match last {
                Some((token, end)) => {
                    at = end;
                    out.push((token, text(&s[start..end])));
                }
                None => out.push((
                    Token::Error,
                    format!("error expected: keyword found '{}'", text(&s[start..at])),
                )),
            }
        } else {
            let start = at;
            while at < s.len() && !is_special(s[at]) && !is_space(s[at]) {
                at += 1;
            }
            let word = &s[start..at];
            out.push((keyword(word).unwrap_or(Token::Identifier), text(word)));
        }
    }
}

/// apimachinery's `Parser`. In values, `in` and `notin` are identifiers.
struct Parser {
    tokens: Vec<(Token, String)>,
    at: usize,
}

fn as_value(token: Token) -> Token {
    match token {
        Token::In | Token::NotIn => Token::Identifier,
        t => t,
    }
}

impl Parser {
    fn lookahead(&self) -> (Token, String) {
        let (t, l) = &self.tokens[self.at.min(self.tokens.len() - 1)];
        (as_value(*t), l.clone())
    }

    fn consume(&mut self, values: bool) -> (Token, String) {
        let (t, l) = self.tokens[self.at.min(self.tokens.len() - 1)].clone();
        self.at += 1;
        (if values { as_value(t) } else { t }, l)
    }

    fn parse(mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (token, literal) = self.lookahead();
            match token {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    let (t, l) = self.consume(true);
                    match t {
                        Token::End => return Ok(requirements),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead();
                            if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                return Err(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Token::End => return Ok(requirements),
                _ => {
                    return Err(format!(
                        "found '{literal}', expected: !, identifier, or 'end of string'"
                    ))
                }
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let (key, operator) = self.key_and_operator()?;
        let operator = match operator {
            Some(op) => return new_requirement(key, op, Vec::new()),
            None => self.operator()?,
        };
        let values = match operator {
            Operator::In | Operator::NotIn => self.values()?,
            _ => self.exact_value()?,
        };
        new_requirement(key, operator, values)
    }

    /// The key, and `Exists`/`DoesNotExist` when no operator follows.
    fn key_and_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let (mut token, mut literal) = self.consume(true);
        let mut operator = None;
        if token == Token::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (token, literal) = self.consume(true);
        }
        if token != Token::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        if let Some(e) = key_error(&literal, "<nil>") {
            return Err(e);
        }
        let (next, _) = self.lookahead();
        if (next == Token::End || next == Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((literal, operator))
    }

    fn operator(&mut self) -> Result<Operator, String> {
        let (token, literal) = self.consume(false);
        Ok(match token {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => {
                return Err(format!(
                    "found '{literal}', expected: in, notin, =, ==, !=, gt, lt"
                ))
            }
        })
    }

    fn values(&mut self) -> Result<Vec<String>, String> {
        let (token, literal) = self.consume(true);
        if token != Token::OpenPar {
            return Err(format!("found '{literal}' expected: '('"));
        }
        let (token, literal) = self.lookahead();
        match token {
            Token::Identifier | Token::Comma => {
                let set = self.identifiers()?;
                if self.consume(true).0 != Token::ClosedPar {
                    return Err(format!("found '{literal}', expected: ')'"));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.consume(true);
                Ok(vec![String::new()])
            }
            _ => Err(format!(
                "found '{literal}', expected: ',', ')' or identifier"
            )),
        }
    }

    fn identifiers(&mut self) -> Result<Vec<String>, String> {
        let mut set: Vec<String> = Vec::new();
        let insert = |set: &mut Vec<String>, v: String| {
            if !set.contains(&v) {
                set.push(v);
            }
        };
        loop {
            let (token, literal) = self.consume(true);
            match token {
                Token::Identifier => {
                    insert(&mut set, literal);
                    let (t2, l2) = self.lookahead();
                    match t2 {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(set),
                        _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if set.is_empty() {
                        insert(&mut set, String::new());
                    }
                    let (t2, _) = self.lookahead();
                    if t2 == Token::ClosedPar {
                        insert(&mut set, String::new());
                        return Ok(set);
                    }
                    if t2 == Token::Comma {
                        self.consume(true);
                        insert(&mut set, String::new());
                    }
                }
                _ => return Err(format!("found '{literal}', expected: ',', or identifier")),
            }
        }
    }

    fn exact_value(&mut self) -> Result<Vec<String>, String> {
        let (token, _) = self.lookahead();
        if token == Token::End || token == Token::Comma {
            return Ok(vec![String::new()]);
        }
        let (token, literal) = self.consume(true);
        if token == Token::Identifier {
            return Ok(vec![literal]);
        }
        Err(format!("found '{literal}', expected: identifier"))
    }
}

/// apimachinery's `NewRequirement`: the values checked for the operator
/// and as label values; several errors aggregated as `[a, b]`.
fn new_requirement(
    key: String,
    operator: Operator,
    mut values: Vec<String>,
) -> Result<Requirement, String> {
    values.sort();
    values.dedup();
    let mut errors = Vec::new();
    if let Some(e) = key_error(&key, "key") {
        errors.push(e);
    }
    if matches!(operator, Operator::GreaterThan | Operator::LessThan) {
        for (i, v) in values.iter().enumerate() {
            if v.parse::<i64>().is_err() {
                errors.push(format!(
                    "values[{i}]: Invalid value: {v:?}: for 'Gt', 'Lt' operators, the value must be an integer"
                ));
            }
        }
    }
    for (i, v) in values.iter().enumerate() {
        let problems = label_value_problems(v);
        if !problems.is_empty() {
            errors.push(format!(
                "values[{i}][{key}]: Invalid value: {v:?}: {}",
                problems.join("; ")
            ));
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for e in errors {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    match seen.len() {
        0 => Ok(Requirement {
            key,
            operator,
            values,
        }),
        1 => Err(seen.remove(0)),
        _ => Err(format!("[{}]", seen.join(", "))),
    }
}

const QUALIFIED_NAME_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FORMAT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

/// apimachinery's `RegexError` with examples.
fn regex_error(message: &str, format: &str, examples: &[&str]) -> String {
    let examples: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{message} (e.g. {}regex used for validation is '{format}')",
        examples.join(" or ")
    )
}

fn qualified_name_ok(name: &str) -> bool {
    let b = name.as_bytes();
    let edge = |c: u8| c.is_ascii_alphanumeric();
    let inner = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.');
    !b.is_empty() && edge(b[0]) && edge(b[b.len() - 1]) && b.iter().all(|&c| inner(c))
}

fn dns_subdomain_ok(name: &str) -> bool {
    name.split('.').all(|label| {
        let b = label.as_bytes();
        let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        !b.is_empty()
            && edge(b[0])
            && edge(b[b.len() - 1])
            && b.iter().all(|&c| edge(c) || c == b'-')
    })
}

/// apimachinery's `IsQualifiedName` problems: why the API server refuses
/// `value` as a label key (or, lowercased, an annotation key); empty when
/// it takes it. An optional DNS-1123 subdomain prefix (at most 253
/// characters) and `/`, then a name of at most 63 characters matching
/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub fn qualified_name_problems(value: &str) -> Vec<String> {
    let name_error = || {
        regex_error(
            QUALIFIED_NAME_MESSAGE,
            QUALIFIED_NAME_FORMAT,
            &["MyName", "my.name", "123-abc"],
        )
    };
    let parts: Vec<&str> = value.split('/').collect();
    let mut errors = Vec::new();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errors.push("prefix part must be no more than 253 characters".to_string());
                }
                if !dns_subdomain_ok(prefix) {
                    errors.push(format!(
                        "prefix part {}",
                        regex_error(
                            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
                            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
                            &["example.com"],
                        )
                    ));
                }
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                name_error()
            )]
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errors.push("name part must be no more than 63 characters".to_string());
    }
    if !qualified_name_ok(name) {
        errors.push(format!("name part {}", name_error()));
    }
    errors
}

/// A label key's error as `field.Invalid(path, key, ...)` prints it.
fn key_error(key: &str, path: &str) -> Option<String> {
    let problems = qualified_name_problems(key);
    (!problems.is_empty())
        .then(|| format!("{path}: Invalid value: {key:?}: {}", problems.join("; ")))
}

/// apimachinery's `IsValidLabelValue` problems: why the API server
/// refuses `value` as a label value (at most 63 characters, empty or a
/// qualified name's characters); empty when it takes it.
pub fn label_value_problems(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_string());
    }
    if !value.is_empty() && !qualified_name_ok(value) {
        errors.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?",
            &["MyValue", "my_value", "12345"],
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    // apimachinery pkg/labels/selector_test.go TestSelectorMatches and
    // TestSetMatches, as (selector, labels, matches).
    #[test]
    fn matches_as_apimachinery() {
        let set = labels(&[("x", "y"), ("foo", "bar"), ("baz", "blah")]);
        for (selector, want) in [
            ("", true),
            ("x=y", true),
            ("x==y", true),
            ("x=y,z=w", false),
            ("x!=y", false),
            ("x!=z", true),
            ("notin=in", false),
            ("x in (y,z)", true),
            ("x notin (y,z)", false),
            ("x notin (z)", true),
            ("x", true),
            ("!x", false),
            ("!z", true),
            ("z", false),
            ("z!=y", true),
            ("foo=bar,baz=blah", true),
            ("foo=bar,baz!=blah", false),
            ("x in ()", false),
        ] {
            let s = Selector::parse(selector).unwrap_or_else(|e| panic!("{selector}: {e}"));
            assert_eq!(s.matches(&set), want, "{selector}");
        }
        let numbers = labels(&[("n", "3")]);
        for (selector, want) in [
            ("n>1", true),
            ("n<1", false),
            ("n>3", false),
            ("m>1", false),
        ] {
            assert_eq!(Selector::parse(selector).unwrap().matches(&numbers), want);
        }
        assert!(Selector::parse("x in ()")
            .unwrap()
            .matches(&labels(&[("x", "")])));
    }

    // apimachinery TestSelectorParse: the valid and the invalid strings.
    #[test]
    fn parses_as_apimachinery() {
        for ok in [
            "",
            "x=a,y=b,z=c",
            "x=a,y=b,z=c",
            " x = a , y = b ",
            "x!=a,y=b",
            "x=",
            "x= ",
            "x=,z= ",
            "x= ,z= ",
            "!x",
            "x>1",
            "x>1,z<5",
            "x in (a,b)",
            "x notin ( a , b )",
            "x in (,a)",
            "x in (a,)",
            "x in ()",
            "example.com/app=web",
        ] {
            assert!(
                Selector::parse(ok).is_ok(),
                "{ok}: {:?}",
                Selector::parse(ok)
            );
        }
        for bad in [
            "x=a||y=b", "x==a==b", "!x=a", "x<a", "x in a", "x in (a", "=a", "x=a,",
        ] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn messages_as_apimachinery() {
        for (selector, want) in [
            (
                "app in",
                "unable to parse requirement: found '' expected: '('",
            ),
            (
                "a b",
                "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
            ),
            ("x=a,", "found '', expected: identifier after ','"),
            (
                "x=a y=b",
                "found 'y', expected: ',' or 'end of string'",
            ),
            (
                ",x",
                "found ',', expected: !, identifier, or 'end of string'",
            ),
            (
                "x<a",
                "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer",
            ),
            (
                "app=a b",
                "found 'b', expected: ',' or 'end of string'",
            ),
            (
                "app=-web",
                "unable to parse requirement: values[0][app]: Invalid value: \"-web\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
            (
                "-app",
                "unable to parse requirement: <nil>: Invalid value: \"-app\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ),
        ] {
            assert_eq!(
                Selector::parse(selector).unwrap_err().0,
                want,
                "{selector}"
            );
        }
    }
}
