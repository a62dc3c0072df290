//! Diagnostics: every error of a phase is collected here, then rendered together,
//! rustc-style (`file:line:col`, the source line, a caret label and a `help:` hint).
//! Rendering goes through annotate-snippets; message texts live in `catalog`.

pub mod catalog;

use annotate_snippets::{Level, Renderer, Snippet};
use std::ops::Range;

/// One problem in a spec, pointing at a byte range of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Range<usize>,
    pub message: String,
    pub label: String,
    pub help: Option<String>,
}

/// A sink for the diagnostics of one phase.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Record an error at `span`.
    pub fn error(
        &mut self,
        span: Range<usize>,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) {
        self.items.push(Diagnostic { span, message: message.into(), label: label.into(), help });
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Render all diagnostics, sorted by position, without colour. Each is shown in the
    /// file of `sources` its span falls in; the closing count names the root spec.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut items = self.items.clone();
        items.sort_by(|a, b| (a.span.start, &a.message).cmp(&(b.span.start, &b.message)));
        items.dedup();
        let renderer = Renderer::plain();
        let line_starts: Vec<Vec<usize>> = sources
            .files
            .iter()
            .map(|f| std::iter::once(0).chain(sources.text_of(f).match_indices('\n').map(|(i, _)| i + 1)).collect())
            .collect();
        let mut out = String::new();
        for d in &items {
            let k = sources.file_index(d.span.start);
            let file = &sources.files[k];
            let source = sources.text_of(file);
            let local = d.span.start.saturating_sub(file.base)..d.span.end.saturating_sub(file.base);
            // Each diagnostic renders only the lines its span covers (found by binary search
            // over the line starts), so a spec with many errors renders in linear time.
            let line_starts = &line_starts[k];
            let span = clamp_span(&local, source);
            let first = line_starts.partition_point(|&s| s <= span.start) - 1;
            let last = line_starts.partition_point(|&s| s <= span.end.saturating_sub(1).max(span.start)) - 1;
            let begin = line_starts[first];
            let end = line_starts.get(last + 1).copied().unwrap_or(source.len());
            let mut msg = Level::Error.title(&d.message).snippet(
                Snippet::source(&source[begin..end])
                    .origin(&file.origin)
                    .line_start(first + 1)
                    .fold(true)
                    .annotation(Level::Error.span(span.start - begin..span.end - begin).label(&d.label)),
            );
            if let Some(help) = &d.help {
                msg = msg.footer(Level::Help.title(help));
            }
            out.push_str(&renderer.render(msg).to_string());
            out.push_str("\n\n");
        }
        let n = items.len();
        let origin = sources.files.first().map_or("spec", |f| f.origin.as_str());
        out.push_str(&format!("error: {origin}: {n} error{} found\n", if n == 1 { "" } else { "s" }));
        out
    }
}

/// The text of a spec and of the files it includes, laid end to end so that one byte
/// offset (a `Span`) names a file and a place in it. The root spec is file 0.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    text: String,
    pub files: Vec<SourceFile>,
}

/// One file of a `SourceMap`: `origin` as diagnostics and `#line` show it, and where its
/// text starts in the map.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub origin: String,
    pub base: usize,
    pub len: usize,
}

impl SourceMap {
    /// Append a file; returns its index. A newline separates files, so no span of one
    /// file ends inside the next.
    pub fn add(&mut self, origin: &str, text: &str) -> usize {
        let base = self.text.len();
        self.text.push_str(text);
        self.text.push('\n');
        self.files.push(SourceFile { origin: origin.to_string(), base, len: text.len() });
        self.files.len() - 1
    }

    /// Everything, for spans of any file.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn text_of(&self, f: &SourceFile) -> &str {
        &self.text[f.base..f.base + f.len]
    }

    /// The file a byte offset falls in (the last one for offsets past the end).
    pub fn file_index(&self, offset: usize) -> usize {
        self.files.partition_point(|f| f.base <= offset).saturating_sub(1)
    }
}

/// Keep spans inside the source and on char boundaries, so rendering can never panic.
fn clamp_span(span: &Range<usize>, source: &str) -> Range<usize> {
    let fix = |mut i: usize| {
        i = i.min(source.len());
        while i > 0 && !source.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = fix(span.start);
    let end = fix(span.end.max(span.start)).max(start);
    start..end
}

/// 1-based line and column of a byte offset (used by tests and JSON output).
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |s| s.chars().count()) + 1;
    (line, col)
}
