//! The integer operations of `OpSpecConstantOp`, as SPIR-V computes them:
//! what the reader evaluates sizes with, and the compiler a specialization
//! expression at its defaults.

/// The 32-bit result of the integer operation `code` of `OpSpecConstantOp`
/// (SPIR-V opcodes) on `args`, wrapping as SPIR-V does, a `bool` as 0 or 1
/// (any other value reads as `true`, as a `VkBool32` does); `None` for
/// another operation, a division by zero, or a shift past 31 bits.
pub(crate) fn spec_op(code: u32, args: &[u32]) -> Option<u32> {
    let s = |v: u32| v as i32;
    let b = |c: bool| u32::from(c);
    Some(match (code, args) {
        (126, &[x]) => x.wrapping_neg(),
        (200, &[x]) => !x,
        (168, &[x]) => b(x == 0),
        (128, &[x, y]) => x.wrapping_add(y),
        (130, &[x, y]) => x.wrapping_sub(y),
        (132, &[x, y]) => x.wrapping_mul(y),
        (134, &[x, y]) => x.checked_div(y)?,
        (135, &[x, y]) => s(x).checked_div(s(y))? as u32,
        (137, &[x, y]) => x.checked_rem(y)?,
        (138, &[x, y]) => s(x).checked_rem(s(y))? as u32,
        // SMod: the sign of the divisor.
        (139, &[x, y]) => {
            let r = s(x).checked_rem(s(y))?;
            (if r != 0 && (r < 0) != (s(y) < 0) {
                r + s(y)
            } else {
                r
            }) as u32
        }
        (194, &[x, y]) => x.checked_shr(y)?,
        (195, &[x, y]) => s(x).checked_shr(y)? as u32,
        (196, &[x, y]) => x.checked_shl(y)?,
        (197, &[x, y]) => x | y,
        (198, &[x, y]) => x ^ y,
        (199, &[x, y]) => x & y,
        // OpLogicalEqual, OpLogicalNotEqual, OpLogicalOr, OpLogicalAnd.
        (164, &[x, y]) => b((x != 0) == (y != 0)),
        (165, &[x, y]) => b((x != 0) != (y != 0)),
        (166, &[x, y]) => b(x != 0 || y != 0),
        (167, &[x, y]) => b(x != 0 && y != 0),
        // OpSelect.
        (169, &[c, x, y]) => {
            if c != 0 {
                x
            } else {
                y
            }
        }
        // OpIEqual, OpINotEqual, then greater, greater or equal, less,
        // less or equal, each unsigned then signed.
        (170, &[x, y]) => b(x == y),
        (171, &[x, y]) => b(x != y),
        (172, &[x, y]) => b(x > y),
        (173, &[x, y]) => b(s(x) > s(y)),
        (174, &[x, y]) => b(x >= y),
        (175, &[x, y]) => b(s(x) >= s(y)),
        (176, &[x, y]) => b(x < y),
        (177, &[x, y]) => b(s(x) < s(y)),
        (178, &[x, y]) => b(x <= y),
        (179, &[x, y]) => b(s(x) <= s(y)),
        _ => return None,
    })
}

/// [`spec_op`] where operands may be unknown (a division by zero, a value
/// this reader cannot compute): `OpSelect` needs only the operand it picks,
/// `OpLogicalAnd` and `OpLogicalOr` only one that decides, as GLSL
/// evaluates `?:`, `&&` and `||`. So a size guarded against a division by
/// zero (`n == 0 ? 1 : 64 / n`) is measured at `n = 0` too.
pub(crate) fn spec_op_partial(code: u32, args: &[Option<u32>]) -> Option<u32> {
    match (code, args) {
        (169, &[Some(c), x, y]) => {
            if c != 0 {
                x
            } else {
                y
            }
        }
        (167, &[x, y]) if x == Some(0) || y == Some(0) => Some(0),
        (166, &[x, y]) if x.is_some_and(|v| v != 0) || y.is_some_and(|v| v != 0) => Some(1),
        _ => spec_op(code, &args.iter().copied().collect::<Option<Vec<u32>>>()?),
    }
}
