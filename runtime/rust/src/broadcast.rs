//! NumPy broadcasting of elementwise operands against the output shape, shared by the
//! host loops and the CUDA launcher: per-operand element strides (0 on broadcast axes),
//! with axes merged wherever every operand is contiguous across them, so the common
//! cases (same shapes, scalar operands) become one flat axis.

use crate::frame::FfiError;

/// The merged iteration space: `shape` (at least one axis) and, per operand, its stride
/// in elements along each axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broadcast {
    pub shape: Vec<i64>,
    pub strides: Vec<Vec<i64>>,
}

impl Broadcast {
    /// Operand `k` of `dims` names itself as input `k` (k < nin) or output `k - nin`.
    pub fn new(dims: &[&[i64]], out_shape: &[i64], nin: usize) -> Result<Broadcast, FfiError> {
        let rank = out_shape.len();
        let mut strides = Vec::with_capacity(dims.len());
        for (k, d) in dims.iter().enumerate() {
            let what = || if k < nin { format!("input {k}") } else { format!("output {}", k - nin) };
            if d.len() > rank {
                return Err(FfiError::invalid(format!(
                    "{} has rank {}, more than the output's {rank}",
                    what(),
                    d.len()
                )));
            }
            // Row-major element strides, right-aligned against the output.
            let mut s = vec![0i64; rank];
            let mut step = 1i64;
            let off = rank - d.len();
            for a in (0..d.len()).rev() {
                let (n, m) = (d[a], out_shape[off + a]);
                if n == m {
                    s[off + a] = if n == 1 { 0 } else { step };
                } else if n == 1 {
                    s[off + a] = 0;
                } else {
                    return Err(FfiError::invalid(format!(
                        "{} of shape {d:?} does not broadcast to {out_shape:?}",
                        what()
                    )));
                }
                step *= n;
            }
            strides.push(s);
        }
        // Merge axis a into a+1 when every operand is contiguous across them.
        let mut shape: Vec<i64> = out_shape.to_vec();
        let mut a = 0;
        while a + 1 < shape.len() {
            if strides.iter().all(|s| s[a] == s[a + 1] * shape[a + 1]) {
                shape[a + 1] *= shape[a];
                shape.remove(a);
                strides.iter_mut().for_each(|s| {
                    s.remove(a);
                });
            } else {
                a += 1;
            }
        }
        if shape.is_empty() {
            shape.push(1);
            strides.iter_mut().for_each(|s| s.push(0));
        }
        Ok(Broadcast { shape, strides })
    }

    pub fn total(&self) -> i64 {
        self.shape.iter().product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_same_shape_and_scalars_into_one_axis() {
        let b = Broadcast::new(&[&[4, 5], &[], &[4, 5]], &[4, 5], 2).unwrap();
        assert_eq!(b.shape, vec![20]);
        assert_eq!(b.strides, vec![vec![1], vec![0], vec![1]]);
    }

    #[test]
    fn keeps_broadcast_axes_apart() {
        let b = Broadcast::new(&[&[1, 3], &[2, 1], &[2, 3]], &[2, 3], 2).unwrap();
        assert_eq!(b.shape, vec![2, 3]);
        assert_eq!(b.strides, vec![vec![0, 1], vec![1, 0], vec![3, 1]]);
        assert!(Broadcast::new(&[&[3], &[2], &[3]], &[3], 2).is_err());
        let zero_d = Broadcast::new(&[&[], &[]], &[], 1).unwrap();
        assert_eq!((zero_d.total(), zero_d.shape), (1, vec![1]));
    }
}
