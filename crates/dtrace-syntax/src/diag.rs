//! Diagnostics as values: a `D_*` tag, a primary span, a message and notes.
//!
//! Architecture invariant: no stage prints or aborts on a user error; it returns
//! [`Diagnostic`]s. Only the CLI renders them, with [`render_dtrace`] (dtrace(1)'s
//! exact one-line form) and [`render_rich`] (file:line:col, source line, caret).

use crate::span::{SourceKind, SourceMap, Span};
use std::fmt;

macro_rules! tags {
    ($($name:ident),* $(,)?) => {
        /// DTrace's stable compile-error tags (`-xerrtags` shows them).
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Tag { $($name),* }

        impl Tag {
            /// The tag's name as dtrace(1) prints it, e.g. `D_SYNTAX`.
            pub fn name(self) -> &'static str {
                match self { $(Tag::$name => stringify!($name)),* }
            }

            /// Every tag, for tests that check each one has a case.
            pub const ALL: &'static [Tag] = &[$(Tag::$name),*];
        }
    };
}

tags! {
    // libdtrace's dt_errtags.h (Oracle DTrace for Linux), in its order, then
    // D_PRINT_SIZE (print( ) of an object too large to record) and illumos'
    // D_NOREG (register exhaustion).
    D_UNKNOWN,
    D_SYNTAX,
    D_EMPTY,
    D_TYPE_ERR,
    D_TYPE_MEMBER,
    D_ASRELO,
    D_CG_EXPR,
    D_CG_DYN,
    D_ATTR_MIN,
    D_ID_OFLOW,
    D_PDESC_ZERO,
    D_PDESC_INVAL,
    D_PRED_SCALAR,
    D_FUNC_IDENT,
    D_FUNC_UNDEF,
    D_FUNC_IDKIND,
    D_OFFSETOF_TYPE,
    D_OFFSETOF_BITFIELD,
    D_SIZEOF_TYPE,
    D_SIZEOF_BITFIELD,
    D_STRINGOF_TYPE,
    D_OP_IDENT,
    D_OP_INT,
    D_OP_SCALAR,
    D_OP_ARITH,
    D_OP_WRITE,
    D_OP_LVAL,
    D_OP_INCOMPAT,
    D_OP_VFPTR,
    D_OP_ARRFUN,
    D_OP_PTR,
    D_OP_SOU,
    D_OP_INCOMPLETE,
    D_OP_DYN,
    D_OP_ACT,
    D_AGG_REDEF,
    D_AGG_FUNC,
    D_AGG_MDIM,
    D_ARR_BADREF,
    D_ARR_BOUNDS,
    D_ARR_LOCAL,
    D_DIV_ZERO,
    D_DEREF_NONPTR,
    D_DEREF_VOID,
    D_DEREF_FUNC,
    D_ADDROF_LVAL,
    D_ADDROF_VAR,
    D_ADDROF_BITFIELD,
    D_XLATE_REDECL,
    D_XLATE_NOCONV,
    D_XLATE_NONE,
    D_XLATE_SOU,
    D_XLATE_INCOMPAT,
    D_XLATE_MEMB,
    D_CAST_INVAL,
    D_PRAGERR,
    D_PRAGCTL_INVAL,
    D_PRAGMA_INVAL,
    D_PRAGMA_UNUSED,
    D_PRAGMA_MALFORM,
    D_PRAGMA_OPTSET,
    D_PRAGMA_SCOPE,
    D_PRAGMA_DEPEND,
    D_MACRO_UNDEF,
    D_MACRO_OFLOW,
    D_MACRO_UNUSED,
    D_INT_OFLOW,
    D_INT_DIGIT,
    D_STR_NL,
    D_CHR_NL,
    D_CHR_NULL,
    D_CHR_OFLOW,
    D_IDENT_BADREF,
    D_IDENT_UNDEF,
    D_IDENT_AMBIG,
    D_SYM_BADREF,
    D_SYM_NOTYPES,
    D_SYM_MODEL,
    D_VAR_UNDEF,
    D_VAR_UNSUP,
    D_PROTO_LEN,
    D_PROTO_ARG,
    D_ARGS_MULTI,
    D_ARGS_XLATOR,
    D_ARGS_NONE,
    D_ARGS_TYPE,
    D_ARGS_IDX,
    D_REGS_IDX,
    D_KEY_TYPE,
    D_PRINTF_DYN_PROTO,
    D_PRINTF_DYN_TYPE,
    D_PRINTF_AGG_CONV,
    D_PRINTF_ARG_PROTO,
    D_PRINTF_ARG_TYPE,
    D_PRINTF_ARG_EXTRA,
    D_PRINTF_ARG_FMT,
    D_PRINTF_FMT_EMPTY,
    D_DECL_CHARATTR,
    D_DECL_VOIDATTR,
    D_DECL_SIGNINT,
    D_DECL_LONGINT,
    D_DECL_IDENT,
    D_DECL_CLASS,
    D_DECL_BADCLASS,
    D_DECL_PARMCLASS,
    D_DECL_COMBO,
    D_DECL_ARRSUB,
    D_DECL_ARRNULL,
    D_DECL_ARRBIG,
    D_DECL_IDRED,
    D_DECL_TYPERED,
    D_DECL_MNAME,
    D_DECL_SCOPE,
    D_DECL_BFCONST,
    D_DECL_BFSIZE,
    D_DECL_BFTYPE,
    D_DECL_ENCONST,
    D_DECL_ENOFLOW,
    D_DECL_USELESS,
    D_DECL_LOCASSC,
    D_DECL_VOIDOBJ,
    D_DECL_DYNOBJ,
    D_DECL_INCOMPLETE,
    D_DECL_PROTO_VARARGS,
    D_DECL_PROTO_TYPE,
    D_DECL_PROTO_VOID,
    D_DECL_PROTO_NAME,
    D_DECL_PROTO_FORM,
    D_COMM_DREC,
    D_SPEC_SPEC,
    D_SPEC_COMM,
    D_SPEC_DREC,
    D_AGG_COMM,
    D_AGG_SPEC,
    D_AGG_NULL,
    D_AGG_SCALAR,
    D_ACT_SPEC,
    D_EXIT_SPEC,
    D_DREC_COMM,
    D_PRINTA_PROTO,
    D_PRINTA_AGGARG,
    D_PRINTA_AGGBAD,
    D_PRINTA_AGGKEY,
    D_PRINTA_AGGPROTO,
    D_TRACE_VOID,
    D_TRACE_DYN,
    D_TRACEMEM_ADDR,
    D_TRACEMEM_SIZE,
    D_STACK_PROTO,
    D_STACK_SIZE,
    D_USTACK_FRAMES,
    D_USTACK_STRSIZE,
    D_USTACK_PROTO,
    D_ALLOCA_SIZE,
    D_ALLOCA_INCOMPAT,
    D_LQUANT_BASETYPE,
    D_LQUANT_BASEVAL,
    D_LQUANT_LIMTYPE,
    D_LQUANT_LIMVAL,
    D_LQUANT_MISMATCH,
    D_LQUANT_STEPTYPE,
    D_LQUANT_STEPVAL,
    D_LQUANT_STEPLARGE,
    D_LQUANT_STEPSMALL,
    D_QUANT_PROTO,
    D_PROC_OFF,
    D_PROC_ALIGN,
    D_PROC_NAME,
    D_PROC_GRAB,
    D_PROC_DYN,
    D_PROC_LIB,
    D_PROC_FUNC,
    D_PROC_CREATEFAIL,
    D_PROC_NODEV,
    D_PROC_BADPID,
    D_PROC_BADPROV,
    D_PROC_USDT,
    D_CLEAR_PROTO,
    D_CLEAR_AGGARG,
    D_CLEAR_AGGBAD,
    D_NORMALIZE_PROTO,
    D_NORMALIZE_SCALAR,
    D_NORMALIZE_AGGARG,
    D_NORMALIZE_AGGBAD,
    D_TRUNC_SCALAR,
    D_TRUNC_AGGARG,
    D_TRUNC_AGGBAD,
    D_PROV_BADNAME,
    D_PROV_INCOMPAT,
    D_PROV_PRDUP,
    D_PROV_PRARGLEN,
    D_PROV_PRXLATOR,
    D_FREOPEN_INVALID,
    D_LQUANT_MATCHBASE,
    D_LQUANT_MATCHLIM,
    D_LQUANT_MATCHSTEP,
    D_LLQUANT_FACTORTYPE,
    D_LLQUANT_FACTORVAL,
    D_LLQUANT_LMAGTYPE,
    D_LLQUANT_LMAGVAL,
    D_LLQUANT_HMAGTYPE,
    D_LLQUANT_HMAGVAL,
    D_LLQUANT_STEPTYPE,
    D_LLQUANT_STEPVAL,
    D_LLQUANT_MATCHFACTOR,
    D_LLQUANT_MATCHLMAG,
    D_LLQUANT_MATCHHMAG,
    D_LLQUANT_MATCHSTEPS,
    D_PCAP_ADDR,
    D_PCAP_PROTO,
    D_PCAP_SIZE,
    D_PRINT_SIZE,
    D_NOREG,
    D_IF_SCALAR,
    D_COMM_COMM,
    D_ACT_NO_REC,
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A compile-time diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub tag: Tag,
    /// Primary span; `None` for errors that have no place in the source
    /// (for example a probe description given on the command line that matched nothing).
    pub span: Option<Span>,
    pub message: String,
    pub notes: Vec<String>,
    /// Reported without a line number (as libdtrace reports errors of code
    /// generation), though the span still places it for the rich form.
    pub lineless: bool,
    /// Where dtrace(1)'s one-line form takes the line from; the rich form
    /// always marks `span`.
    pub line: LinePlace,
}

