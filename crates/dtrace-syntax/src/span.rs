//! Source files and byte spans.
//!
//! Every AST node carries a [`Span`]; diagnostics point at spans and are rendered
//! only at the edge (the CLI), where the [`SourceMap`] turns them into line numbers.

/// Index of a source file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SourceId(pub u32);

/// A half-open byte range `[lo, hi)` in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub source: SourceId,
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(source: SourceId, lo: u32, hi: u32) -> Span {
        Span { source, lo, hi }
    }

    /// The smallest span covering both `self` and `other` (same source assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            source: self.source,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// How a source was given to dtrace(1); decides the wording of compile errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceKind {
    /// `-s file`: errors read `failed to compile script FILE: line N: ...`.
    Script { path: String },
    /// `-n desc` (or `-P/-m/-f/-i`): errors read `invalid probe specifier DESC: ...`.
    ProbeSpecifier,
    /// A D library compiled in by the tool itself.
    Library { name: String },
}

/// A C preprocessor line marker (`# 12 "foo.d"` or `#line 12`): the line
/// starting at byte `offset` is line `line` of `file` (or of the same file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMarker {
    pub offset: u32,
    pub line: u32,
    pub file: Option<String>,
    /// How deep in `#include`s the text after the marker is: cpp's flag `1`
    /// after the file name enters an included file, flag `2` returns from one
    /// (0 is the script itself).
    pub depth: u32,
}

/// Find the line markers the C preprocessor left in `text` (`# 12 "foo.d"`,
/// `#line 12`), for [`SourceFile::set_line_markers`]. A dtrace(1) that runs
/// cpp (`-C`) installs them so errors name the user's lines.
pub fn scan_line_markers(text: &str) -> Vec<LineMarker> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut depth = 0u32;
    for line in text.split_inclusive('\n') {
        let next = (offset + line.len()) as u32;
        offset += line.len();
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let mut first = words.next().unwrap_or("");
        if first == "line" {
            first = words.next().unwrap_or("");
        }
        let Ok(n) = first.parse::<u32>() else {
            continue;
        };
        let file = words
            .next()
            .and_then(|f| f.strip_prefix('"'))
            .and_then(|f| f.strip_suffix('"'))
            .map(|f| f.to_string());
        if file.is_some() {
            for flag in words {
                match flag {
                    "1" => depth = depth.saturating_add(1),
                    "2" => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        out.push(LineMarker {
            offset: next,
            line: n,
            file,
            depth,
        });
    }
    out
}

/// One source text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub kind: SourceKind,
    pub text: String,
    /// The text as the user wrote it, when `text` was derived from it (a
    /// `-P/-m/-f/-i` argument made a probe description): messages show this.
    pub shown: Option<String>,
    line_starts: Vec<u32>,
    /// Sorted by offset; see [`SourceFile::set_line_markers`].
    line_markers: Vec<LineMarker>,
}

impl SourceFile {
    pub fn new(kind: SourceKind, text: String) -> SourceFile {
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push((i + 1) as u32);
            }
        }
        SourceFile {
            kind,
            text,
            shown: None,
            line_starts,
            line_markers: Vec::new(),
        }
    }

    /// Install preprocessor line markers (from [`scan_line_markers`]), so
    /// that [`SourceFile::logical_line`] reports lines as the user wrote them.
    pub fn set_line_markers(&mut self, mut markers: Vec<LineMarker>) {
        markers.sort_by_key(|m| m.offset);
        self.line_markers = markers;
    }

    /// The line number to show for a byte offset: the physical line, or the
    /// line a preprocessor marker says it is.
    pub fn logical_line(&self, offset: u32) -> u32 {
        let (line, _) = self.line_col(offset);
        let idx = self.line_markers.partition_point(|m| m.offset <= offset);
        let Some(m) = idx.checked_sub(1).and_then(|i| self.line_markers.get(i)) else {
            return line;
        };
        let (marker_line, _) = self.line_col(m.offset);
        m.line.saturating_add(line.saturating_sub(marker_line))
    }

    /// The file a preprocessor marker says the byte at `offset` comes from
    /// (`None` without markers, or if no marker before it names a file).
    pub fn logical_file(&self, offset: u32) -> Option<&str> {
        let idx = self.line_markers.partition_point(|m| m.offset <= offset);
        self.line_markers
            .get(..idx)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find_map(|m| m.file.as_deref())
    }

    /// Whether the byte at `offset` comes from a file the script `#include`d
    /// (cpp's line markers say so); false without markers.
    pub fn in_include(&self, offset: u32) -> bool {
        let idx = self.line_markers.partition_point(|m| m.offset <= offset);
        idx.checked_sub(1)
            .and_then(|i| self.line_markers.get(i))
            .is_some_and(|m| m.depth > 0)
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        (line as u32 + 1, offset.saturating_sub(start) + 1)
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let idx = line.saturating_sub(1) as usize;
        let start = self.line_starts.get(idx).copied().unwrap_or(0) as usize;
        let end = self
            .line_starts
            .get(idx + 1)
            .map(|e| (*e as usize).saturating_sub(1))
            .unwrap_or(self.text.len());
        self.text.get(start..end.max(start)).unwrap_or("")
    }
}

