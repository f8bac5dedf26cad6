//! Compiling a skill's source with a real parser (oxc): TypeScript is parsed, checked on its
//! syntax tree and stripped of its types into JavaScript; JavaScript is parsed and checked the
//! same way and runs as written. Every problem names its line and column in the source as the
//! agent wrote it.
//!
//! The checks on the tree are the seed's bans (`import`, `require`, `process`, …, `while (true)`,
//! `for (;;)`, `ctx.bot`, `ctx.mineflayer().method`) and the facts the definition checks need:
//! which `ctx.<name>` the source uses and calls, which parameters it reads, which bridge methods
//! it names. The bans are lint for a cooperative author — the sandbox enforces them at run time
//! anyway (there is nothing to import, no `process`, `eval` ends the run).

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Argument, BindingPattern, CallExpression, ComputedMemberExpression, DoWhileStatement, ExportAllDeclaration,
    ExportNamedDeclaration, Expression, ForStatement, IdentifierReference, ImportDeclaration, ImportExpression,
    MetaProperty, PropertyKey, Statement, StaticMemberExpression, StringLiteral, TSImportEqualsDeclaration,
    TSImportType, VariableDeclarator, WhileStatement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_codegen::Codegen;
use oxc_parser::Parser;
use oxc_semantic::SemanticBuilder;
use oxc_span::{GetSpan, SourceType, Span};
use oxc_transformer::{TransformOptions, Transformer};

/// The language a source is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    TypeScript,
    JavaScript,
}

/// A place in the source: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct At {
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A syntax error.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxProblem {
    pub at: Option<At>,
    pub message: String,
}

impl std::fmt::Display for SyntaxProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// One use of a banned name or construct.
#[derive(Debug, Clone, PartialEq)]
pub struct Ban {
    /// The seed's name of the rule (`import`, `fs`, `while (true)`, `ctx.bot`, …).
    pub rule: &'static str,
    pub at: At,
    /// Why it is banned.
    pub why: &'static str,
}

/// A `ctx.<name>` use.
#[derive(Debug, Clone, PartialEq)]
pub struct CtxUse {
    pub name: String,
    pub at: At,
    /// Used as `ctx.<name>(…)`.
    pub called: bool,
}

/// A parameter the source reads (`params.count`, `params["count"]`, `const { count } = params`).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamRead {
    pub key: String,
    pub at: At,
}

/// What the checks on the tree found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub bans: Vec<Ban>,
    pub ctx_uses: Vec<CtxUse>,
    pub param_reads: Vec<ParamRead>,
    /// `params` is used as a whole (passed on, iterated), so the keys it reads are not all known.
    pub params_whole: Option<At>,
    /// Method names given to `ctx.mineflayer` as string literals.
    pub bridge_methods: Vec<(String, At)>,
    /// `ctx.mineflayer` calls whose method is not a string literal (checked at run time only).
    pub bridge_dynamic: Vec<At>,
    /// Where `export async function run(ctx, params)` is, when it is there.
    pub run: Option<RunSignature>,
}

/// The `run` export.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSignature {
    pub at: At,
    pub is_async: bool,
    /// The names of its parameters (`ctx`, `params` as written).
    pub ctx_name: Option<String>,
    pub params_name: Option<String>,
}

/// A compiled source.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The JavaScript that runs (the source itself for JavaScript).
    pub js: String,
    pub facts: Facts,
}

