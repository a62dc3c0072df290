//! Python expressions of spec rules (derivatives, `[[function]]` shapes, dtypes and
//! workspace sizes): parsed here, checked by name, and rendered back as canonical Python
//! into the generated package's `_rules.py`, where they are ordinary functions (linted,
//! with real tracebacks) instead of strings `eval`ed at trace time.
//!
//! Written here rather than taken from a crate: the Python parsers on crates.io
//! (rustpython-parser, ruff's, unpublished) parse whole modules with a large dependency
//! tree, and rules need one expression of a small subset: names, numbers, strings,
//! attribute access, calls, subscripts and slices, tuples and lists, unary and binary
//! arithmetic, comparisons, `and`/`or`/`not` and conditional expressions. Anything else
//! (lambdas, comprehensions, walrus, f-strings, statements) is a syntax error with a
//! position, and because the output is rendered from the tree, no spec text reaches the
//! generated module except as a name the checker accepted or an escaped literal.

use std::fmt::Write as _;

/// A parsed expression. Offsets are byte positions in the rule's text.
#[derive(Debug, Clone, PartialEq)]
pub enum PyExpr {
    Name(String, usize),
    /// Number literal, as written (validated).
    Num(String),
    Str(String),
    Tuple(Vec<PyExpr>),
    List(Vec<PyExpr>),
    Attr(Box<PyExpr>, String),
    Call(Box<PyExpr>, Vec<Arg>),
    Subscript(Box<PyExpr>, Vec<Index>),
    Unary(&'static str, Box<PyExpr>),
    Binary(Box<PyExpr>, &'static str, Box<PyExpr>),
    Compare(Box<PyExpr>, Vec<(&'static str, PyExpr)>),
    BoolOp(&'static str, Vec<PyExpr>),
    IfElse(Box<PyExpr>, Box<PyExpr>, Box<PyExpr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Pos(PyExpr),
    Kw(String, PyExpr),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Index {
    Expr(PyExpr),
    Slice(Option<PyExpr>, Option<PyExpr>, Option<PyExpr>),
}

/// A syntax error: what, and where (byte offset, length).
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub offset: usize,
    pub len: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Num(String),
    Str(String),
    Op(&'static str),
    End,
}

const OPS: &[&str] = &[
    "**", "//", "==", "!=", "<=", ">=", "(", ")", "[", "]", ",", ":", ".", "+", "-", "*", "/", "%", "@", "<", ">", "=",
    "~",
];
const KEYWORDS: &[&str] = &[
    "and", "or", "not", "if", "else", "in", "is", "lambda", "for", "async", "await", "yield", "def", "class", "import",
    "from", "return", "del", "global", "nonlocal", "assert", "pass", "break", "continue", "while", "with", "try",
    "except", "finally", "raise", "as", "elif",
];
/// Keywords that may stand in an expression (as operators or constants).
const EXPR_KEYWORDS: &[&str] = &["and", "or", "not", "if", "else", "in", "is"];
const CONSTANTS: &[&str] = &["None", "True", "False"];

fn lex(src: &str) -> Result<Vec<(Tok, usize, usize)>, SyntaxError> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    let err = |m: String, at: usize, len: usize| Err(SyntaxError { message: m, offset: at, len });
    while i < b.len() {
        let c = b[i] as char;
        if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == '_' {
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                return err(
                    format!("string prefix `{word}` is not supported in rules (plain quotes only)"),
                    start,
                    i - start + 1,
                );
            }
            out.push((Tok::Name(word.to_string()), start, i - start));
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < b.len() && (b[i + 1] as char).is_ascii_digit()) {
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                // An exponent's sign belongs to the number.
                if (b[i] == b'e' || b[i] == b'E') && i + 1 < b.len() && (b[i + 1] == b'+' || b[i + 1] == b'-') {
                    i += 1;
                }
                i += 1;
            }
            let text = &src[start..i];
            if !valid_number(text) {
                return err(format!("`{text}` is not a number"), start, i - start);
            }
            out.push((Tok::Num(text.to_string()), start, i - start));
        } else if c == '"' || c == '\'' {
            i += 1;
            let mut value = String::new();
            loop {
                let Some(&ch) = b.get(i) else {
                    return err("unterminated string".into(), start, i - start);
                };
                if ch as char == c {
                    i += 1;
                    break;
                }
                if ch == b'\n' {
                    return err("unterminated string".into(), start, i - start);
                }
                if ch == b'\\' {
                    let esc = b.get(i + 1).copied();
                    value.push(match esc {
                        Some(b'\\') => '\\',
                        Some(b'\'') => '\'',
                        Some(b'"') => '"',
                        Some(b'n') => '\n',
                        Some(b't') => '\t',
                        _ => {
                            return err(
                                "only \\\\, \\', \\\", \\n and \\t escapes are supported in rule strings".into(),
                                i,
                                2,
                            )
                        }
                    });
                    i += 2;
                    continue;
                }
                let ch = src[i..].chars().next().unwrap_or('\u{fffd}');
                value.push(ch);
                i += ch.len_utf8();
            }
            out.push((Tok::Str(value), start, i - start));
        } else if let Some(op) = OPS.iter().find(|op| src[i..].starts_with(**op)) {
            i += op.len();
            out.push((Tok::Op(op), start, op.len()));
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return err(format!("unexpected character `{ch}`"), start, ch.len_utf8());
        }
    }
    out.push((Tok::End, src.len(), 0));
    Ok(out)
}

fn valid_number(t: &str) -> bool {
    let t = t.replace('_', "");
    let t = t.strip_suffix(['j', 'J']).unwrap_or(&t);
    t.parse::<f64>().is_ok()
        && !t.starts_with('+')
        && !t.starts_with('-')
        && !t.to_ascii_lowercase().contains("inf")
        && !t.to_ascii_lowercase().contains("nan")
        || t.strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
}

struct Parser {
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
}

type PResult<T> = Result<T, SyntaxError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn at(&self) -> (usize, usize) {
        (self.toks[self.pos].1, self.toks[self.pos].2)
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Name(n) if n == kw)
    }

    fn error<T>(&self, what: &str) -> PResult<T> {
        let (offset, len) = self.at();
        let found = match self.peek() {
            Tok::End => "the end of the rule".to_string(),
            Tok::Name(n) | Tok::Num(n) => format!("`{n}`"),
            Tok::Str(_) => "a string".to_string(),
            Tok::Op(o) => format!("`{o}`"),
        };
        Err(SyntaxError { message: format!("expected {what}, found {found}"), offset, len: len.max(1) })
    }

    fn expect_op(&mut self, op: &'static str) -> PResult<()> {
        if self.is_op(op) {
            self.bump();
            Ok(())
        } else {
            self.error(&format!("`{op}`"))
        }
    }

    fn expr(&mut self) -> PResult<PyExpr> {
        let body = self.or_expr()?;
        if self.is_kw("if") {
            self.bump();
            let cond = self.or_expr()?;
            if !self.is_kw("else") {
                return self.error("`else`");
            }
            self.bump();
            let orelse = self.expr()?;
            return Ok(PyExpr::IfElse(Box::new(body), Box::new(cond), Box::new(orelse)));
        }
        Ok(body)
    }

    fn bool_chain(&mut self, kw: &'static str, next: fn(&mut Self) -> PResult<PyExpr>) -> PResult<PyExpr> {
        let first = next(self)?;
        if !self.is_kw(kw) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.is_kw(kw) {
            self.bump();
            items.push(next(self)?);
        }
        Ok(PyExpr::BoolOp(kw, items))
    }

    fn or_expr(&mut self) -> PResult<PyExpr> {
        self.bool_chain("or", Self::and_expr)
    }

    fn and_expr(&mut self) -> PResult<PyExpr> {
        self.bool_chain("and", Self::not_expr)
    }

    fn not_expr(&mut self) -> PResult<PyExpr> {
        if self.is_kw("not") {
            self.bump();
            return Ok(PyExpr::Unary("not", Box::new(self.not_expr()?)));
        }
        self.comparison()
    }

    fn comp_op(&mut self) -> Option<&'static str> {
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.is_op(op) {
                self.bump();
                return Some(op);
            }
        }
        if self.is_kw("in") {
            self.bump();
            return Some("in");
        }
        if self.is_kw("not") && matches!(self.toks.get(self.pos + 1), Some((Tok::Name(n), ..)) if n == "in") {
            self.bump();
            self.bump();
            return Some("not in");
        }
        if self.is_kw("is") {
            self.bump();
            if self.is_kw("not") {
                self.bump();
                return Some("is not");
            }
            return Some("is");
        }
        None
    }

