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

    /// Render all diagnostics, sorted by position, without colour.
    pub fn render(&self, origin: &str, source: &str) -> String {
        let mut items = self.items.clone();
        items.sort_by(|a, b| (a.span.start, &a.message).cmp(&(b.span.start, &b.message)));
        items.dedup();
        let renderer = Renderer::plain();
        // Each diagnostic renders only the lines its span covers (found by binary search
        // over the line starts), so a spec with many errors renders in linear time.
        let line_starts: Vec<usize> =
            std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let mut out = String::new();
        for d in &items {
            let span = clamp_span(&d.span, source);
            let first = line_starts.partition_point(|&s| s <= span.start) - 1;
            let last = line_starts.partition_point(|&s| s <= span.end.saturating_sub(1).max(span.start)) - 1;
            let begin = line_starts[first];
            let end = line_starts.get(last + 1).copied().unwrap_or(source.len());
            let mut msg = Level::Error.title(&d.message).snippet(
                Snippet::source(&source[begin..end])
                    .origin(origin)
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
        out.push_str(&format!("error: {origin}: {n} error{} found\n", if n == 1 { "" } else { "s" }));
        out
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