/// Names whose use is banned wherever they appear as a name (reference or binding).
const BANNED_NAMES: &[(&str, &str, &str)] = &[
    ("require", "require", "there is no module loader; helpers come through ctx"),
    ("process", "process", "no process access in skills"),
    ("Bun", "Bun", "no runtime globals in skills"),
    ("Deno", "Deno", "no runtime globals in skills"),
    ("eval", "eval", "no code generation at run time"),
    ("Function", "Function", "no code generation at run time"),
    ("child_process", "child_process", "no processes in skills"),
    ("fs", "fs", "no filesystem access in skills"),
    ("net", "net", "no network access in skills"),
    ("http", "http", "no network access in skills"),
    ("https", "https", "no network access in skills"),
    ("__dirname", "filesystem", "no filesystem access in skills"),
    ("__filename", "filesystem", "no filesystem access in skills"),
    ("readFile", "filesystem", "no filesystem access in skills"),
    ("readFileSync", "filesystem", "no filesystem access in skills"),
    ("writeFile", "filesystem", "no filesystem access in skills"),
    ("writeFileSync", "filesystem", "no filesystem access in skills"),
    ("fetch", "network", "no network access in skills"),
    ("XMLHttpRequest", "network", "no network access in skills"),
    ("WebSocket", "network", "no network access in skills"),
    ("EventSource", "network", "no network access in skills"),
];

/// Module names banned as string literals (`require("fs")`, `import … from "node:fs"`).
fn banned_module(s: &str) -> Option<(&'static str, &'static str)> {
    let bare = s.strip_prefix("node:").unwrap_or(s);
    let base = bare.split('/').next().unwrap_or(bare);
    let rule = match (s.starts_with("node:"), base) {
        (true, "fs") => "node:fs",
        (false, "fs") => "fs",
        (_, "child_process") => "child_process",
        (_, "net") => "net",
        (_, "http") | (_, "http2") => "http",
        (_, "https") => "https",
        (_, "dgram" | "tls" | "dns") => "network",
        _ => return None,
    };
    let why = match rule {
        "fs" | "node:fs" => "no filesystem access in skills",
        "child_process" => "no processes in skills",
        _ => "no network access in skills",
    };
    Some((rule, why))
}

/// Members of `ctx` that are banned (raw bot access and runtime internals).
const BANNED_CTX: &[(&str, &str)] =
    &[("bot", "ctx.bot"), ("helpers", "ctx.helpers"), ("sharedStorage", "ctx.sharedStorage")];

/// Maps byte offsets to lines and columns.
struct Lines<'s> {
    source: &'s str,
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    fn new(source: &'s str) -> Self {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        Self { source, starts }
    }
    fn at(&self, offset: u32) -> At {
        let offset = (offset as usize).min(self.source.len());
        let line = self.starts.partition_point(|s| *s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = self.source.get(start..offset).map_or(1, |t| t.chars().count() + 1);
        At { line, column }
    }
}

/// Parses, checks and (for TypeScript) compiles a source. Syntax errors are returned all at once;
/// the facts are for the caller's checks.
pub fn compile(source: &str, language: Language) -> Result<Compiled, Vec<SyntaxProblem>> {
    let lines = Lines::new(source);
    let allocator = Allocator::default();
    let source_type = match language {
        Language::TypeScript => SourceType::ts(),
        Language::JavaScript => SourceType::mjs(),
    };
    let parsed = Parser::new(&allocator, source, source_type).parse();
    if parsed.panicked || !parsed.errors.is_empty() {
        let mut out: Vec<SyntaxProblem> = parsed
            .errors
            .iter()
            .map(|e| {
                let at = e.labels.as_ref().and_then(|l| l.first()).map(|l| lines.at(l.offset() as u32));
                let mut message = e.message.to_string();
                if let Some(help) = &e.help {
                    message = format!("{message} ({help})");
                }
                SyntaxProblem { at, message }
            })
            .collect();
        if out.is_empty() {
            out.push(SyntaxProblem { at: None, message: "the source does not parse".into() });
        }
        return Err(out);
    }
    let mut program = parsed.program;
    let facts = facts_of(&program, &lines);
    let js = match language {
        Language::JavaScript => source.to_owned(),
        Language::TypeScript => {
            let semantic = SemanticBuilder::new().build(&program);
            if !semantic.errors.is_empty() {
                return Err(semantic
                    .errors
                    .iter()
                    .map(|e| SyntaxProblem {
                        at: e.labels.as_ref().and_then(|l| l.first()).map(|l| lines.at(l.offset() as u32)),
                        message: e.message.to_string(),
                    })
                    .collect());
            }
            let scoping = semantic.semantic.into_scoping();
            let options = TransformOptions::default();
            let done =
                Transformer::new(&allocator, Path::new("skill.ts"), &options).build_with_scoping(scoping, &mut program);
            if !done.errors.is_empty() {
                return Err(done
                    .errors
                    .iter()
                    .map(|e| SyntaxProblem {
                        at: e.labels.as_ref().and_then(|l| l.first()).map(|l| lines.at(l.offset() as u32)),
                        message: format!("cannot compile: {}", e.message),
                    })
                    .collect());
            }
            Codegen::new().build(&program).code
        }
    };
    Ok(Compiled { js, facts })
}

