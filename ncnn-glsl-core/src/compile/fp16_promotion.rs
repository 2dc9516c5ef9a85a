//! A `float16_t` operand beside a `float` one (`h * 0.5`, `h > 0.1`,
//! `r += h` with `r` a `float`, `c ? h : 0.1`, `pow(h, 0.5)`): GLSL
//! converts the `float16_t` to `float` and computes in 32 bits (glslang:
//! `OpFConvert`, then the 32-bit operation), but naga's GLSL frontend ranks
//! `float16_t` above `float` and demotes the `float` instead (see
//! `fp16_widening.rs`). This pass gives naga the text GLSL means: it wraps
//! the `float16_t` operand in `float(...)` or `vecN(...)` (inserts, so that
//! naga's spans still map to the user's file) and naga parses again. Each
//! round repairs what the previous parse shows: in `h * 0.5 + h2` the sum
//! has a `float` operand only once the product is one.
//!
//! Repaired: the arithmetic operators and comparisons, `?:` (naga writes it
//! as a branch storing into a temporary) unless its `float` is a literal 16
//! bits hold exactly (the value is the same either way), and `pow` and
//! `atan(y, x)`, which glslang resolves to their `float` forms. Refused, by
//! `fp16_widening::demotions` and [`refused_conversions`], as glslang
//! refuses them: a `float` stored into a `float16_t` or passed for a
//! `float16_t` parameter, a compound assignment to a `float16_t`
//! (`h *= 0.5`), and the builtins whose call glslang finds ambiguous
//! (`min`, `max`, `clamp`, `mix`, `step`, `smoothstep`, `fma`, `mod`, `dot`,
//! the geometric and relational functions).
//!
//! The demoted `float` is naga's `As` to 16 bits (implicit unless its text
//! is a `float16_t` or `f16vecN` constructor: naga spans an implicit one by
//! the value's text, not by the value's expression, which for a builtin's
//! result has no span), or, since naga converts a constant while parsing, a
//! `float16_t` literal or splat where the text wrote a `float`: `0.5`,
//! `-0.5`, `vec4(0.5)`, a global `const float` (`K`, whose literal spans
//! the use). A repaired operand's span is not always its text (naga spans
//! `v.y` as `.y` and `(a + b) * c` as `a + b) * c`), so its text is the
//! union of the spans of the expressions it is built from, grown over the
//! base of an access and to whole brackets. A text that does not parse
//! after a wrap leaves the previous parse, whose demotion is then refused.

use std::collections::HashMap;
use std::ops::Range;

use naga::front::Typifier;
use naga::proc::ResolveContext;
use naga::{
    BinaryOperator, Block, Expression, Function, Handle, Literal, Module, Scalar, ScalarKind,
    Statement, TypeInner, VectorSize,
};

use super::ir_walk;
use super::naga_run::Insert;
use super::tokens::{tokenize, Kind, Token};

/// Most rounds of wrapping and parsing again: each round's repairs make the
/// next round's operands `float`, so an expression needs about one round
/// per level of nesting that mixes the two.
pub(crate) const MAX_ROUNDS: usize = 16;

/// A `float16_t` operand to convert: its range in the finished text and the
/// constructor that converts it (`float(`, `vec4(`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Wrap {
    /// The operand's bytes in the finished text.
    pub range: Range<usize>,
    /// The opening text of the conversion.
    pub open: &'static str,
}

/// The wraps of the rounds so far, and the other inserts of the text naga
/// parses (prototypes, moved declarations): together they place naga's
/// offsets in the finished text.
#[derive(Clone, Debug)]
pub(crate) struct Promotions {
    others: Vec<Insert>,
    /// The wraps found so far.
    pub wraps: Vec<Wrap>,
}

impl Promotions {
    /// None yet, in a text with `others` inserted (as `Origin::with_inserts`
    /// gets them, before the wraps' inserts).
    pub fn new(others: Vec<Insert>) -> Promotions {
        Promotions {
            others,
            wraps: Vec::new(),
        }
    }