/// All sources of one compilation.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, kind: SourceKind, text: String) -> SourceId {
        self.files.push(SourceFile::new(kind, text));
        SourceId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: SourceId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn get_mut(&mut self, id: SourceId) -> Option<&mut SourceFile> {
        self.files.get_mut(id.0 as usize)
    }

    /// The text covered by a span ("" if out of range).
    pub fn snippet(&self, span: Span) -> &str {
        self.get(span.source)
            .and_then(|f| f.text.get(span.lo as usize..span.hi as usize))
            .unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let f = SourceFile::new(SourceKind::ProbeSpecifier, "ab\ncd\n\nx".into());
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(1), (1, 2));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(7), (4, 1));
        assert_eq!(f.line_text(2), "cd");
        assert_eq!(f.line_text(3), "");
        assert_eq!(f.line_text(4), "x");
    }

    #[test]
    fn line_markers() {
        let mut f = SourceFile::new(SourceKind::ProbeSpecifier, "a\n# 10 \"x.d\"\nb\nc\n".into());
        assert_eq!(f.logical_line(0), 1);
        f.set_line_markers(vec![LineMarker {
            offset: 13,
            line: 10,
            file: Some("x.d".into()),
            depth: 0,
        }]);
        assert_eq!(f.logical_line(0), 1);
        assert_eq!(f.logical_line(13), 10);
        assert_eq!(f.logical_line(15), 11);
        assert_eq!(f.logical_file(0), None);
        assert_eq!(f.logical_file(15), Some("x.d"));
        assert_eq!(scan_line_markers(&f.text), f.line_markers);
        assert_eq!(
            scan_line_markers("#line 7\nx\n  # 3\n"),
            vec![
                LineMarker {
                    offset: 8,
                    line: 7,
                    file: None,
                    depth: 0
                },
                LineMarker {
                    offset: 16,
                    line: 3,
                    file: None,
                    depth: 0
                }
            ]
        );
    }

    #[test]
    fn include_depth() {
        // What cpp writes for a script that includes a header, which
        // includes another.
        let text = "# 0 \"/dev/stdin\"\n\
                    # 1 \"/dev/stdin\"\n\
                    # 1 \"/usr/include/a.h\" 1 3 4\n\
                    typedef int a_t;\n\
                    # 1 \"/usr/include/b.h\" 1 3 4\n\
                    typedef int b_t;\n\
                    # 3 \"/usr/include/a.h\" 2 3 4\n\
                    typedef int c_t;\n\
                    # 2 \"/dev/stdin\" 2\n\
                    BEGIN {}\n";
        let mut f = SourceFile::new(SourceKind::ProbeSpecifier, text.into());
        f.set_line_markers(scan_line_markers(text));
        let at = |s: &str| text.find(s).map(|i| i as u32).unwrap_or(0);
        assert!(!f.in_include(0));
        assert!(f.in_include(at("typedef int a_t")));
        assert!(f.in_include(at("typedef int b_t")));
        assert!(f.in_include(at("typedef int c_t")));
        assert!(!f.in_include(at("BEGIN")));
        let depths: Vec<u32> = scan_line_markers(text).iter().map(|m| m.depth).collect();
        assert_eq!(depths, [0, 0, 1, 2, 1, 0]);
    }
}