fn facts_of(program: &oxc_ast::ast::Program<'_>, lines: &Lines<'_>) -> Facts {
    let run = program.body.iter().find_map(|s| {
        let Statement::ExportNamedDeclaration(e) = s else { return None };
        let Some(oxc_ast::ast::Declaration::FunctionDeclaration(f)) = &e.declaration else { return None };
        if f.id.as_ref().map(|i| i.name.as_str()) != Some("run") {
            return None;
        }
        let name = |i: usize| match f.params.items.get(i).map(|p| &p.pattern) {
            Some(BindingPattern::BindingIdentifier(b)) => Some(b.name.to_string()),
            _ => None,
        };
        Some((
            RunSignature { at: lines.at(f.span.start), is_async: f.r#async, ctx_name: name(0), params_name: name(1) },
            f.params.items.get(1).map(|p| &p.pattern),
        ))
    });
    let mut v = Checker {
        lines,
        facts: Facts::default(),
        ctx: run.as_ref().and_then(|(r, _)| r.ctx_name.clone()).unwrap_or_else(|| "ctx".into()),
        params: run.as_ref().and_then(|(r, _)| r.params_name.clone()),
    };
    // `run(ctx, { count, item })`: the destructured keys are reads.
    if let Some((_, Some(pattern @ BindingPattern::ObjectPattern(_)))) = &run {
        v.pattern_reads(pattern);
    }
    v.visit_program(program);
    v.facts.run = run.map(|(r, _)| r);
    v.facts.bans.sort_by_key(|b| b.at);
    v.facts
}

struct Checker<'l, 's> {
    lines: &'l Lines<'s>,
    facts: Facts,
    ctx: String,
    params: Option<String>,
}

impl Checker<'_, '_> {
    fn at(&self, span: Span) -> At {
        self.lines.at(span.start)
    }
    fn ban(&mut self, rule: &'static str, span: Span, why: &'static str) {
        let at = self.at(span);
        if !self.facts.bans.iter().any(|b| b.rule == rule && b.at == at) {
            self.facts.bans.push(Ban { rule, at, why });
        }
    }
    fn is_ctx(&self, e: &Expression<'_>) -> bool {
        matches!(e.without_parentheses(), Expression::Identifier(i) if i.name == self.ctx.as_str())
    }
    fn is_params(&self, e: &Expression<'_>) -> bool {
        matches!(e.without_parentheses(), Expression::Identifier(i) if self.params.as_deref() == Some(i.name.as_str()))
    }
    /// `ctx.mineflayer` (static or computed).
    fn is_bridge(&self, e: &Expression<'_>) -> bool {
        match e.without_parentheses() {
            Expression::StaticMemberExpression(m) => self.is_ctx(&m.object) && m.property.name == "mineflayer",
            Expression::ComputedMemberExpression(m) => {
                self.is_ctx(&m.object)
                    && matches!(&m.expression, Expression::StringLiteral(s) if s.value == "mineflayer")
            }
            _ => false,
        }
    }
    fn ctx_member(&mut self, name: &str, span: Span, called: bool) {
        if let Some((_, rule)) = BANNED_CTX.iter().find(|(n, _)| *n == name) {
            self.ban(rule, span, "raw bot and runtime internals are not reachable; use the ctx helpers");
        }
        let at = self.at(span);
        self.facts.ctx_uses.push(CtxUse { name: name.to_owned(), at, called });
    }
    fn pattern_reads(&mut self, pattern: &BindingPattern<'_>) {
        let BindingPattern::ObjectPattern(o) = pattern else { return };
        for p in &o.properties {
            let key = match &p.key {
                PropertyKey::StaticIdentifier(i) => Some(i.name.to_string()),
                PropertyKey::StringLiteral(s) => Some(s.value.to_string()),
                _ => None,
            };
            match key {
                Some(key) => {
                    let at = self.at(p.span);
                    self.facts.param_reads.push(ParamRead { key, at });
                }
                None => {
                    let at = self.at(p.span);
                    self.facts.params_whole.get_or_insert(at);
                }
            }
        }
        if let Some(rest) = &o.rest {
            let at = self.at(rest.span);
            self.facts.params_whole.get_or_insert(at);
        }
    }
    /// A constant that is always true (`true`, a non-zero number, a non-empty string, `!0`).
    fn always_true(e: &Expression<'_>) -> bool {
        match e.without_parentheses() {
            Expression::BooleanLiteral(b) => b.value,
            Expression::NumericLiteral(n) => n.value != 0.0 && !n.value.is_nan(),
            Expression::StringLiteral(s) => !s.value.is_empty(),
            Expression::UnaryExpression(u) if u.operator == oxc_ast::ast::UnaryOperator::LogicalNot => {
                matches!(u.argument.without_parentheses(), Expression::NumericLiteral(n) if n.value == 0.0)
            }
            _ => false,
        }
    }
}

impl<'a> Visit<'a> for Checker<'_, '_> {
    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        self.ban("import", it.span, "there is no module loader; helpers come through ctx");
        walk::walk_import_declaration(self, it);
    }
    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        self.ban("import", it.span, "there is no module loader; helpers come through ctx");
        walk::walk_import_expression(self, it);
    }
    fn visit_meta_property(&mut self, it: &MetaProperty<'a>) {
        if it.meta.name == "import" {
            self.ban("import", it.span, "there is no module loader; helpers come through ctx");
        }
        walk::walk_meta_property(self, it);
    }
    fn visit_export_all_declaration(&mut self, it: &ExportAllDeclaration<'a>) {
        self.ban("import", it.span, "re-exports load modules; there is no module loader");
        walk::walk_export_all_declaration(self, it);
    }
    fn visit_export_named_declaration(&mut self, it: &ExportNamedDeclaration<'a>) {
        if it.source.is_some() {
            self.ban("import", it.span, "re-exports load modules; there is no module loader");
        }
        walk::walk_export_named_declaration(self, it);
    }
    fn visit_ts_import_equals_declaration(&mut self, it: &TSImportEqualsDeclaration<'a>) {
        self.ban("import", it.span, "there is no module loader; helpers come through ctx");
        walk::walk_ts_import_equals_declaration(self, it);
    }
    fn visit_ts_import_type(&mut self, it: &TSImportType<'a>) {
        self.ban("import", it.span, "there is no module loader; helpers come through ctx");
        walk::walk_ts_import_type(self, it);
    }
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if let Some((_, rule, why)) = BANNED_NAMES.iter().find(|(n, _, _)| *n == it.name.as_str()) {
            self.ban(rule, it.span, why);
        }
        if self.params.as_deref() == Some(it.name.as_str()) {
            // Reached only when `params` is not the object of a member read (handled below).
            let at = self.at(it.span);
            self.facts.params_whole.get_or_insert(at);
        }
    }
    fn visit_binding_identifier(&mut self, it: &oxc_ast::ast::BindingIdentifier<'a>) {
        if let Some((_, rule, why)) = BANNED_NAMES.iter().find(|(n, _, _)| *n == it.name.as_str()) {
            self.ban(rule, it.span, why);
        }
    }
    fn visit_string_literal(&mut self, it: &StringLiteral<'a>) {
        if let Some((rule, why)) = banned_module(&it.value) {
            self.ban(rule, it.span, why);
        }
    }
    fn visit_while_statement(&mut self, it: &WhileStatement<'a>) {
        if Self::always_true(&it.test) {
            self.ban("while (true)", it.span, "an endless loop; loop over a bounded count and await helpers");
        }
        walk::walk_while_statement(self, it);
    }
    fn visit_do_while_statement(&mut self, it: &DoWhileStatement<'a>) {
        if Self::always_true(&it.test) {
            self.ban("while (true)", it.span, "an endless loop; loop over a bounded count and await helpers");
        }
        walk::walk_do_while_statement(self, it);
    }
    fn visit_for_statement(&mut self, it: &ForStatement<'a>) {
        if it.test.as_ref().is_none_or(Self::always_true) {
            self.ban("for (;;)", it.span, "an endless loop; loop over a bounded count and await helpers");
        }
        walk::walk_for_statement(self, it);
    }
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        // `const { count, item } = params`: the keys are reads, `params` is not used whole.
        if let (Some(init), BindingPattern::ObjectPattern(_)) = (&it.init, &it.id)
            && self.is_params(init)
        {
            self.pattern_reads(&it.id);
            self.visit_binding_pattern(&it.id);
            return;
        }
        walk::walk_variable_declarator(self, it);
    }
    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if self.is_ctx(&it.object) {
            self.ctx_member(&it.property.name, it.span, false);
            return;
        }
        if self.is_params(&it.object) {
            let at = self.at(it.span);
            self.facts.param_reads.push(ParamRead { key: it.property.name.to_string(), at });
            return;
        }
        self.bridge_reach(&it.object, it.span);
        walk::walk_static_member_expression(self, it);
    }
    fn visit_computed_member_expression(&mut self, it: &ComputedMemberExpression<'a>) {
        let key = match it.expression.without_parentheses() {
            Expression::StringLiteral(s) => Some(s.value.to_string()),
            _ => None,
        };
        if self.is_ctx(&it.object) {
            match &key {
                Some(k) => self.ctx_member(k, it.span, false),
                None => {
                    let at = self.at(it.span);
                    self.facts.ctx_uses.push(CtxUse { name: "[computed]".into(), at, called: false });
                }
            }
            self.visit_expression(&it.expression);
            return;
        }
        if self.is_params(&it.object) {
            let at = self.at(it.span);
            match key {
                Some(key) => self.facts.param_reads.push(ParamRead { key, at }),
                None => {
                    self.facts.params_whole.get_or_insert(at);
                }
            }
            self.visit_expression(&it.expression);
            return;
        }
        self.bridge_reach(&it.object, it.span);
        walk::walk_computed_member_expression(self, it);
    }
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let callee = it.callee.without_parentheses();
        let member = match callee {
            Expression::StaticMemberExpression(m) if self.is_ctx(&m.object) => Some(m.property.name.to_string()),
            Expression::ComputedMemberExpression(m) if self.is_ctx(&m.object) => match &m.expression {
                Expression::StringLiteral(s) => Some(s.value.to_string()),
                _ => None,
            },
            _ => None,
        };
        if let Some(name) = member {
            self.ctx_member(&name, callee.span(), true);
            if name == "mineflayer" {
                match it.arguments.first() {
                    Some(Argument::StringLiteral(s)) => {
                        let at = self.at(s.span);
                        self.facts.bridge_methods.push((s.value.to_string(), at));
                    }
                    _ => {
                        let at = self.at(it.span);
                        self.facts.bridge_dynamic.push(at);
                    }
                }
            }
            if let Expression::ComputedMemberExpression(m) = callee {
                self.visit_expression(&m.expression);
            }
            for a in &it.arguments {
                self.visit_argument(a);
            }
            return;
        }
        walk::walk_call_expression(self, it);
    }
}