/// The place whose line dtrace(1) reports. libdtrace gives a node the lexer's
/// line at the moment the parser makes it, which for some nodes is past the
/// node's own text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinePlace {
    /// The start of the span.
    #[default]
    Span,
    /// The token after the span (a cast).
    NextToken,
    /// A place the parser recorded (a binary operator's errors: see
    /// `ExprKind::Binary::at`).
    At(Span),
}

impl Diagnostic {
    pub fn new(tag: Tag, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            tag,
            span: Some(span),
            message: message.into(),
            notes: Vec::new(),
            lineless: false,
            line: LinePlace::Span,
        }
    }

    pub fn spanless(tag: Tag, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            tag,
            span: None,
            message: message.into(),
            notes: Vec::new(),
            lineless: false,
            line: LinePlace::Span,
        }
    }

    /// See [`Diagnostic::lineless`].
    pub fn without_line(mut self) -> Diagnostic {
        self.lineless = true;
        self
    }

    /// Report the line of the token after the span ([`LinePlace::NextToken`]).
    pub fn at_line_after(mut self) -> Diagnostic {
        self.line = LinePlace::NextToken;
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// Render options for [`render_dtrace`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions {
    /// `-xerrtags`: prefix the message with `[D_TAG] `.
    pub errtags: bool,
}