    fn comparison(&mut self) -> PResult<PyExpr> {
        let first = self.arith()?;
        let mut rest = Vec::new();
        while let Some(op) = self.comp_op() {
            rest.push((op, self.arith()?));
        }
        Ok(if rest.is_empty() { first } else { PyExpr::Compare(Box::new(first), rest) })
    }

    fn arith(&mut self) -> PResult<PyExpr> {
        let mut left = self.term()?;
        loop {
            let op = if self.is_op("+") {
                "+"
            } else if self.is_op("-") {
                "-"
            } else {
                break;
            };
            self.bump();
            left = PyExpr::Binary(Box::new(left), op, Box::new(self.term()?));
        }
        Ok(left)
    }

    fn term(&mut self) -> PResult<PyExpr> {
        let mut left = self.factor()?;
        while let Some(op) = ["*", "/", "//", "%", "@"].into_iter().find(|op| self.is_op(op)) {
            self.bump();
            left = PyExpr::Binary(Box::new(left), op, Box::new(self.factor()?));
        }
        Ok(left)
    }

    fn factor(&mut self) -> PResult<PyExpr> {
        for op in ["-", "+", "~"] {
            if self.is_op(op) {
                self.bump();
                return Ok(PyExpr::Unary(op, Box::new(self.factor()?)));
            }
        }
        let base = self.primary()?;
        if self.is_op("**") {
            self.bump();
            return Ok(PyExpr::Binary(Box::new(base), "**", Box::new(self.factor()?)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> PResult<PyExpr> {
        let mut e = self.atom()?;
        loop {
            if self.is_op(".") {
                self.bump();
                match self.bump() {
                    Tok::Name(n) if !KEYWORDS.contains(&n.as_str()) => e = PyExpr::Attr(Box::new(e), n),
                    _ => {
                        self.pos -= 1;
                        return self.error("an attribute name");
                    }
                }
            } else if self.is_op("(") {
                self.bump();
                e = PyExpr::Call(Box::new(e), self.args()?);
            } else if self.is_op("[") {
                self.bump();
                e = PyExpr::Subscript(Box::new(e), self.indices()?);
            } else {
                return Ok(e);
            }
        }
    }

    fn args(&mut self) -> PResult<Vec<Arg>> {
        let mut out = Vec::new();
        while !self.is_op(")") {
            let kw = match (self.peek(), self.toks.get(self.pos + 1)) {
                (Tok::Name(n), Some((Tok::Op("="), ..))) if !KEYWORDS.contains(&n.as_str()) => Some(n.clone()),
                _ => None,
            };
            if let Some(k) = kw {
                self.bump();
                self.bump();
                out.push(Arg::Kw(k, self.expr()?));
            } else {
                out.push(Arg::Pos(self.expr()?));
            }
            if !self.is_op(",") {
                break;
            }
            self.bump();
        }
        self.expect_op(")")?;
        Ok(out)
    }

    fn slice_part(&mut self) -> PResult<Option<PyExpr>> {
        if self.is_op(":") || self.is_op("]") || self.is_op(",") {
            Ok(None)
        } else {
            Ok(Some(self.expr()?))
        }
    }

    fn indices(&mut self) -> PResult<Vec<Index>> {
        let mut out = Vec::new();
        loop {
            let lo = self.slice_part()?;
            if self.is_op(":") {
                self.bump();
                let hi = self.slice_part()?;
                let step = if self.is_op(":") {
                    self.bump();
                    self.slice_part()?
                } else {
                    None
                };
                out.push(Index::Slice(lo, hi, step));
            } else if let Some(e) = lo {
                out.push(Index::Expr(e));
            } else {
                return self.error("an index");
            }
            if !self.is_op(",") {
                break;
            }
            self.bump();
        }
        self.expect_op("]")?;
        Ok(out)
    }

    fn sequence(&mut self, close: &'static str) -> PResult<(Vec<PyExpr>, bool)> {
        let mut items = Vec::new();
        let mut trailing = false;
        while !self.is_op(close) {
            items.push(self.expr()?);
            trailing = false;
            if !self.is_op(",") {
                break;
            }
            self.bump();
            trailing = true;
        }
        self.expect_op(close)?;
        Ok((items, trailing))
    }

    fn atom(&mut self) -> PResult<PyExpr> {
        let (offset, _) = self.at();
        match self.peek().clone() {
            Tok::Name(n) if CONSTANTS.contains(&n.as_str()) => {
                self.bump();
                Ok(PyExpr::Name(n, offset))
            }
            Tok::Name(n) if EXPR_KEYWORDS.contains(&n.as_str()) || KEYWORDS.contains(&n.as_str()) => {
                if KEYWORDS.contains(&n.as_str()) && !EXPR_KEYWORDS.contains(&n.as_str()) {
                    let (offset, len) = self.at();
                    return Err(SyntaxError {
                        message: format!("`{n}` is not allowed in a rule (one expression only)"),
                        offset,
                        len,
                    });
                }
                self.error("an expression")
            }
            Tok::Name(n) => {
                self.bump();
                Ok(PyExpr::Name(n, offset))
            }
            Tok::Num(n) => {
                self.bump();
                Ok(PyExpr::Num(n))
            }
            Tok::Str(s) => {
                self.bump();
                let mut s = s;
                // Adjacent literals concatenate, as in Python.
                while let Tok::Str(more) = self.peek().clone() {
                    self.bump();
                    s.push_str(&more);
                }
                Ok(PyExpr::Str(s))
            }
            Tok::Op("(") => {
                self.bump();
                let (items, trailing) = self.sequence(")")?;
                Ok(if items.len() == 1 && !trailing { items.into_iter().next().unwrap() } else { PyExpr::Tuple(items) })
            }
            Tok::Op("[") => {
                self.bump();
                Ok(PyExpr::List(self.sequence("]")?.0))
            }
            _ => self.error("an expression"),
        }
    }
}

/// Parse one rule.
pub fn parse(src: &str) -> Result<PyExpr, SyntaxError> {
    let toks = lex(src)?;
    let mut p = Parser { toks, pos: 0 };
    if matches!(p.peek(), Tok::End) {
        return Err(SyntaxError { message: "the rule is empty".into(), offset: 0, len: src.len().max(1) });
    }
    let e = p.expr()?;
    // A top-level `a, b` is a tuple, as in Python.
    let e = if p.is_op(",") {
        let mut items = vec![e];
        while p.is_op(",") {
            p.bump();
            if matches!(p.peek(), Tok::End) {
                break;
            }
            items.push(p.expr()?);
        }
        PyExpr::Tuple(items)
    } else {
        e
    };
    if !matches!(p.peek(), Tok::End) {
        return p.error("the end of the rule");
    }
    Ok(e)
}

/// How a free name is used: alone, called, or with an attribute taken (`x.shape`, `jnp.exp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    Variable,
    Call,
    Attribute,
}

/// The names an expression reads (not constants, not keyword-argument names), in order.
pub fn names(e: &PyExpr) -> Vec<(String, usize, Use)> {
    fn walk(e: &PyExpr, out: &mut Vec<(String, usize, Use)>, how: Use) {
        match e {
            PyExpr::Name(n, at) if !CONSTANTS.contains(&n.as_str()) => out.push((n.clone(), *at, how)),
            PyExpr::Name(..) | PyExpr::Num(_) | PyExpr::Str(_) => {}
            PyExpr::Tuple(v) | PyExpr::List(v) | PyExpr::BoolOp(_, v) => {
                v.iter().for_each(|x| walk(x, out, Use::Variable))
            }
            PyExpr::Attr(b, _) => walk(b, out, Use::Attribute),
            PyExpr::Call(f, args) => {
                walk(f, out, Use::Call);
                for a in args {
                    match a {
                        Arg::Pos(x) | Arg::Kw(_, x) => walk(x, out, Use::Variable),
                    }
                }
            }
            PyExpr::Subscript(b, idx) => {
                walk(b, out, Use::Variable);
                for i in idx {
                    match i {
                        Index::Expr(x) => walk(x, out, Use::Variable),
                        Index::Slice(a, b, c) => {
                            [a, b, c].into_iter().flatten().for_each(|x| walk(x, out, Use::Variable))
                        }
                    }
                }
            }
            PyExpr::Unary(_, x) => walk(x, out, Use::Variable),
            PyExpr::Binary(a, _, b) => {
                walk(a, out, Use::Variable);
                walk(b, out, Use::Variable);
            }
            PyExpr::Compare(a, rest) => {
                walk(a, out, Use::Variable);
                rest.iter().for_each(|(_, x)| walk(x, out, Use::Variable));
            }
            PyExpr::IfElse(a, c, b) => {
                walk(a, out, Use::Variable);
                walk(c, out, Use::Variable);
                walk(b, out, Use::Variable);
            }
        }
    }
    let mut out = Vec::new();
    walk(e, &mut out, Use::Variable);
    out
}

/// A Python string literal of `s` (double-quoted, every non-printable escaped).
pub fn py_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_ascii() => out.push(c),
            c if (c as u32) > 0xffff => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

// Binding strength, Python's order (higher binds tighter).
fn prec(e: &PyExpr) -> u8 {
    match e {
        PyExpr::IfElse(..) => 1,
        PyExpr::BoolOp("or", _) => 2,
        PyExpr::BoolOp(..) => 3,
        PyExpr::Unary("not", _) => 4,
        PyExpr::Compare(..) => 5,
        PyExpr::Binary(_, "+" | "-", _) => 6,
        PyExpr::Binary(_, "**", _) => 9,
        PyExpr::Binary(..) => 7,
        PyExpr::Unary(..) => 8,
        _ => 10,
    }
}

/// Canonical Python text of `e`: parenthesised where binding requires, and nowhere else.
pub fn render(e: &PyExpr) -> String {
    fn wrap(e: &PyExpr, min: u8) -> String {
        let s = render(e);
        if prec(e) < min {
            format!("({s})")
        } else {
            s
        }
    }
    match e {
        PyExpr::Name(n, _) => n.clone(),
        PyExpr::Num(n) => n.clone(),
        PyExpr::Str(s) => py_string(s),
        PyExpr::Tuple(v) if v.len() == 1 => format!("({},)", render(&v[0])),
        PyExpr::Tuple(v) => format!("({})", v.iter().map(render).collect::<Vec<_>>().join(", ")),
        PyExpr::List(v) => format!("[{}]", v.iter().map(render).collect::<Vec<_>>().join(", ")),
        PyExpr::Attr(b, a) => match **b {
            // `1 .real` needs the space; a parenthesis is clearer.
            PyExpr::Num(_) => format!("({}).{a}", render(b)),
            _ => format!("{}.{a}", wrap(b, 10)),
        },
        PyExpr::Call(f, args) => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    Arg::Pos(x) => render(x),
                    Arg::Kw(k, x) => format!("{k}={}", render(x)),
                })
                .collect();
            format!("{}({})", wrap(f, 10), args.join(", "))
        }
        PyExpr::Subscript(b, idx) => {
            let opt = |x: &Option<PyExpr>| x.as_ref().map(render).unwrap_or_default();
            let idx: Vec<String> = idx
                .iter()
                .map(|i| match i {
                    Index::Expr(x) => render(x),
                    Index::Slice(a, b, None) => format!("{}:{}", opt(a), opt(b)),
                    Index::Slice(a, b, c) => format!("{}:{}:{}", opt(a), opt(b), opt(c)),
                })
                .collect();
            format!("{}[{}]", wrap(b, 10), idx.join(", "))
        }
        PyExpr::Unary("not", x) => format!("not {}", wrap(x, 4)),
        PyExpr::Unary(op, x) => format!("{op}{}", wrap(x, 8)),
        // `**` is right-associative and binds tighter than a unary minus on its left.
        PyExpr::Binary(a, "**", b) => format!("{} ** {}", wrap(a, 10), wrap(b, 8)),
        PyExpr::Binary(a, op, b) => {
            let p = prec(e);
            format!("{} {op} {}", wrap(a, p), wrap(b, p + 1))
        }
        PyExpr::Compare(a, rest) => {
            let mut s = wrap(a, 6);
            for (op, x) in rest {
                let _ = write!(s, " {op} {}", wrap(x, 6));
            }
            s
        }
        PyExpr::BoolOp(op, v) => {
            let p = prec(e);
            v.iter().map(|x| wrap(x, p + 1)).collect::<Vec<_>>().join(&format!(" {op} "))
        }
        PyExpr::IfElse(a, c, b) => format!("{} if {} else {}", wrap(a, 2), wrap(c, 2), wrap(b, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &str) -> String {
        render(&parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}")))
    }

    #[test]
    fn renders_what_python_means() {
        assert_eq!(round("out*(digamma(a)-digamma(a+b))"), "out * (digamma(a) - digamma(a + b))");
        assert_eq!(round("-jnp.pi / 180 * sindg(x)"), "-jnp.pi / 180 * sindg(x)");
        assert_eq!(round("1 / (3 * out * out)"), "1 / (3 * out * out)");
        assert_eq!(round("a - (b - c)"), "a - (b - c)");
        assert_eq!(round("(a - b) - c"), "a - b - c");
        assert_eq!(round("-x ** 2"), "-x ** 2");
        assert_eq!(round("(-x) ** 2"), "(-x) ** 2");
        assert_eq!(round("2 ** -x"), "2 ** -x");
        assert_eq!(round("x.shape[:-1] + (x.shape[-1] // 2 + 1,)"), "x.shape[:-1] + (x.shape[-1] // 2 + 1,)");
        assert_eq!(
            round("(in1.shape[0] + in2.shape[0] - 1,) if mode == 'full' else in1.shape"),
            "(in1.shape[0] + in2.shape[0] - 1,) if mode == \"full\" else in1.shape"
        );
        assert_eq!(round("np.empty(0, x.dtype).real.dtype"), "np.empty(0, x.dtype).real.dtype");
        assert_eq!(round("a if b else c if d else e"), "a if b else c if d else e");
        assert_eq!(round("not a and b or c"), "not a and b or c");
        assert_eq!(round("x[::2, 1]"), "x[::2, 1]");
        assert_eq!(round("f(x, axis=-1)"), "f(x, axis=-1)");
        assert_eq!(round("a not in (1, 2) and b is not None"), "a not in (1, 2) and b is not None");
    }

    #[test]
    fn strings_are_escaped_not_pasted() {
        assert_eq!(round(r#"'a"b\\c'"#), r#""a\"b\\c""#);
        assert_eq!(py_string("tab\there\u{1}é"), r#""tab\there\x01\u00e9""#);
    }

    #[test]
    fn only_expressions_parse() {
        for (src, want) in [
            ("", "empty"),
            ("x +", "expected an expression"),
            ("__import__('os').system('id')", ""),
            ("lambda: 1", "`lambda` is not allowed"),
            ("x; y", "unexpected character `;`"),
            ("[i for i in x]", "expected `]`"),
            ("f'{x}'", "string prefix"),
            ("(x", "expected `)`"),
            ("a = 1", "expected the end of the rule"),
            ("1e", "is not a number"),
            ("'\\N{DASH}'", "escapes are supported"),
        ] {
            match parse(src) {
                Ok(_) => assert!(want.is_empty(), "{src:?} parsed"),
                Err(e) => assert!(e.message.contains(want) && !want.is_empty(), "{src:?}: {}", e.message),
            }
        }
    }

    #[test]
    fn names_know_how_they_are_used() {
        let n = names(&parse("-jnp.exp(-x) * digamma(a) + out**2 + f(k=v)").unwrap());
        let got: Vec<(&str, Use)> = n.iter().map(|(s, _, u)| (s.as_str(), *u)).collect();
        assert_eq!(
            got,
            [
                ("jnp", Use::Attribute),
                ("x", Use::Variable),
                ("digamma", Use::Call),
                ("a", Use::Variable),
                ("out", Use::Variable),
                ("f", Use::Call),
                ("v", Use::Variable)
            ]
        );
        assert_eq!(n[1].1, 10); // byte offset of `x`
    }
}
