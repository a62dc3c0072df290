//! Core-dimension signatures of generalized ufuncs (`signature = "(n)->(n+1)"`), NumPy's
//! gufunc notation with one extension: an output dimension may be an input's plus or minus
//! a constant (`n+1`), since xsf's `poisson_binom_pmf_all` maps n trials to n + 1 outcomes.

/// One core dimension: a named size (`n`), that size plus a constant (`n+1`, outputs only),
/// or a fixed size (`3`: `name` is None, `add` the size).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreDim {
    pub name: Option<String>,
    pub add: i64,
}

impl CoreDim {
    /// The dimension as the spec writes it.
    pub fn text(&self) -> String {
        match (&self.name, self.add) {
            (None, k) => k.to_string(),
            (Some(n), 0) => n.clone(),
            (Some(n), k) if k > 0 => format!("{n}+{k}"),
            (Some(n), k) => format!("{n}{k}"),
        }
    }
}

/// A parsed signature: the core dimensions of each input and each output, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub inputs: Vec<Vec<CoreDim>>,
    pub outputs: Vec<Vec<CoreDim>>,
}

impl Signature {
    /// Canonical text: `(n)->(n+1)`.
    pub fn text(&self) -> String {
        let side = |ops: &[Vec<CoreDim>]| {
            ops.iter()
                .map(|dims| format!("({})", dims.iter().map(CoreDim::text).collect::<Vec<_>>().join(",")))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!("{}->{}", side(&self.inputs), side(&self.outputs))
    }

    /// Core dimensions of every operand, inputs then outputs.
    pub fn operands(&self) -> impl Iterator<Item = &Vec<CoreDim>> {
        self.inputs.iter().chain(&self.outputs)
    }

    /// The dimension names in order of first appearance (inputs bind them).
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for d in self.operands().flatten() {
            if let Some(n) = &d.name {
                if !out.contains(n) {
                    out.push(n.clone());
                }
            }
        }
        out
    }
}

/// A syntax error: byte offset and length inside the signature text, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureError {
    pub offset: usize,
    pub len: usize,
    pub message: String,
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, SignatureError> {
        Err(SignatureError { offset: self.at.min(self.s.len()), len: 1, message: message.into() })
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> Result<i64, SignatureError> {
        let start = self.at;
        while self.at < self.s.len() && self.s[self.at].is_ascii_digit() {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).unwrap_or("");
        text.parse::<i64>().or_else(|_| {
            self.at = start;
            self.err("expected a number")
        })
    }

    fn dim(&mut self) -> Result<CoreDim, SignatureError> {
        self.skip_ws();
        let c = self.s.get(self.at).copied().unwrap_or(0);
        if c.is_ascii_digit() {
            return Ok(CoreDim { name: None, add: self.number()? });
        }
        if !(c.is_ascii_alphabetic() || c == b'_') {
            return self.err("expected a dimension name or size");
        }
        let start = self.at;
        while self.at < self.s.len() && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'_') {
            self.at += 1;
        }
        let name = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
        self.skip_ws();
        let sign = match self.s.get(self.at) {
            Some(b'+') => 1,
            Some(b'-') if self.s.get(self.at + 1) != Some(&b'>') => -1,
            _ => return Ok(CoreDim { name: Some(name), add: 0 }),
        };
        self.at += 1;
        self.skip_ws();
        Ok(CoreDim { name: Some(name), add: sign * self.number()? })
    }

    /// `(d, d, ...)`
    fn operand(&mut self) -> Result<Vec<CoreDim>, SignatureError> {
        if !self.eat(b'(') {
            return self.err("expected `(`: each operand's core dimensions are written `(n)`, `(m,n)` or `()`");
        }
        let mut dims = Vec::new();
        if self.eat(b')') {
            return Ok(dims);
        }
        loop {
            dims.push(self.dim()?);
            if self.eat(b')') {
                return Ok(dims);
            }
            if !self.eat(b',') {
                return self.err("expected `,` or `)`");
            }
        }
    }

    fn side(&mut self) -> Result<Vec<Vec<CoreDim>>, SignatureError> {
        let mut ops = vec![self.operand()?];
        while self.eat(b',') {
            ops.push(self.operand()?);
        }
        Ok(ops)
    }
}

/// Parse `(n),(n)->(n+1)`. Inputs take names and fixed sizes only; offsets (`n+1`) are for
/// outputs, whose names must be bound by an input (checked by the caller, which knows spans).
pub fn parse(text: &str) -> Result<Signature, SignatureError> {
    let mut p = Parser { s: text.as_bytes(), at: 0 };
    let inputs = p.side()?;
    p.skip_ws();
    if !(p.s.get(p.at) == Some(&b'-') && p.s.get(p.at + 1) == Some(&b'>')) {
        return p.err("expected `->` between the inputs and the outputs");
    }
    p.at += 2;
    let outputs = p.side()?;
    p.skip_ws();
    if p.at != p.s.len() {
        return p.err("unexpected text after the outputs");
    }
    if let Some(d) = inputs.iter().flatten().find(|d| d.name.is_some() && d.add != 0) {
        let text_d = d.text();
        let offset = text.find(&text_d).unwrap_or(0);
        return Err(SignatureError {
            offset,
            len: text_d.len(),
            message: format!("input dimension `{text_d}`: inputs bind sizes by name; only outputs may add to one"),
        });
    }
    Ok(Signature { inputs, outputs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(n: &str, add: i64) -> CoreDim {
        CoreDim { name: Some(n.into()), add }
    }

    #[test]
    fn parses_numpy_notation_and_offsets() {
        let s = parse("(n)->(n+1)").unwrap();
        assert_eq!(s.inputs, vec![vec![named("n", 0)]]);
        assert_eq!(s.outputs, vec![vec![named("n", 1)]]);
        assert_eq!(s.text(), "(n)->(n+1)");
        let s = parse(" (m, n) , () , (3) -> (m,n - 2),() ").unwrap();
        assert_eq!(s.text(), "(m,n),(),(3)->(m,n-2),()");
        assert_eq!(s.names(), vec!["m".to_string(), "n".to_string()]);
        assert_eq!(s.inputs[2], vec![CoreDim { name: None, add: 3 }]);
    }

    #[test]
    fn reports_where_the_text_goes_wrong() {
        for (text, at) in [
            ("(n)", 3),
            ("n->n", 0),
            ("(n->(n)", 2),
            ("(n)->(n", 7),
            ("(n)->(n)x", 8),
            ("(n+1)->(n)", 1),
            ("(n)->(n+)", 8),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.offset, at, "{text}: {e:?}");
        }
    }
}