/// dtrace(1)'s exact form, without the trailing newline:
/// `dtrace: failed to compile script F: line N: message` for `-s`,
/// `dtrace: invalid probe specifier TEXT: message` for `-n`.
pub fn render_dtrace(map: &SourceMap, d: &Diagnostic, opts: RenderOptions) -> String {
    let tag = if opts.errtags {
        format!("[{}] ", d.tag.name())
    } else {
        String::new()
    };
    let file = d.span.and_then(|s| map.get(s.source).map(|f| (s, f)));
    match file {
        Some((span, f)) => {
            let at = match d.line {
                LinePlace::Span => span.lo,
                LinePlace::NextToken => next_token(&f.text, span.hi),
                LinePlace::At(a) if a.source == span.source => a.lo,
                LinePlace::At(_) => span.lo,
            };
            let line = f.logical_line(at);
            match &f.kind {
                // A line from another file (a cpp #include) names that file,
                // as dtrace(1) does: `"inc.h", line 3: `.
                SourceKind::Script { path } => match f.logical_file(span.lo) {
                    Some(other) if other != path && !is_stdin(other) => format!(
                        "dtrace: failed to compile script {}: {}\"{}\", line {}: {}",
                        path, tag, other, line, d.message
                    ),
                    _ if d.lineless => format!(
                        "dtrace: failed to compile script {}: {}{}",
                        path, tag, d.message
                    ),
                    _ => format!(
                        "dtrace: failed to compile script {}: {}line {}: {}",
                        path, tag, line, d.message
                    ),
                },
                SourceKind::ProbeSpecifier => format!(
                    "dtrace: invalid probe specifier {}: {}{}",
                    f.shown.as_deref().unwrap_or(&f.text),
                    tag,
                    d.message
                ),
                SourceKind::Library { name } => format!(
                    "dtrace: failed to compile library {}: {}line {}: {}",
                    name, tag, line, d.message
                ),
            }
        }
        None => format!("dtrace: {}{}", tag, d.message),
    }
}

/// Offset of the first token at or after `from` in `text` (white space and
/// comments skipped), or the end of the text.
fn next_token(text: &str, from: u32) -> u32 {
    let b = text.as_bytes();
    let mut i = from as usize;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"/*") {
            i = match text.get(i + 2..).and_then(|r| r.find("*/")) {
                Some(n) => i + 2 + n + 2,
                None => b.len(),
            };
        } else if b[i..].starts_with(b"//") {
            i = match text.get(i..).and_then(|r| r.find('\n')) {
                Some(n) => i + n,
                None => b.len(),
            };
        } else {
            break;
        }
    }
    i.min(b.len()) as u32
}

