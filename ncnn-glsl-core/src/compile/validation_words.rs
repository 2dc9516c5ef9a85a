//! naga's validation errors in GLSL's words.
//!
//! naga's validator names what it refuses by handles into its IR (`The type
//! of [151] doesn't match the type stored in [152]`) and its types by their
//! Rust form (`Vector { size: Tri, scalar: .. }`): words a shader's author
//! never wrote, and which change with every mode of a variant set (the
//! extension's text before the user's renumbers the handles), so one
//! mistake read as a different error per mode. The common type errors are
//! said with GLSL's type names and the code at the place; the others name
//! the function and show the code of each expression handle.

use naga::front::Typifier;
use naga::proc::{ResolveContext, TypeResolution};
use naga::valid::{
    CallError, ExpressionError, FunctionError, LocalVariableError, ValidationError,
    ValidationFlags, Validator,
};
use naga::{
    ArraySize, BinaryOperator, Expression, Function, Handle, Module, Scalar, ScalarKind, Type,
    TypeInner, UnaryOperator,
};

use super::naga_run::{chain, guarded, Origin, Step};
use crate::diag::Diagnostic;

/// `d`, naga's validation error of `module` at its place, in GLSL's words
/// where the error is one of a function; naga's notes that name IR handles
/// are dropped.
pub(crate) fn reword(origin: &Origin, module: &Module, d: Diagnostic) -> Diagnostic {
    let validated = guarded(Step::Validate, || {
        Validator::new(
            ValidationFlags::all(),
            naga::back::spv::supported_capabilities(),
        )
        .validate(module)
        .map(|_| ())
        .map_err(Box::new)
    });
    let Ok(Err(e)) = validated else {
        return d;
    };
    let ValidationError::Function {
        handle,
        name,
        source,
    } = e.as_inner()
    else {
        return d;
    };
    let f = &module.functions[*handle];
    let mut words = Words {
        origin,
        module,
        f,
        types: Typifier::new(),
    };
    let Some(message) = words.say(name, source) else {
        return d;
    };
    Diagnostic {
        message,
        span: d.span,
        notes: d
            .notes
            .into_iter()
            .filter(|n| !n.contains("naga::ir::"))
            .collect(),
    }
}

/// What the words are about: the function the error is in.
struct Words<'a> {
    origin: &'a Origin<'a>,
    module: &'a Module,
    f: &'a Function,
    types: Typifier,
}

