//! Dtypes in CuPy/NumPy type-code notation and type loops such as `dd->d` or
//! `f->f as d->d` (store float32, compute in float64, as SciPy's float loops do).

/// An element type a loop can take or produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DType {
    I32,
    I64,
    F32,
    F64,
    C64,
    C128,
}

impl DType {
    pub const ALL: [DType; 6] = [DType::I32, DType::I64, DType::F32, DType::F64, DType::C64, DType::C128];

    pub fn from_code(c: char) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.code() == c)
    }

    /// NumPy type character.
    pub fn code(self) -> char {
        match self {
            DType::I32 => 'i',
            DType::I64 => 'l',
            DType::F32 => 'f',
            DType::F64 => 'd',
            DType::C64 => 'F',
            DType::C128 => 'D',
        }
    }

    /// NumPy dtype name.
    pub fn numpy(self) -> &'static str {
        &crate::abi::abi().loop_dtype(self.code()).numpy
    }

    /// Host C++ type.
    pub fn cpp(self) -> &'static str {
        &crate::abi::abi().loop_dtype(self.code()).cpp
    }

    /// Variant name of `bridgegen_runtime::DType` (the XLA FFI data type).
    pub fn runtime_variant(self) -> &'static str {
        &crate::abi::abi().loop_dtype(self.code()).xla
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        crate::abi::abi().loop_dtype(self.code()).size
    }

    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }
}

/// One type signature of a ufunc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// Storage types of the inputs and outputs (what JAX sees).
    pub inputs: Vec<DType>,
    pub outputs: Vec<DType>,
    /// Types the C++ expression is evaluated in (same as storage unless `as ...`).
    pub compute_inputs: Vec<DType>,
    pub compute_outputs: Vec<DType>,
}

impl Loop {
    /// `dd->d` style signature of the storage types.
    pub fn signature(&self) -> String {
        let s = |v: &[DType]| v.iter().map(|d| d.code()).collect::<String>();
        format!("{}->{}", s(&self.inputs), s(&self.outputs))
    }

    /// `dd_d`: the signature as it appears in symbol names.
    pub fn symbol_suffix(&self) -> String {
        self.signature().replace("->", "_")
    }
}

/// Why a loop string was rejected, with the byte offset inside the string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopError {
    Syntax(String),
    UnknownCode { code: char, offset: usize },
    Mismatch(String),
}

fn parse_sig(s: &str, base: usize) -> Result<(Vec<DType>, Vec<DType>), LoopError> {
    let Some((ins, outs)) = s.split_once("->") else {
        return Err(LoopError::Syntax(format!("`{}` has no `->`", s.trim())));
    };
    let ins_off = base + (ins.len() - ins.trim_start().len());
    let outs_off = base + ins.len() + 2 + (outs.len() - outs.trim_start().len());
    let (ins, outs) = (ins.trim(), outs.trim());
    if ins.is_empty() || outs.is_empty() {
        return Err(LoopError::Syntax(format!("`{}` needs at least one input and one output type", s.trim())));
    }
    let codes = |t: &str, off: usize| {
        t.char_indices()
            .map(|(i, c)| DType::from_code(c).ok_or(LoopError::UnknownCode { code: c, offset: off + i }))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok((codes(ins, ins_off)?, codes(outs, outs_off)?))
}

/// Parse `dd->d` or `ff->f as dd->d`.
pub fn parse_loop(text: &str) -> Result<Loop, LoopError> {
    let (store, compute) = match text.find(" as ") {
        Some(i) => (&text[..i], Some((&text[i + 4..], i + 4))),
        None => (text, None),
    };
    let (inputs, outputs) = parse_sig(store, 0)?;
    let (compute_inputs, compute_outputs) = match compute {
        None => (inputs.clone(), outputs.clone()),
        Some((c, off)) => {
            let (ci, co) = parse_sig(c, off)?;
            if ci.len() != inputs.len() || co.len() != outputs.len() {
                return Err(LoopError::Mismatch(format!(
                    "`{}` computes with {} inputs and {} outputs but stores {} and {}",
                    text,
                    ci.len(),
                    co.len(),
                    inputs.len(),
                    outputs.len()
                )));
            }
            (ci, co)
        }
    };
    Ok(Loop { inputs, outputs, compute_inputs, compute_outputs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_as_loops() {
        let l = parse_loop("dd->d").unwrap();
        assert_eq!(l.inputs, vec![DType::F64, DType::F64]);
        assert_eq!(l.symbol_suffix(), "dd_d");
        let l = parse_loop("f->ff as d->dd").unwrap();
        assert_eq!(l.compute_outputs, vec![DType::F64, DType::F64]);
        assert_eq!(l.outputs, vec![DType::F32, DType::F32]);
    }

    #[test]
    fn rejects_bad_loops() {
        assert!(matches!(parse_loop("dd"), Err(LoopError::Syntax(_))));
        assert_eq!(parse_loop("dq->d"), Err(LoopError::UnknownCode { code: 'q', offset: 1 }));
        assert!(matches!(parse_loop("f->f as dd->d"), Err(LoopError::Mismatch(_))));
    }
}