    /// The inserts that write the wraps into the text, to go after the
    /// others: for operands that start (end) at one offset, the one that
    /// ends later opens first (closes last), so nested wraps nest; closes
    /// before opens at one offset.
    pub fn inserts(&self) -> Vec<Insert> {
        let mut opens: Vec<&Wrap> = self.wraps.iter().collect();
        opens.sort_by_key(|w| (w.range.start, std::cmp::Reverse(w.range.end)));
        let mut closes: Vec<&Wrap> = self.wraps.iter().collect();
        closes.sort_by_key(|w| (w.range.end, std::cmp::Reverse(w.range.start)));
        let close = closes.into_iter().map(|w| Insert {
            at: w.range.end,
            text: ")".into(),
            stands_for: Some(w.range.clone()),
        });
        let open = opens.into_iter().map(|w| Insert {
            at: w.range.start,
            text: w.open.into(),
            stands_for: Some(w.range.clone()),
        });
        let mut all: Vec<Insert> = close.chain(open).collect();
        all.sort_by_key(|i| i.at);
        all
    }

    /// Where each insert is: its offset in the finished text, its length and
    /// whether it is a wrap's, in the order naga's text has them.
    fn placed(&self) -> Vec<(usize, usize, bool)> {
        let mut placed: Vec<(usize, usize, bool)> = self
            .others
            .iter()
            .map(|i| (i.at, i.text.len(), false))
            .chain(self.inserts().iter().map(|i| (i.at, i.text.len(), true)))
            .collect();
        placed.sort_by_key(|p| p.0);
        placed
    }

    /// The bytes of the finished text that `span` of naga's text covers,
    /// the wraps' own text left out; `None` where it starts or ends inside
    /// another insert.
    pub fn finished(&self, naga_text: &str, span: naga::Span) -> Option<Range<usize>> {
        let r = span.to_range()?;
        let placed = self.placed();
        let cx = Text {
            text: naga_text,
            toks: &[],
            placed: &placed,
        };
        Some(cx.finished(r.start)?..cx.finished(r.end)?)
    }

    /// The wraps that the module naga parsed from `naga_text` (the finished
    /// text with the others and these wraps inserted) still needs, none of
    /// them found before. Empty when nothing is left to repair.
    pub fn find(&self, module: &Module, naga_text: &str) -> Vec<Wrap> {
        let f16 = module
            .types
            .iter()
            .any(|(_, t)| t.inner.scalar() == Some(Scalar::F16));
        if !f16 {
            return Vec::new();
        }
        let placed = self.placed();
        let toks = tokenize(naga_text);
        let cx = Text {
            text: naga_text,
            toks: &toks,
            placed: &placed,
        };
        let mut found: Vec<Wrap> = Vec::new();
        let functions = module.functions.iter().map(|(_, f)| f);
        for f in functions.chain(module.entry_points.iter().map(|e| &e.function)) {
            for (partner, open) in partners(module, f, &cx) {
                let Some(range) = cx.extent(f, partner) else {
                    continue;
                };
                if cx.assigned(&range) {
                    continue;
                }
                let (Some(start), Some(end)) = (cx.finished(range.start), cx.finished(range.end))
                else {
                    continue;
                };
                let wrap = Wrap {
                    range: start..end,
                    open,
                };
                if start < end && !self.wraps.contains(&wrap) && !found.contains(&wrap) {
                    found.push(wrap);
                }
            }
        }
        // Nested finds of one round: the inner ones only; the outer operand
        // may be a `float` once they are (and is found again if not).
        let all = found.clone();
        found.retain(|w| {
            !all.iter()
                .any(|o| o != w && w.range.start <= o.range.start && o.range.end <= w.range.end)
        });
        found
    }
}

/// The text naga parsed and where its inserts are.
struct Text<'a> {
    text: &'a str,
    toks: &'a [Token],
    /// Each insert's offset in the finished text, length, and whether it is
    /// a wrap's, by offset.
    placed: &'a [(usize, usize, bool)],
}

