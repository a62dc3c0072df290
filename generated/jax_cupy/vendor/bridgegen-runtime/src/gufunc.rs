//! Generalized ufuncs (core dimensions, `signature = "(n)->(n+1)"`): split every operand's
//! shape into leading (outer) axes, which broadcast like an elementwise call's, and trailing
//! core axes, which the loop or kernel sees whole; check the core sizes against the
//! signature. The Python side checked the same at trace time; this keeps a handler from
//! reading past a buffer whatever it is given.

use crate::broadcast::Broadcast;
use crate::frame::{Buffer, FfiError};

/// One core dimension: a size named by the signature (index into its names) plus `add`,
/// or the fixed size `add`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim {
    pub name: Option<usize>,
    pub add: i64,
}

/// A generalized ufunc's signature: the core dimensions of each operand, inputs then outputs.
#[derive(Debug)]
pub struct Signature {
    pub text: &'static str,
    pub operands: &'static [&'static [Dim]],
}

/// Where a call's operands split: the broadcast of their outer axes (strides in elements,
/// counting one whole core block as one element), every operand's core extents in order,
/// and each operand's core block size.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    pub outer: Broadcast,
    pub core: Vec<i64>,
    pub block: Vec<i64>,
}

impl Signature {
    /// The layout of a call on `bufs` (inputs then outputs), or why its shapes do not fit.
    pub fn layout(&self, bufs: &[Buffer], nin: usize) -> Result<Layout, FfiError> {
        let dims: Vec<&[i64]> = bufs.iter().map(|b| b.dims).collect();
        self.layout_of(&dims, nin)
    }

    pub fn layout_of(&self, dims: &[&[i64]], nin: usize) -> Result<Layout, FfiError> {
        if dims.len() != self.operands.len() {
            return Err(FfiError::invalid(format!(
                "signature {} has {} operands, the call {}",
                self.text,
                self.operands.len(),
                dims.len()
            )));
        }
        let what = |k: usize| if k < nin { format!("input {k}") } else { format!("output {}", k - nin) };
        let mut sizes: Vec<Option<i64>> = Vec::new();
        let mut core = Vec::new();
        let mut block = Vec::with_capacity(dims.len());
        let mut outer: Vec<&[i64]> = Vec::with_capacity(dims.len());
        for (k, (d, want)) in dims.iter().zip(self.operands).enumerate() {
            if d.len() < want.len() {
                return Err(FfiError::invalid(format!(
                    "{} has rank {}; signature {} gives it {} core dimension(s)",
                    what(k),
                    d.len(),
                    self.text,
                    want.len()
                )));
            }
            let split = d.len() - want.len();
            for (dim, &n) in want.iter().zip(&d[split..]) {
                let expected = match dim.name {
                    None => Some(dim.add),
                    Some(i) => {
                        if sizes.len() <= i {
                            sizes.resize(i + 1, None);
                        }
                        // Inputs bind names (add is 0 there); outputs use them.
                        match sizes[i] {
                            Some(v) => Some(v + dim.add),
                            None if k < nin => {
                                sizes[i] = Some(n);
                                None
                            }
                            None => {
                                return Err(FfiError::invalid(format!(
                                    "signature {}: an output dimension is bound by no input",
                                    self.text
                                )))
                            }
                        }
                    }
                };
                if let Some(e) = expected.filter(|&e| e != n) {
                    return Err(FfiError::invalid(format!(
                        "{} has core shape {:?}; signature {} wants {e} where it has {n}",
                        what(k),
                        &d[split..],
                        self.text
                    )));
                }
            }
            core.extend_from_slice(&d[split..]);
            block.push(d[split..].iter().product());
            outer.push(&d[..split]);
        }
        if core.len() > crate::abi::MAX_CORE_DIMS {
            return Err(FfiError::invalid(format!(
                "{} core dimensions; loops and kernels take {}",
                core.len(),
                crate::abi::MAX_CORE_DIMS
            )));
        }
        let out_outer = outer[nin].to_vec();
        if let Some(k) = (nin..dims.len()).find(|&k| outer[k] != out_outer.as_slice()) {
            return Err(FfiError::invalid(format!(
                "{} has outer shape {:?}, output 0 has {:?}",
                what(k),
                outer[k],
                out_outer
            )));
        }
        let mut outer = Broadcast::new(&outer, &out_outer, nin)?;
        for (s, b) in outer.strides.iter_mut().zip(&block) {
            s.iter_mut().for_each(|x| *x *= b);
        }
        Ok(Layout { outer, core, block })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: Dim = Dim { name: Some(0), add: 0 };
    const N1: Dim = Dim { name: Some(0), add: 1 };
    static PMF: Signature = Signature { text: "(n)->(n+1)", operands: &[&[N], &[N1]] };
    static TAKE: Signature = Signature { text: "(),(n)->()", operands: &[&[], &[N], &[]] };

    #[test]
    fn splits_outer_and_core_axes() {
        let l = PMF.layout_of(&[&[4, 3], &[4, 4]], 1).unwrap();
        assert_eq!(l.core, vec![3, 4]);
        assert_eq!(l.block, vec![3, 4]);
        assert_eq!(l.outer.shape, vec![4]);
        assert_eq!(l.outer.strides, vec![vec![3], vec![4]]);
        // Broadcast outer axes: k of shape (2, 1) against p of shape (5, 7).
        let l = TAKE.layout_of(&[&[2, 1], &[5, 7], &[2, 5]], 2).unwrap();
        assert_eq!(l.outer.shape, vec![2, 5]);
        assert_eq!(l.outer.strides, vec![vec![1, 0], vec![0, 7], vec![5, 1]]);
        assert_eq!(l.core, vec![7]);
    }

    #[test]
    fn refuses_shapes_the_signature_does_not_allow() {
        assert!(PMF.layout_of(&[&[4, 3], &[4, 3]], 1).is_err()); // n + 1 != 3
        assert!(PMF.layout_of(&[&[], &[1]], 1).is_err()); // input has no core axis
        assert!(PMF.layout_of(&[&[4, 3], &[5, 4]], 1).is_err()); // outer shapes differ
        assert!(PMF.layout_of(&[&[4, 3]], 1).is_err());
        let zero = PMF.layout_of(&[&[0], &[1]], 1).unwrap();
        assert_eq!((zero.core, zero.outer.total()), (vec![0, 1], 1));
    }
}