/// A line marker naming the preprocessor's standard input: the script itself.
fn is_stdin(file: &str) -> bool {
    file == "<stdin>" || file == "/dev/stdin"
}

/// The rich form: `file:line:col: error[D_TAG]: message`, the source line and a caret.
pub fn render_rich(map: &SourceMap, d: &Diagnostic) -> String {
    let mut out = String::new();
    let Some(span) = d.span else {
        out.push_str(&format!("error[{}]: {}\n", d.tag, d.message));
        return out;
    };
    let Some(f) = map.get(span.source) else {
        out.push_str(&format!("error[{}]: {}\n", d.tag, d.message));
        return out;
    };
    // `line` indexes the text we compiled; `shown` is the user's line number
    // (they differ after the C preprocessor).
    let (line, col) = f.line_col(span.lo);
    let shown = f.logical_line(span.lo);
    let name = match (&f.kind, f.logical_file(span.lo)) {
        (SourceKind::Script { .. }, Some(other)) if !is_stdin(other) => other.to_string(),
        (SourceKind::Script { path }, _) => path.clone(),
        (SourceKind::ProbeSpecifier, _) => "<command line>".to_string(),
        (SourceKind::Library { name }, _) => name.clone(),
    };
    out.push_str(&format!(
        "{}:{}:{}: error[{}]: {}\n",
        name, shown, col, d.tag, d.message
    ));
    let text = f.line_text(line);
    let width = ((span.hi.saturating_sub(span.lo)) as usize).clamp(1, text.len().max(1));
    out.push_str(&format!("  | {}\n", text));
    out.push_str(&format!(
        "  | {}{}\n",
        " ".repeat(col.saturating_sub(1) as usize),
        "^".repeat(width)
    ));
    for n in &d.notes {
        out.push_str(&format!("  = note: {}\n", n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::SourceKind;

    #[test]
    fn line_after_is_the_next_tokens_line() {
        let mut map = SourceMap::new();
        let text = "BEGIN\n{\n  x = (int)y /* c */\n\n}\n";
        let s = map.add(
            SourceKind::Script {
                path: "foo.d".into(),
            },
            text.into(),
        );
        let lo = text.find("(int)").unwrap_or(0) as u32;
        let hi = lo + "(int)y".len() as u32;
        let d = Diagnostic::new(Tag::D_CAST_INVAL, Span::new(s, lo, hi), "m");
        let opts = RenderOptions::default();
        assert_eq!(
            render_dtrace(&map, &d, opts),
            "dtrace: failed to compile script foo.d: line 3: m"
        );
        assert_eq!(
            render_dtrace(&map, &d.at_line_after(), opts),
            "dtrace: failed to compile script foo.d: line 5: m"
        );
    }

    #[test]
    fn script_and_specifier_forms() {
        let mut map = SourceMap::new();
        let s = map.add(
            SourceKind::Script {
                path: "foo.d".into(),
            },
            "BEGIN\n{\n  x = \"a\" + 1;\n}\n".into(),
        );
        let d = Diagnostic::new(
            Tag::D_OP_ARITH,
            Span::new(s, 15, 22),
            "operator + requires operands of arithmetic type",
        );
        assert_eq!(
            render_dtrace(&map, &d, RenderOptions::default()),
            "dtrace: failed to compile script foo.d: line 3: operator + requires operands of arithmetic type"
        );
        assert_eq!(
            render_dtrace(&map, &d, RenderOptions { errtags: true }),
            "dtrace: failed to compile script foo.d: [D_OP_ARITH] line 3: operator + requires operands of arithmetic type"
        );
        let n = map.add(SourceKind::ProbeSpecifier, "BEGIN { x = }".into());
        let d = Diagnostic::new(
            Tag::D_SYNTAX,
            Span::new(n, 12, 13),
            "syntax error near \"}\"",
        );
        assert_eq!(
            render_dtrace(&map, &d, RenderOptions::default()),
            "dtrace: invalid probe specifier BEGIN { x = }: syntax error near \"}\""
        );
        let rich = render_rich(&map, &d);
        assert!(rich.contains("<command line>:1:13: error[D_SYNTAX]"));
        assert!(rich.contains("  | BEGIN { x = }\n  |             ^\n"));
    }
}