impl Text<'_> {
    /// The finished-text offset of offset `p` of the parsed text; `None`
    /// inside an insert that is not a wrap's (our own code).
    fn finished(&self, p: usize) -> Option<usize> {
        let mut shift = 0;
        for &(at, len, wrap) in self.placed {
            let s = at + shift;
            if p <= s {
                break;
            }
            if p < s + len {
                return wrap.then_some(at);
            }
            shift += len;
        }
        Some(p - shift)
    }

    /// The text of `h` in `f`: the union of the spans of the expressions it
    /// is built from (declarations left out), widened to whole brackets.
    fn extent(&self, f: &Function, h: Handle<Expression>) -> Option<Range<usize>> {
        let own = f.expressions.get_span(h).to_range()?;
        let statement = self.statement_start(own.start);
        let mut range = own;
        let mut stack = vec![h];
        while let Some(e) = stack.pop() {
            match f.expressions[e] {
                Expression::GlobalVariable(_)
                | Expression::LocalVariable(_)
                | Expression::Constant(_)
                | Expression::Override(_)
                | Expression::FunctionArgument(_) => continue,
                _ => {}
            }
            if let Some(r) = f.expressions.get_span(e).to_range() {
                if r.start >= statement {
                    range = range.start.min(r.start)..range.end.max(r.end);
                }
            }
            stack.extend(operands(&f.expressions[e]));
        }
        self.whole_brackets(self.with_base(range)?)
    }

    /// `range` grown left over the base of the postfix it starts with
    /// (`[1]` of `v[1]`, `.y` of `s.v.y`, `[i]` of `f(x)[i]`): naga spans a
    /// variable by its declaration, so an access of one spans only itself.
    fn with_base(&self, mut range: Range<usize>) -> Option<Range<usize>> {
        let mut k = self.toks.iter().position(|t| t.start == range.start)?;
        while matches!(self.toks[k].text(self.text), "." | "[") && k > 0 {
            let mut p = k - 1;
            let prev = &self.toks[p];
            match prev.text(self.text) {
                "]" | ")" if prev.partner > 0 && prev.partner <= p => {
                    p -= prev.partner;
                    // A call's or constructor's name goes with its brackets.
                    if self.toks[p].is_punct(self.text, '(')
                        && p > 0
                        && self.toks[p - 1].kind == Kind::Ident
                    {
                        p -= 1;
                    }
                }
                _ if prev.kind == Kind::Ident => {}
                _ => return None,
            }
            k = p;
            range.start = self.toks[k].start;
            // `s.v`: the base of a member is to its left too.
            if k > 0 && self.toks[k - 1].is_punct(self.text, '.') {
                k -= 1;
                range.start = self.toks[k].start;
            }
        }
        Some(range)
    }

    /// The offset after the `;`, `{` or `}` before offset `p`.
    fn statement_start(&self, p: usize) -> usize {
        self.toks
            .iter()
            .take_while(|t| t.end <= p)
            .filter(|t| t.kind == Kind::Punct && matches!(t.text(self.text), ";" | "{" | "}"))
            .last()
            .map_or(0, |t| t.end)
    }

    /// `range` grown until every bracket in it has its partner in it; `None`
    /// where a bracket has none, or the range is no run of whole tokens.
    fn whole_brackets(&self, mut range: Range<usize>) -> Option<Range<usize>> {
        loop {
            let first = self.toks.iter().position(|t| t.start >= range.start)?;
            let last = self.toks.iter().rposition(|t| t.end <= range.end)?;
            if first > last
                || self.toks[first].start != range.start
                || self.toks[last].end != range.end
            {
                return None;
            }
            let mut grown = range.clone();
            for k in first..=last {
                let t = &self.toks[k];
                if t.kind != Kind::Punct {
                    continue;
                }
                match t.text(self.text) {
                    "(" | "[" if t.partner > 0 => {
                        grown.end = grown.end.max(self.toks[k + t.partner].end)
                    }
                    ")" | "]" if t.partner > 0 => {
                        grown.start = grown.start.min(self.toks[k - t.partner].start)
                    }
                    "(" | "[" | ")" | "]" => return None,
                    _ => {}
                }
            }
            if grown == range {
                return Some(range);
            }
            range = grown;
        }
    }

    /// Whether `range` is assigned to (`h *= 0.5`): GLSL refuses the
    /// `float` result there, and a wrapped target would not parse.
    fn assigned(&self, range: &Range<usize>) -> bool {
        let Some(k) = self.toks.iter().position(|t| t.start >= range.end) else {
            return false;
        };
        let punct = |i: usize| {
            self.toks
                .get(i)
                .filter(|t| t.kind == Kind::Punct)
                .map(|t| (t.text(self.text), t.start))
        };
        match (punct(k), punct(k + 1)) {
            (Some(("=", _)), next) => next.map(|n| n.0) != Some("="),
            (Some((op, at)), Some(("=", eq))) => {
                eq == at + 1 && matches!(op, "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^")
            }
            (Some(("+", at)), Some(("+", b))) | (Some(("-", at)), Some(("-", b))) => b == at + 1,
            _ => false,
        }
    }
}