impl Checker<'_, '_> {
    /// `ctx.mineflayer(…).x` or `ctx.mineflayer.x`: reaching past the bridge.
    fn bridge_reach(&mut self, object: &Expression<'_>, span: Span) {
        let reaches = match object.without_parentheses() {
            Expression::CallExpression(c) => self.is_bridge(&c.callee),
            Expression::ChainExpression(c) => match &c.expression {
                oxc_ast::ast::ChainElement::CallExpression(c) => self.is_bridge(&c.callee),
                _ => false,
            },
            other => self.is_bridge(other),
        };
        if reaches {
            self.ban(
                "ctx.mineflayer().method",
                span,
                "the bridge is called as ctx.mineflayer(method, args); its result is data, not the bot",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(src: &str) -> Compiled {
        compile(src, Language::TypeScript).expect("compiles")
    }

    #[test]
    fn typescript_is_stripped_to_javascript() {
        let c = ts(r#"
interface Params { count?: number; item: string }
type Result = { status: "ok" | "failed"; n: number };
export async function run(ctx: any, params: Params): Promise<Result> {
  const n = (params.count ?? 3) as number;
  const xs: Array<number> = [1, 2, 3];
  const id = <T,>(x: T): T => x;
  const items = (await ctx.inventoryItems?.()) ?? [];
  return { status: "ok", n: id<number>(n) + xs.length + items.length! };
}
"#);
        assert!(c.js.contains("export async function run(ctx, params)"), "{}", c.js);
        assert!(!c.js.contains("interface") && !c.js.contains(": number") && !c.js.contains(" as "), "{}", c.js);
        let reads: Vec<&str> = c.facts.param_reads.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(reads, ["count"]);
        let run = c.facts.run.expect("run");
        assert!(run.is_async);
        assert_eq!((run.ctx_name.as_deref(), run.params_name.as_deref()), (Some("ctx"), Some("params")));
        assert_eq!(c.facts.ctx_uses[0].name, "inventoryItems");
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let e = compile("export async function run(ctx: any) {\n  const x: number = ;\n}", Language::TypeScript)
            .expect_err("does not parse");
        assert_eq!(e[0].at, Some(At { line: 2, column: 21 }), "{e:?}");
        assert!(e[0].to_string().starts_with("line 2, column 21: "), "{}", e[0]);
    }

    #[test]
    fn bans_name_their_rule_and_place() {
        let c = ts(
            "export async function run(ctx, params) {\n  while (true) { await ctx.wait({ durationMs: 50 }); }\n  for (;;) {}\n  const b = ctx.bot;\n  ctx.mineflayer('chat', ['x']).bot;\n}",
        );
        let got: Vec<String> = c.facts.bans.iter().map(|b| format!("{} {}", b.rule, b.at)).collect();
        assert_eq!(
            got,
            [
                "while (true) line 2, column 3",
                "for (;;) line 3, column 3",
                "ctx.bot line 4, column 13",
                "ctx.mineflayer().method line 5, column 3"
            ]
        );
    }

    #[test]
    fn destructured_and_computed_reads_are_seen() {
        let c = ts("export async function run(ctx, { a, b: bee }) { return a; }");
        let reads: Vec<&str> = c.facts.param_reads.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(reads, ["a", "b"]);
        let c = ts("export async function run(ctx, p) { const { x } = p; const y = p['y']; return p.z + x + y; }");
        let reads: Vec<&str> = c.facts.param_reads.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(reads, ["x", "y", "z"]);
        assert_eq!(c.facts.params_whole, None);
        let c = ts("export async function run(ctx, p) { return ctx.buildPattern(p); }");
        assert!(c.facts.params_whole.is_some());
    }
}