impl Words<'_> {
    /// The error `e` of the function `name`.
    fn say(&mut self, name: &str, e: &FunctionError) -> Option<String> {
        Some(match e {
            FunctionError::InvalidStoreTypes { pointer, value } => format!(
                "the value stored has type {}, {} has type {}",
                self.of(*value)?,
                self.stored_in(*pointer)?,
                self.pointee(*pointer)?
            ),
            FunctionError::InvalidReturnType {
                expression,
                expected_ty,
            } => {
                let returns = match expected_ty {
                    Some(t) => format!("`{}`", self.type_name(*t)),
                    None => "nothing (`void`)".into(),
                };
                match expression {
                    Some(e) => format!(
                        "`return` of a value of type {} in `{name}`, which returns {returns}",
                        self.of(*e)?
                    ),
                    None => {
                        format!("`return` without a value in `{name}`, which returns {returns}")
                    }
                }
            }
            FunctionError::InvalidIfType(e) => {
                format!("the `if` condition has type {}, not `bool`", self.of(*e)?)
            }
            FunctionError::InvalidSwitchType(e) => format!(
                "the `switch` value has type {}, not `int` or `uint`",
                self.of(*e)?
            ),
            FunctionError::LocalVariable {
                handle,
                name: var,
                source: LocalVariableError::InitializerType,
            } => {
                let local = &self.f.local_variables[*handle];
                let init = local.init?;
                let code = self.code(init).map(|c| format!(" {c}")).unwrap_or_default();
                format!(
                    "the variable `{var}` has type `{}`, its initial value{code} has type {}",
                    self.type_name(local.ty),
                    self.of(init)?
                )
            }
            FunctionError::InvalidCall {
                function,
                error:
                    CallError::ArgumentType {
                        index,
                        required,
                        seen_expression,
                    },
            } => format!(
                "argument {} of `{}` has type {}, its parameter has type `{}`",
                index + 1,
                self.module.functions[*function].name.as_deref()?,
                self.of(*seen_expression)?,
                self.type_name(*required)
            ),
            FunctionError::Expression {
                handle,
                source:
                    ExpressionError::InvalidBinaryOperandTypes {
                        op,
                        lhs_type,
                        rhs_type,
                        ..
                    },
            } => format!(
                "{}: no `{}` for `{}` and `{}`",
                self.code(*handle)?,
                symbol(*op),
                self.inner_name(lhs_type),
                self.inner_name(rhs_type)
            ),
            FunctionError::Expression {
                handle,
                source: ExpressionError::InvalidUnaryOperandType(op, operand),
            } => format!(
                "{}: no `{}` for {}",
                self.code(*handle)?,
                match op {
                    UnaryOperator::Negate => "-",
                    UnaryOperator::LogicalNot => "!",
                    UnaryOperator::BitwiseNot => "~",
                },
                self.of(*operand)?
            ),
            other => format!(
                "naga rejects the module: in `{name}`: {}",
                self.handles(&chain(other))
            ),
        })
    }

    /// The type of expression `h`, in backquotes.
    fn of(&mut self, h: Handle<Expression>) -> Option<String> {
        let cx =
            ResolveContext::with_locals(self.module, &self.f.local_variables, &self.f.arguments);
        self.types.grow(h, &self.f.expressions, &cx).ok()?;
        Some(match &self.types[h] {
            TypeResolution::Handle(t) => format!("`{}`", self.type_name(*t)),
            TypeResolution::Value(inner) => format!("`{}`", self.inner_name(inner)),
        })
    }

    /// The type a pointer expression points at.
    fn pointee(&mut self, pointer: Handle<Expression>) -> Option<String> {
        let cx =
            ResolveContext::with_locals(self.module, &self.f.local_variables, &self.f.arguments);
        self.types.grow(pointer, &self.f.expressions, &cx).ok()?;
        let inner = self.types[pointer].inner_with(&self.module.types);
        Some(match *inner {
            TypeInner::Pointer { base, .. } => format!("`{}`", self.type_name(base)),
            TypeInner::ValuePointer { size, scalar, .. } => {
                let value = match size {
                    Some(size) => TypeInner::Vector { size, scalar },
                    None => TypeInner::Scalar(scalar),
                };
                format!("`{}`", self.inner_name(&value))
            }
            _ => return None,
        })
    }

    /// What a store writes into: a variable by name, else the code.
    fn stored_in(&self, pointer: Handle<Expression>) -> Option<String> {
        let named = match self.f.expressions[pointer] {
            Expression::LocalVariable(l) => self.f.local_variables[l].name.clone(),
            Expression::GlobalVariable(g) => self.module.global_variables[g].name.clone(),
            _ => None,
        };
        match named {
            Some(n) if !n.is_empty() => Some(format!("the variable `{n}`")),
            // naga's span of `a[i]` is `[i]`: the code from the name on.
            _ => self.code_from(pointer, true),
        }
    }

    /// The user's code of expression `h` in backquotes, where it is one
    /// short line.
    fn code(&self, h: Handle<Expression>) -> Option<String> {
        self.code_from(h, false)
    }

    /// [`Self::code`], with the names and indexes written just before it
    /// where `chain`.
    fn code_from(&self, h: Handle<Expression>, chain: bool) -> Option<String> {
        let r = self.f.expressions.get_span(h).to_range()?;
        let r = self.origin.finished_range(r)?;
        let finished = self.origin.expanded.text();
        let start = if chain {
            chain_start(finished, r.start)
        } else {
            r.start
        };
        let text = finished.get(start..r.end)?.trim();
        (!text.is_empty() && !text.contains('\n') && text.len() <= 80).then(|| format!("`{text}`"))
    }

    /// `message` with each expression handle (`[12]`) shown as its code.
    fn handles(&self, message: &str) -> String {
        let mut out = String::new();
        let mut rest = message;
        while let Some(open) = rest.find('[') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let digits = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            let code = (digits > 0 && after[digits..].starts_with(']'))
                .then(|| after[..digits].parse::<usize>().ok())
                .flatten()
                .and_then(|i| self.f.expressions.iter().nth(i))
                .and_then(|(h, _)| self.code(h));
            match code {
                Some(c) => {
                    out.push_str(&c);
                    rest = &after[digits + 1..];
                }
                None => {
                    out.push('[');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The GLSL name of type `t`: a struct's own name.
    fn type_name(&self, t: Handle<Type>) -> String {
        let ty = &self.module.types[t];
        match (&ty.inner, &ty.name) {
            (TypeInner::Struct { .. }, Some(name)) => name.clone(),
            (inner, _) => self.inner_name(inner),
        }
    }

    /// The GLSL name of a type (`vec4`, `f16vec2`, `mat3x4`, `float[4]`).
    fn inner_name(&self, inner: &TypeInner) -> String {
        match *inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => scalar_name(s),
            TypeInner::Vector { size, scalar } => {
                format!("{}vec{}", vector_prefix(scalar), size as u8)
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => {
                let prefix = match scalar.width {
                    2 => "f16",
                    8 => "d",
                    _ => "",
                };
                if columns as u8 == rows as u8 {
                    format!("{prefix}mat{}", columns as u8)
                } else {
                    format!("{prefix}mat{}x{}", columns as u8, rows as u8)
                }
            }
            TypeInner::Array { base, size, .. } => match size {
                ArraySize::Constant(n) => format!("{}[{n}]", self.type_name(base)),
                _ => format!("{}[]", self.type_name(base)),
            },
            TypeInner::Pointer { base, .. } => self.type_name(base),
            TypeInner::ValuePointer { size, scalar, .. } => match size {
                Some(size) => self.inner_name(&TypeInner::Vector { size, scalar }),
                None => scalar_name(scalar),
            },
            TypeInner::Struct { .. } => "struct".into(),
            TypeInner::Image { .. } => "image".into(),
            TypeInner::Sampler { .. } => "sampler".into(),
            _ => "a type GLSL has no name for".into(),
        }
    }
}

/// Where the chain of names, members and indexes that ends at byte `end`
/// of `text` starts (`a.b[i][2]` from its `[2]`).
fn chain_start(text: &str, end: usize) -> usize {
    let b = text.as_bytes();
    let mut at = end;
    while at > 0 {
        let c = b[at - 1];
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
            at -= 1;
        } else if c == b']' {
            let mut depth = 0;
            let mut i = at;
            while i > 0 {
                i -= 1;
                match b[i] {
                    b']' => depth += 1,
                    b'[' => depth -= 1,
                    b'\n' => return at,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
            if depth != 0 {
                return at;
            }
            at = i;
        } else {
            break;
        }
    }
    at
}

/// `float`, `int`, `uint`, `bool`, `float16_t`, `double`, ...
fn scalar_name(s: Scalar) -> String {
    match (s.kind, s.width) {
        (ScalarKind::Float | ScalarKind::AbstractFloat, 4 | 0) => "float".into(),
        (ScalarKind::Float, 2) => "float16_t".into(),
        (ScalarKind::Float | ScalarKind::AbstractFloat, _) => "double".into(),
        (ScalarKind::Sint | ScalarKind::AbstractInt, 4 | 0) => "int".into(),
        (ScalarKind::Uint, 4) => "uint".into(),
        (ScalarKind::Bool, _) => "bool".into(),
        (ScalarKind::Sint | ScalarKind::AbstractInt, w) => format!("int{}_t", w * 8),
        (ScalarKind::Uint, w) => format!("uint{}_t", w * 8),
    }
}

/// The letters before `vec` for vectors of `s` (`i`, `u`, `b`, `f16`, `d`).
fn vector_prefix(s: Scalar) -> String {
    match (s.kind, s.width) {
        (ScalarKind::Float | ScalarKind::AbstractFloat, 4) => String::new(),
        (ScalarKind::Float, 2) => "f16".into(),
        (ScalarKind::Float | ScalarKind::AbstractFloat, _) => "d".into(),
        (ScalarKind::Sint | ScalarKind::AbstractInt, 4) => "i".into(),
        (ScalarKind::Uint, 4) => "u".into(),
        (ScalarKind::Bool, _) => "b".into(),
        (ScalarKind::Sint | ScalarKind::AbstractInt, w) => format!("i{}", w * 8),
        (ScalarKind::Uint, w) => format!("u{}", w * 8),
    }
}

/// GLSL's spelling of a binary operator.
fn symbol(op: BinaryOperator) -> &'static str {
    match op {
        BinaryOperator::Add => "+",
        BinaryOperator::Subtract => "-",
        BinaryOperator::Multiply => "*",
        BinaryOperator::Divide => "/",
        BinaryOperator::Modulo => "%",
        BinaryOperator::Equal => "==",
        BinaryOperator::NotEqual => "!=",
        BinaryOperator::Less => "<",
        BinaryOperator::LessEqual => "<=",
        BinaryOperator::Greater => ">",
        BinaryOperator::GreaterEqual => ">=",
        BinaryOperator::And => "&",
        BinaryOperator::ExclusiveOr => "^",
        BinaryOperator::InclusiveOr => "|",
        BinaryOperator::LogicalAnd => "&&",
        BinaryOperator::LogicalOr => "||",
        BinaryOperator::ShiftLeft => "<<",
        BinaryOperator::ShiftRight => ">>",
    }
}