/// The operands of an expression, as far as its text goes.
fn operands(e: &Expression) -> Vec<Handle<Expression>> {
    match *e {
        Expression::Access { base, index } => vec![base, index],
        Expression::AccessIndex { base, .. } => vec![base],
        Expression::Splat { value, .. } => vec![value],
        Expression::Swizzle { vector, .. } => vec![vector],
        Expression::Compose { ref components, .. } => components.clone(),
        Expression::Load { pointer } => vec![pointer],
        Expression::Unary { expr, .. } => vec![expr],
        Expression::Binary { left, right, .. } => vec![left, right],
        Expression::Select {
            condition,
            accept,
            reject,
        } => vec![condition, accept, reject],
        Expression::Relational { argument, .. } => vec![argument],
        Expression::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => [Some(arg), arg1, arg2, arg3]
            .into_iter()
            .flatten()
            .collect(),
        Expression::As { expr, .. } => vec![expr],
        Expression::ArrayLength(e) => vec![e],
        _ => Vec::new(),
    }
}

/// The operators whose `float` operand makes GLSL promote the other.
fn promotes(op: BinaryOperator) -> bool {
    use BinaryOperator as B;
    matches!(
        op,
        B::Add
            | B::Subtract
            | B::Multiply
            | B::Divide
            | B::Less
            | B::LessEqual
            | B::Greater
            | B::GreaterEqual
            | B::Equal
            | B::NotEqual
    )
}

/// The builtins glslang resolves to their `float` forms when one argument
/// is a `float` and another a `float16_t` (at parse time they are calls of
/// `fp16_builtins.rs`'s prototypes).
const FLOAT_FORMS: &[&str] = &["pow", "atan"];

