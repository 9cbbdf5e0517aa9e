//! Prints, one a line, the lines of a Rust file on which a statement starts (docs/execution.md,
//! "Executable lines"): a block's `let`, expression (not a bare `{ … }`) or macro statement, not its
//! items; a match arm's or a closure's body that is not a block; the `if` of an `else if`.
use proc_macro2::Span;
use std::collections::BTreeSet;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

#[derive(Default)]
struct Lines(BTreeSet<usize>);

impl Lines {
    fn at(&mut self, span: Span) {
        self.0.insert(span.start().line);
    }
}

/// Where an expression's own code starts: after its outer attributes (`#[cfg(x)] return y;`).
fn code_start(e: &syn::Expr) -> Span {
    use proc_macro2::TokenTree;
    use quote::ToTokens;
    let mut tokens = e.to_token_stream().into_iter().peekable();
    while let Some(TokenTree::Punct(p)) = tokens.peek() {
        if p.as_char() != '#' {
            break;
        }
        tokens.next();
        tokens.next(); // the attribute's [ … ]
    }
    tokens.next().map_or_else(|| e.span(), |t| t.span())
}

fn is_block(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Block(_))
}

impl<'a> Visit<'a> for Lines {
    fn visit_block(&mut self, b: &'a syn::Block) {
        for s in &b.stmts {
            match s {
                syn::Stmt::Local(l) => self.at(l.let_token.span),
                syn::Stmt::Expr(e, _) if !is_block(e) => self.at(code_start(e)),
                syn::Stmt::Macro(m) => self.at(m.mac.path.span()),
                _ => {}
            }
        }
        visit::visit_block(self, b);
    }
    fn visit_arm(&mut self, a: &'a syn::Arm) {
        if !is_block(&a.body) {
            self.at(code_start(&a.body));
        }
        visit::visit_arm(self, a);
    }
    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        if !is_block(&c.body) {
            self.at(code_start(&c.body));
        }
        visit::visit_expr_closure(self, c);
    }
    fn visit_expr_if(&mut self, i: &'a syn::ExprIf) {
        if let Some((_, e)) = &i.else_branch {
            if let syn::Expr::If(inner) = &**e {
                self.at(inner.if_token.span);
            }
        }
        visit::visit_expr_if(self, i);
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: rust-statement-lines FILE");
    let text = std::fs::read_to_string(&path).expect("read the file");
    let file = syn::parse_file(&text).expect("parse the file");
    let mut lines = Lines::default();
    lines.visit_file(&file);
    for l in lines.0 {
        println!("{l}");
    }
}