/// The `float16_t` operands beside a demoted `float` in `f` that GLSL would
/// promote, each with the constructor that promotes it.
fn partners(module: &Module, f: &Function, cx: &Text) -> Vec<(Handle<Expression>, &'static str)> {
    let mut types = Typifier::new();
    let rcx = ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
    for (h, _) in f.expressions.iter() {
        if types.grow(h, &f.expressions, &rcx).is_err() {
            return Vec::new();
        }
    }
    let shape = |h: Handle<Expression>| -> Option<(Option<VectorSize>, Scalar)> {
        match *types[h].inner_with(&module.types) {
            TypeInner::Scalar(s) => Some((None, s)),
            TypeInner::Vector { size, scalar } => Some((Some(size), scalar)),
            _ => None,
        }
    };
    let implicit = demoted(module, f, cx, &shape);
    // A `float16_t` operand, and the constructor that converts it.
    let half = |h: Handle<Expression>| -> Option<&'static str> {
        if implicit.contains_key(&h) {
            return None;
        }
        match shape(h)? {
            (None, Scalar::F16) => Some("float("),
            (Some(VectorSize::Bi), Scalar::F16) => Some("vec2("),
            (Some(VectorSize::Tri), Scalar::F16) => Some("vec3("),
            (Some(VectorSize::Quad), Scalar::F16) => Some("vec4("),
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut pair = |a: Handle<Expression>, b: Handle<Expression>, exact_is_fine: bool| {
        for (x, y) in [(a, b), (b, a)] {
            let Some(&exact) = implicit.get(&x) else {
                continue;
            };
            if exact && exact_is_fine {
                continue;
            }
            if let Some(open) = half(y) {
                out.push((y, open));
            }
        }
    };
    for (_, e) in f.expressions.iter() {
        if let Expression::Binary { op, left, right } = *e {
            if promotes(op) {
                pair(left, right, false);
            }
        }
    }
    ir_walk::each(&f.body, &mut |s, _| match s {
        Statement::If { accept, reject, .. } => {
            if let (Some(a), Some(b)) = (temporary_store(f, accept), temporary_store(f, reject)) {
                pair(a, b, true);
            }
        }
        Statement::Call {
            function,
            arguments,
            ..
        } => {
            let callee = &module.functions[*function];
            let is_float_form = callee.body.is_empty()
                && callee
                    .name
                    .as_deref()
                    .is_some_and(|n| FLOAT_FORMS.contains(&n))
                && arguments.len() == 2;
            if is_float_form {
                pair(arguments[0], arguments[1], false);
            }
        }
        _ => {}
    });
    out
}

/// The value the last statement of `block` stores into a temporary of
/// naga's (an unnamed local: the result of a `?:`).
fn temporary_store(f: &Function, block: &Block) -> Option<Handle<Expression>> {
    match block.last()? {
        Statement::Store { pointer, value } => match f.expressions[*pointer] {
            Expression::LocalVariable(l) if f.local_variables[l].name.is_none() => Some(*value),
            _ => None,
        },
        _ => None,
    }
}

/// The expressions of `f` that are a `float` naga converted to `float16_t`
/// without the text asking, and whether each is a literal 16 bits hold
/// exactly. A conversion is implicit unless its text is a `float16_t` or
/// `f16vecN` constructor: naga spans an implicit one by the value's text,
/// which is not always the span of the value's expression (a builtin's
/// result has none).
fn demoted(
    module: &Module,
    f: &Function,
    cx: &Text,
    shape: &dyn Fn(Handle<Expression>) -> Option<(Option<VectorSize>, Scalar)>,
) -> HashMap<Handle<Expression>, bool> {
    let mut out = HashMap::new();
    let literal = |h: Handle<Expression>, v: f64| {
        let span = f.expressions.get_span(h);
        written_float(module, cx, span.to_range()).map(|w| w == Some(v))
    };
    for (h, e) in f.expressions.iter() {
        let found = match *e {
            Expression::As {
                expr,
                kind: ScalarKind::Float,
                convert: Some(2),
            } => (shape(expr).map(|s| s.1) == Some(Scalar::F32)
                && !cx.constructs_f16(f.expressions.get_span(h)))
            .then_some(false),
            Expression::Literal(Literal::F16(v)) => literal(h, f64::from(v)),
            Expression::Splat { value, .. } => match f.expressions[value] {
                Expression::Literal(Literal::F16(v)) => literal(h, f64::from(v)),
                _ => None,
            },
            _ => None,
        };
        if let Some(exact) = found {
            out.insert(h, exact);
        }
    }
    out
}

/// Whether the text at `range` is a `float` constant the text did not
/// convert (`0.5`, `-(0.5)`, `vec4(0.5)`, `1.0 / 3.0`, a global `const
/// float`): `Some` with its value where it is a plain number, `None` where
/// it names a 16-bit type or holds no `float` at all (an `int` literal:
/// glslang refuses `h * 2`).
fn written_float(module: &Module, cx: &Text, range: Option<Range<usize>>) -> Option<Option<f64>> {
    let range = range?;
    let toks: Vec<&Token> = cx
        .toks
        .iter()
        .filter(|t| t.start >= range.start && t.end <= range.end)
        .collect();
    let mut float = false;
    for t in &toks {
        let s = t.text(cx.text);
        match t.kind {
            Kind::Number => {
                let hex = s.starts_with("0x") || s.starts_with("0X");
                if !hex && (s.contains(['.', 'e', 'E']) || s.ends_with(['f', 'F'])) {
                    float = true;
                }
                if s.ends_with("hf") || s.ends_with("HF") {
                    return None;
                }
            }
            Kind::Ident => {
                let f32_constant = module.constants.iter().any(|(_, c)| {
                    c.name.as_deref() == Some(s)
                        && module.types[c.ty].inner.scalar() == Some(Scalar::F32)
                });
                if matches!(s, "float" | "vec2" | "vec3" | "vec4") || f32_constant {
                    float = true;
                } else {
                    return None;
                }
            }
            Kind::Punct | Kind::Str => {}
        }
    }
    if !float {
        return None;
    }
    // The value where the text is one number (signs, brackets and a `float`
    // or `vecN` constructor around it).
    let numbers: Vec<&&Token> = toks.iter().filter(|t| t.kind == Kind::Number).collect();
    let constants = toks.iter().any(|t| {
        t.kind == Kind::Ident && !matches!(t.text(cx.text), "float" | "vec2" | "vec3" | "vec4")
    });
    let negative = toks.iter().filter(|t| t.text(cx.text) == "-").count() % 2 == 1;
    let value = match numbers.as_slice() {
        [n] if !constants => n
            .text(cx.text)
            .trim_end_matches(['f', 'F'])
            .parse::<f64>()
            .ok()
            .map(|v| if negative { -v } else { v }),
        _ => None,
    };
    Some(value)
}

/// The conversions of a `float` to `float16_t` left after the repairs that
/// GLSL refuses and `fp16_widening::demotions` does not see, by span: a
/// `float` stored into a `float16_t` or passed for a `float16_t` parameter
/// (glslang: "cannot convert", "no matching overloaded function"), or beside
/// a `float16_t` operand of an operator or a builtin (where the repair could
/// not wrap the operand, and builtins glslang finds ambiguous). A literal 16
/// bits hold exactly passes, as `fp16_widening::demotions` lets it (the
/// value is the same). Run after the float16 builtins are lowered: a call
/// left is of a function with a body.
pub(crate) fn refused_conversions(module: &Module, naga_text: &str) -> Vec<naga::Span> {
    let toks = tokenize(naga_text);
    let cx = Text {
        text: naga_text,
        toks: &toks,
        placed: &[],
    };
    let mut out = Vec::new();
    let functions = module.functions.iter().map(|(_, f)| f);
    for f in functions.chain(module.entry_points.iter().map(|e| &e.function)) {
        let mut types = Typifier::new();
        let rcx = ResolveContext::with_locals(module, &f.local_variables, &f.arguments);
        if f.expressions
            .iter()
            .any(|(h, _)| types.grow(h, &f.expressions, &rcx).is_err())
        {
            continue;
        }
        let shape = |h: Handle<Expression>| -> Option<(Option<VectorSize>, Scalar)> {
            match *types[h].inner_with(&module.types) {
                TypeInner::Scalar(s) => Some((None, s)),
                TypeInner::Vector { size, scalar } => Some((Some(size), scalar)),
                _ => None,
            }
        };
        let implicit = demoted(module, f, &cx, &shape);
        let mut refuse = |h: Handle<Expression>| {
            if implicit.get(&h) == Some(&false) {
                out.push(f.expressions.get_span(h));
            }
        };
        for (_, e) in f.expressions.iter() {
            match *e {
                Expression::Binary { op, left, right } if promotes(op) => {
                    refuse(left);
                    refuse(right);
                }
                Expression::Math {
                    arg,
                    arg1,
                    arg2,
                    arg3,
                    ..
                } => [Some(arg), arg1, arg2, arg3]
                    .into_iter()
                    .flatten()
                    .for_each(&mut refuse),
                _ => {}
            }
        }
        ir_walk::each(&f.body, &mut |s, _| match s {
            Statement::Store { value, .. } => refuse(*value),
            Statement::Call { arguments, .. } => arguments.iter().for_each(|&a| refuse(a)),
            _ => {}
        });
    }
    out
}

impl Text<'_> {
    /// Whether the text at `span` is a call of a `float16_t` or `f16vecN`
    /// constructor: an explicit conversion.
    fn constructs_f16(&self, span: naga::Span) -> bool {
        let Some(r) = span.to_range() else {
            return false;
        };
        let mut toks = self.toks.iter().skip_while(|t| t.start < r.start);
        let name = toks
            .next()
            .filter(|t| t.end <= r.end)
            .map(|t| t.text(self.text));
        let open = toks.next().is_some_and(|t| t.is_punct(self.text, '('));
        open && matches!(name, Some("float16_t" | "f16vec2" | "f16vec3" | "f16vec4"))
    }
}
