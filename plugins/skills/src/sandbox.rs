//! The script sandbox: one QuickJS runtime per run, on a thread of its own, driven by the game
//! thread one slice per tick.
//!
//! Why a thread: query helpers are synchronous (`ctx.pos()` returns the position), so a helper
//! call must read the world while the script is suspended in the middle of its code. The world
//! lives on the game thread; the script therefore runs elsewhere and every helper call is a
//! message the game thread answers during its skill step. Preemption is QuickJS's interrupt
//! handler (polled every [`OPS_PER_POLL`] function calls or loop back-edges): when the tick's
//! slice is used up the handler *pauses* the script (it blocks on the next tick's `Resume`), so
//! a long synchronous stretch spans ticks instead of stalling one; when the run's op budget is
//! spent, or the run is cancelled, it returns `true`, which QuickJS turns into an uncatchable
//! "interrupted" error. The game thread never waits on the script longer than a wall-clock
//! deadline per tick, so even an engine fault cannot stop the 20 Hz loop.
//!
//! What the script sees: the language (strict mode, a module), `JSON`, `Math` (without
//! `random`), `Map`/`Set`, `Promise`, `RegExp`, and the `ctx` object holding only its allowlisted
//! helpers plus `tick()`, `rand()`, `waitTicks(n)` and `log(…)`. There is no module loader (an
//! `import` cannot resolve anything), no `Date`, no timers, no I/O, and `eval`, `Function` and
//! every function constructor reachable through prototypes are replaced by stubs that end the run
//! with status `forbidden`. Every built-in is frozen before the skill's code runs.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use rquickjs::context::intrinsic;
use rquickjs::function::{Opt, Rest};
use rquickjs::promise::PromiseState;
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Exception, Function, Module, Object, Persistent, Runtime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// Operations counted per interrupt poll: QuickJS calls the handler once every 10 000 function
/// calls or loop back-edges. Budgets are kept in polls and reported in ops.
pub const OPS_PER_POLL: u64 = 10_000;
/// Largest JSON a helper call, a helper result or a return value may be.
pub const MAX_JSON_BYTES: usize = 64 * 1024;
/// `ctx.log` keeps at most this many lines of at most [`MAX_LOG_CHARS`] characters.
pub const MAX_LOG_LINES: usize = 100;
pub const MAX_LOG_CHARS: usize = 500;
/// Built-ins every script has besides its helpers.
pub const BUILTINS: &[&str] = &["tick", "rand", "waitTicks", "log"];
/// The helper a `ctx.waitTicks(n)` call is recorded as.
pub const WAIT_HELPER: &str = "waitTicks";

/// How a helper behaves from the script's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HelperKind {
    /// A query command: synchronous, returns the response, throws on error.
    Query,
    /// A command that starts an async action: a Promise resolved by its completion event.
    Action,
    /// Any other command (chat, face, cmd, …): a Promise resolved by its response.
    Instant,
}

/// The run's limits: one authority for everything but ticks (the action watchdog holds those).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// Operations over the whole run.
    pub max_ops: u64,
    /// Operations per tick before the script is paused until the next tick.
    pub slice_ops: u64,
    /// Helper calls over the whole run (`waitTicks` included; `tick`, `rand`, `log` are free).
    pub max_helper_calls: u32,
    /// Heap limit of the runtime.
    pub memory_bytes: u64,
    /// JavaScript stack limit.
    pub stack_bytes: u64,
}

impl Limits {
    fn max_polls(&self) -> u64 {
        self.max_ops.div_ceil(OPS_PER_POLL).max(1)
    }
    fn slice_polls(&self) -> u64 {
        self.slice_ops.div_ceil(OPS_PER_POLL).max(1)
    }
}

/// Everything a script thread needs to start.
#[derive(Debug, Clone)]
pub struct ScriptSpec {
    pub source: String,
    pub params: Json,
    /// Allowlisted helpers with their kinds (built-ins are always present).
    pub helpers: Vec<(String, HelperKind)>,
    pub limits: Limits,
    /// Seed of `ctx.rand()`.
    pub seed: u64,
    /// Builds `ctx` from the helpers instead of exposing them (the seed's helper API).
    pub prelude: Option<Prelude>,
}

/// A helper layer written in JavaScript: `code` evaluates to a function `(raw, note, raise,
/// allow) => ctx`. `raw` holds the [`ScriptSpec::helpers`] and the built-ins, `note(event)`
/// records a helper event through [`NOTE_HELPER`] (free of the helper budget) and answers its
/// number, `raise(code, message)` throws a `HelperError`. Only what it returns reaches the skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Prelude {
    pub code: &'static str,
    /// The helpers it may hand to the skill.
    pub allow: Vec<String>,
}

/// The call a prelude's `note(event)` is sent as (sequence number 0; never a command).
pub const NOTE_HELPER: &str = "@note";
/// The prelude's arm swing (`ctx.mineflayer('swingArm')`): answered by the runtime itself, not
/// a command (no command only swings).
pub const SWING_HELPER: &str = "@swing_arm";

/// How a run ended, as far as the script is concerned (the runtime adds `tick_budget`,
/// `cancelled`, `died`, … when the run is ended from outside).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// `run` returned (its promise resolved).
    Returned,
    /// `run` threw (or its promise rejected).
    Threw,
    /// The script reached for `eval`, `Function`, a function constructor, `Math.random` or `import`.
    Forbidden,
    /// The op budget is spent.
    OpBudget,
    /// The tick budget (`timeout_ms`) is spent.
    TickBudget,
    /// The helper-call budget is spent.
    HelperBudget,
    /// The heap limit was hit.
    MemoryLimit,
    /// The stack limit was hit (deep recursion).
    StackOverflow,
    /// `abort_skill`, or the run's skill was retired while it ran.
    Cancelled,
    /// The bot died.
    Died,
    /// The connection ended.
    Disconnected,
    /// The harness is leaving.
    Shutdown,
    /// The script thread stopped answering (an engine fault; never expected).
    Unresponsive,
    /// The runtime could not start the script.
    Internal,
}

impl RunStatus {
    pub fn name(self) -> &'static str {
        match self {
            Self::Returned => "returned",
            Self::Threw => "threw",
            Self::Forbidden => "forbidden",
            Self::OpBudget => "op_budget",
            Self::TickBudget => "tick_budget",
            Self::HelperBudget => "helper_budget",
            Self::MemoryLimit => "memory_limit",
            Self::StackOverflow => "stack_overflow",
            Self::Cancelled => "cancelled",
            Self::Died => "died",
            Self::Disconnected => "disconnected",
            Self::Shutdown => "shutdown",
            Self::Unresponsive => "unresponsive",
            Self::Internal => "internal",
        }
    }
}

/// An error thrown out of the script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScriptError {
    pub name: String,
    pub message: String,
    /// `file:line:col` frames, when the engine gave them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stack: String,
}

/// What the script thread reports about its resource use.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub ops: u64,
    /// Peak heap of the runtime seen at a yield (bytes).
    pub peak_memory: u64,
    pub helper_calls: u32,
}

/// The end of a script.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptEnd {
    pub status: RunStatus,
    /// The resolved value of `run` (JSON), when it returned.
    pub value: Option<Json>,
    pub error: Option<ScriptError>,
    pub usage: Usage,
    pub logs: Vec<String>,
}

/// Game thread → script thread.
#[derive(Debug)]
pub enum ToScript {
    /// A new tick: results of pending helper calls, and a fresh slice.
    Resume { tick: u64, deliveries: Vec<(u32, Json)> },
    /// The answer to the script's last [`FromScript::Call`].
    Reply(Reply),
    /// Stop now.
    Abort,
}

/// The answer to a helper call.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A query's response.
    Value(Json),
    /// A query failed (the script sees a thrown `HelperError` with this `code`), or the call
    /// broke the helper contract.
    Error { code: String, message: String },
    /// An action resolved at once (its promise is already settled).
    Resolved(Json),
    /// An action started; its result comes in a later `Resume`.
    Pending,
}

/// A helper call made by the script.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// 1, 2, … in call order.
    pub seq: u32,
    pub helper: String,
    pub params: Json,
    /// The script's tick when it made the call.
    pub tick: u64,
}

/// Script thread → game thread.
#[derive(Debug)]
pub enum FromScript {
    Call(Call),
    /// The script stopped for this tick: `paused` when its slice ran out mid-work (it wants the
    /// next tick), otherwise it awaits helper results.
    Yield {
        paused: bool,
        usage: Usage,
    },
    Finished(ScriptEnd),
}

/// Why the script is being stopped from inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Status(RunStatus),
}

/// State shared by the interrupt handler and the helper functions (one thread).
struct HostState {
    polls: u64,
    slice_left: u64,
    stop: Option<Stop>,
    forbidden: Option<String>,
    calls: u32,
    tick: u64,
    start_tick: u64,
    rng: u64,
    logs: Vec<String>,
    /// Deliveries received while paused inside the interrupt handler.
    stash: Vec<(u32, Json)>,
    resolvers: BTreeMap<u32, Persistent<Function<'static>>>,
    peak_memory: u64,
    /// Makes the `HelperError`s helpers throw.
    error_factory: Option<Persistent<Function<'static>>>,
}

struct Host {
    tx: Sender<FromScript>,
    rx: Receiver<ToScript>,
    kill: Arc<AtomicBool>,
    limits: Limits,
    state: RefCell<HostState>,
}

impl Host {
    fn usage(&self) -> Usage {
        let st = self.state.borrow();
        Usage { ops: st.polls * OPS_PER_POLL, peak_memory: st.peak_memory, helper_calls: st.calls }
    }

    fn stop(&self, status: RunStatus) {
        let mut st = self.state.borrow_mut();
        st.stop.get_or_insert(Stop::Status(status));
    }

    fn stopped(&self) -> Option<RunStatus> {
        let st = self.state.borrow();
        st.stop.map(|Stop::Status(s)| s)
    }

    /// The interrupt handler: counts polls, pauses at the end of a slice, stops on budget or kill.
    fn poll(&self) -> bool {
        if self.kill.load(Ordering::Relaxed) {
            self.stop(RunStatus::Cancelled);
        }
        let pause = {
            let mut st = self.state.borrow_mut();
            if st.stop.is_some() {
                return true;
            }
            st.polls += 1;
            if st.polls > self.limits.max_polls() {
                st.stop = Some(Stop::Status(RunStatus::OpBudget));
                return true;
            }
            if st.slice_left == 0 {
                true
            } else {
                st.slice_left -= 1;
                false
            }
        };
        if pause {
            let usage = self.usage();
            if self.tx.send(FromScript::Yield { paused: true, usage }).is_err() {
                self.stop(RunStatus::Cancelled);
                return true;
            }
            return !self.wait_resume();
        }
        false
    }

    /// Waits for the next `Resume` (between ticks, outside any JavaScript).
    fn wait_resume(&self) -> bool {
        match self.rx.recv() {
            Ok(ToScript::Resume { tick, deliveries }) => {
                let mut st = self.state.borrow_mut();
                st.tick = tick;
                st.stash.extend(deliveries);
                st.slice_left = self.limits.slice_polls();
                true
            }
            Ok(ToScript::Abort) | Err(_) => {
                self.stop(RunStatus::Cancelled);
                false
            }
            Ok(ToScript::Reply(_)) => {
                self.stop(RunStatus::Internal);
                false
            }
        }
    }

    /// Drops every JavaScript value held from Rust.
    fn release_js(&self) {
        let mut st = self.state.borrow_mut();
        st.resolvers.clear();
        st.error_factory = None;
    }

    fn next_rand(&self) -> f64 {
        // splitmix64: deterministic from the run's seed.
        let mut st = self.state.borrow_mut();
        st.rng = st.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = st.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The game thread's end of a running script.
pub struct ScriptHandle {
    tx: Sender<ToScript>,
    rx: Receiver<FromScript>,
    kill: Arc<AtomicBool>,
    state: HandleState,
    /// The latest usage report.
    pub usage: Usage,
    /// Consecutive ticks the script did not yield within the deadline.
    pub overdue_ticks: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HandleState {
    /// Not resumed yet.
    Starting,
    /// Awaiting helper results.
    Waiting,
    /// Its slice ran out; wants the next tick.
    Paused,
    /// Resumed and not yielded yet (it overran the deadline last tick).
    Running,
    Finished,
}

/// What one tick's slice came to.
#[derive(Debug)]
pub enum SliceEnd {
    /// Nothing to do this tick (awaiting helper results).
    Idle,
    /// The script yielded.
    Yielded,
    /// It finished.
    Finished(ScriptEnd),
    /// It did not yield within the deadline; it keeps its slice and is served next tick.
    Overdue,
}

impl ScriptHandle {
    /// Starts the script thread. Nothing runs until the first [`run_slice`](Self::run_slice).
    pub fn spawn(spec: ScriptSpec, name: &str) -> std::io::Result<Self> {
        let (to_script, from_game) = crossbeam_channel::unbounded();
        let (to_game, from_script) = crossbeam_channel::unbounded();
        let kill = Arc::new(AtomicBool::new(false));
        let thread_kill = kill.clone();
        // The JavaScript stack limit is checked by QuickJS; the thread's own stack holds it with
        // room for the engine's C frames.
        let stack = usize::try_from(spec.limits.stack_bytes).unwrap_or(usize::MAX).saturating_mul(4).max(2 << 20);
        std::thread::Builder::new().name(format!("skill-{name}")).stack_size(stack).spawn(move || {
            let end = run_script(&spec, to_game.clone(), from_game, thread_kill);
            let _ = to_game.send(FromScript::Finished(end));
        })?;
        Ok(Self {
            tx: to_script,
            rx: from_script,
            kill,
            state: HandleState::Starting,
            usage: Usage::default(),
            overdue_ticks: 0,
        })
    }

    /// Whether the script finished.
    pub fn finished(&self) -> bool {
        self.state == HandleState::Finished
    }

    /// Gives the script its slice of this tick (when it wants one: it starts, its slice ran out,
    /// helper results arrived (taken from `deliveries`), or it overran last tick), answering its helper calls with
    /// `serve`, for at most `deadline` of waiting on the script.
    pub fn run_slice(
        &mut self,
        tick: u64,
        deliveries: &mut Vec<(u32, Json)>,
        deadline: Duration,
        serve: &mut dyn FnMut(Call) -> Reply,
    ) -> SliceEnd {
        match self.state {
            HandleState::Finished => return SliceEnd::Idle,
            HandleState::Waiting if deliveries.is_empty() => return SliceEnd::Idle,
            // Results that arrive while the script still runs wait for its next Resume.
            HandleState::Running => {}
            HandleState::Starting | HandleState::Waiting | HandleState::Paused => {
                let deliveries = std::mem::take(deliveries);
                if self.tx.send(ToScript::Resume { tick, deliveries }).is_err() {
                    return self.lost();
                }
                self.state = HandleState::Running;
            }
        }
        let until = Instant::now() + deadline;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(FromScript::Call(call)) => {
                    let reply = serve(call);
                    if self.tx.send(ToScript::Reply(reply)).is_err() {
                        return self.lost();
                    }
                }
                Ok(FromScript::Yield { paused, usage }) => {
                    self.usage = usage;
                    self.overdue_ticks = 0;
                    self.state = if paused { HandleState::Paused } else { HandleState::Waiting };
                    return SliceEnd::Yielded;
                }
                Ok(FromScript::Finished(end)) => {
                    self.usage = end.usage.clone();
                    self.state = HandleState::Finished;
                    return SliceEnd::Finished(end);
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.overdue_ticks += 1;
                    return SliceEnd::Overdue;
                }
                Err(RecvTimeoutError::Disconnected) => return self.lost(),
            }
        }
    }

    fn lost(&mut self) -> SliceEnd {
        self.state = HandleState::Finished;
        SliceEnd::Finished(ScriptEnd {
            status: RunStatus::Internal,
            value: None,
            error: Some(ScriptError {
                name: "InternalError".into(),
                message: "the script thread ended unexpectedly".into(),
                stack: String::new(),
            }),
            usage: self.usage.clone(),
            logs: Vec::new(),
        })
    }
}

impl Drop for ScriptHandle {
    /// Stops the script: the thread ends at its next poll or wait; it is not joined, so a
    /// misbehaving engine can never hold the game thread.
    fn drop(&mut self) {
        self.kill.store(true, Ordering::Relaxed);
        let _ = self.tx.send(ToScript::Abort);
    }
}

/// A problem found when compiling a skill's source at definition time.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceProblem {
    pub message: String,
}

/// Compiles `source` as a module in a throwaway sandbox (same intrinsics and hardening, a small
/// op budget for top-level code), and checks that it exports an async function `run`.
pub fn check_source(source: &str) -> Result<(), SourceProblem> {
    let problem = |m: String| SourceProblem { message: m };
    let limits = Limits {
        max_ops: 2_000_000,
        slice_ops: 2_000_000,
        max_helper_calls: 0,
        memory_bytes: 16 << 20,
        stack_bytes: 256 << 10,
    };
    let (tx, _rx_unused) = crossbeam_channel::unbounded();
    let (_tx_unused, rx) = crossbeam_channel::unbounded();
    let host = Rc::new(Host {
        tx,
        rx,
        kill: Arc::new(AtomicBool::new(false)),
        limits,
        state: RefCell::new(HostState::new(0, 0)),
    });
    host.state.borrow_mut().slice_left = u64::MAX;
    let (rt, context) = new_runtime(&host).map_err(|e| problem(format!("cannot start the engine: {e}")))?;
    let result = context.with(|ctx| -> Result<(), SourceProblem> {
        harden(&ctx, &host).map_err(|e| problem(format!("cannot prepare the sandbox: {e}")))?;
        let module = match Module::declare(ctx.clone(), "skill", source).catch(&ctx) {
            Ok(m) => m,
            Err(e) => return Err(problem(compile_message(&caught_error(&ctx, e)))),
        };
        let (module, promise) = match module.eval().catch(&ctx) {
            Ok(m) => m,
            Err(e) => return Err(problem(compile_message(&caught_error(&ctx, e)))),
        };
        while ctx.execute_pending_job() {}
        if let Some(s) = host.stopped() {
            let forbidden = host.state.borrow().forbidden.clone();
            return Err(problem(match forbidden {
                Some(what) => format!("top-level code: {what} is not available in skills"),
                None => format!("top-level code stopped: {}", s.name()),
            }));
        }
        if promise.state() == PromiseState::Rejected {
            let e = match promise.finish::<()>().catch(&ctx) {
                Err(e) => caught_error(&ctx, e),
                Ok(()) => ScriptError { name: "Error".into(), message: "rejected".into(), stack: String::new() },
            };
            return Err(problem(format!("top-level code failed: {}", compile_message(&e))));
        }
        let run: rquickjs::Value = module.get("run").map_err(|e| problem(format!("cannot read the exports: {e}")))?;
        let Some(f) = run.as_function() else {
            return Err(problem("the source must define `export async function run(ctx, params)`".into()));
        };
        // The function constructors are stubbed, so compare prototypes instead.
        let is_async: rquickjs::Result<Function> =
            ctx.eval("(f) => Object.getPrototypeOf(f) === Object.getPrototypeOf(async function () {})");
        if !is_async.and_then(|check| check.call::<_, bool>((f.clone(),))).unwrap_or(false) {
            return Err(problem("`run` must be an async function: `export async function run(ctx, params)`".into()));
        }
        Ok(())
    });
    host.release_js();
    drop(context);
    drop(rt);
    result
}

fn compile_message(e: &ScriptError) -> String {
    if e.message.contains("could not load module") {
        return format!("imports are not available in skills ({})", e.message);
    }
    let at = e.stack.lines().map(str::trim).find(|l| l.starts_with("at skill:")).map(|l| l.trim_start_matches("at "));
    match at {
        Some(at) => format!("{}: {} (at {at})", e.name, e.message),
        None => format!("{}: {}", e.name, e.message),
    }
}

impl HostState {
    fn new(tick: u64, seed: u64) -> Self {
        Self {
            polls: 0,
            slice_left: 0,
            stop: None,
            forbidden: None,
            calls: 0,
            tick,
            start_tick: tick,
            rng: seed,
            logs: Vec::new(),
            stash: Vec::new(),
            resolvers: BTreeMap::new(),
            peak_memory: 0,
            error_factory: None,
        }
    }
}

type Intrinsics = (
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::MapSet,
    intrinsic::Promise,
);

fn new_runtime(host: &Rc<Host>) -> rquickjs::Result<(Runtime, Context)> {
    let rt = Runtime::new()?;
    rt.set_memory_limit(usize::try_from(host.limits.memory_bytes).unwrap_or(usize::MAX));
    rt.set_max_stack_size(usize::try_from(host.limits.stack_bytes).unwrap_or(usize::MAX));
    let h = host.clone();
    rt.set_interrupt_handler(Some(Box::new(move || h.poll())));
    // `Eval` is needed to compile the module; `eval` and `Function` are then stubbed out.
    let context = Context::custom::<Intrinsics>(&rt)?;
    Ok((rt, context))
}

/// Replaces every way to compile code at run time with a stub that ends the run `forbidden`,
/// removes `Math.random`, and freezes every built-in reachable from the global object.
fn harden<'js>(ctx: &Ctx<'js>, host: &Rc<Host>) -> rquickjs::Result<()> {
    let h = host.clone();
    let forbid = Function::new(ctx.clone(), move |ctx: Ctx<'js>, what: String| -> rquickjs::Result<()> {
        {
            let mut st = h.state.borrow_mut();
            st.forbidden.get_or_insert_with(|| what.clone());
            st.stop.get_or_insert(Stop::Status(RunStatus::Forbidden));
        }
        let hint = if what == "Math.random" { " (use ctx.rand())" } else { "" };
        Err(Exception::throw_type(&ctx, &format!("{what} is not available in skills{hint}")))
    })?;
    let lockdown: Function = ctx.eval(LOCKDOWN)?;
    let make_error: Function = lockdown.call((forbid,))?;
    host.state.borrow_mut().error_factory = Some(Persistent::save(ctx, make_error));
    Ok(())
}

const LOCKDOWN: &str = r#"(function (forbid) {
  'use strict';
  const stub = (what) => function () { return forbid(what); };
  const fixed = (o, k, v) => Object.defineProperty(o, k, { value: v, writable: false, configurable: false, enumerable: false });
  const ctors = [Function,
    Object.getPrototypeOf(async function () {}).constructor,
    Object.getPrototypeOf(function* () {}).constructor,
    Object.getPrototypeOf(async function* () {}).constructor];
  for (const F of ctors) fixed(F.prototype, 'constructor', stub('Function'));
  fixed(globalThis, 'Function', stub('Function'));
  fixed(globalThis, 'eval', stub('eval'));
  fixed(Math, 'random', stub('Math.random'));
  class HelperError extends Error {
    constructor(code, message) {
      super(message);
      Object.defineProperty(this, 'code', { value: code, enumerable: true });
    }
  }
  fixed(HelperError.prototype, 'name', 'HelperError');
  const seen = new Set();
  const freeze = (o) => {
    if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) return;
    seen.add(o);
    Object.freeze(o);
    for (const k of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (!d) continue;
      if ('value' in d) freeze(d.value); else { freeze(d.get); freeze(d.set); }
    }
    freeze(Object.getPrototypeOf(o));
  };
  for (const F of ctors) freeze(F);
  freeze([][Symbol.iterator]());
  freeze(new Map().entries());
  freeze(new Set().values());
  freeze(''[Symbol.iterator]());
  freeze((function* () {})());
  freeze((async function* () {})());
  freeze(globalThis);
  freeze(HelperError);
  return (code, message) => new HelperError(code, message);
})"#;

/// The error behind a caught exception.
fn caught_error<'js>(ctx: &Ctx<'js>, e: CaughtError<'js>) -> ScriptError {
    match e {
        CaughtError::Exception(ex) => ScriptError {
            name: ex.as_object().get::<_, String>("name").unwrap_or_else(|_| "Error".into()),
            message: ex.message().unwrap_or_default(),
            stack: ex.stack().unwrap_or_default(),
        },
        CaughtError::Value(v) => ScriptError {
            name: "Thrown".into(),
            message: ctx
                .json_stringify(v)
                .ok()
                .flatten()
                .and_then(|s| s.to_string().ok())
                .unwrap_or_else(|| "a non-JSON value".into()),
            stack: String::new(),
        },
        CaughtError::Error(e) => {
            ScriptError { name: "InternalError".into(), message: e.to_string(), stack: String::new() }
        }
    }
}

/// Classifies an error that ended the script.
fn status_of(host: &Host, e: &ScriptError) -> RunStatus {
    if let Some(s) = host.stopped() {
        return s;
    }
    if e.message.contains("could not load module") {
        return RunStatus::Forbidden;
    }
    if e.message.contains("Maximum call stack size exceeded") || e.message.starts_with("stack overflow") {
        return RunStatus::StackOverflow;
    }
    if e.message == "out of memory" {
        return RunStatus::MemoryLimit;
    }
    RunStatus::Threw
}

fn to_json_string<'js>(ctx: &Ctx<'js>, v: rquickjs::Value<'js>) -> Result<String, String> {
    match ctx.json_stringify(v) {
        Ok(Some(s)) => s.to_string().map_err(|e| e.to_string()),
        Ok(None) => Ok("null".into()),
        Err(_) => {
            let _ = ctx.catch();
            Err("not JSON-serialisable".into())
        }
    }
}

fn from_json<'js>(ctx: &Ctx<'js>, v: &Json) -> rquickjs::Result<rquickjs::Value<'js>> {
    ctx.json_parse(v.to_string())
}

/// A thrown `HelperError` with a `code`.
fn helper_error<'js>(ctx: &Ctx<'js>, host: &Host, code: &str, message: &str) -> rquickjs::Error {
    let factory = host.state.borrow().error_factory.clone();
    let made =
        factory.and_then(|f| f.restore(ctx).ok()).and_then(|f| f.call::<_, rquickjs::Value>((code, message)).ok());
    match made {
        Some(e) => ctx.throw(e),
        None => Exception::throw_message(ctx, message),
    }
}

/// Builds the `ctx` object: the allowlisted helpers and the built-ins, frozen — or, with a
/// prelude, the object the prelude makes of them.
fn build_ctx<'js>(
    ctx: &Ctx<'js>,
    host: &Rc<Host>,
    helpers: &[(String, HelperKind)],
    prelude: Option<&Prelude>,
) -> rquickjs::Result<Object<'js>> {
    let Some(prelude) = prelude else { return build_raw(ctx, host, helpers) };
    let raw = build_raw(ctx, host, helpers)?;
    let h = host.clone();
    let note = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, event: rquickjs::Value<'js>| -> rquickjs::Result<rquickjs::Value<'js>> {
            let params = match to_json_string(&ctx, event) {
                Ok(s) if s.len() <= MAX_JSON_BYTES => serde_json::from_str(&s).unwrap_or(Json::Null),
                Ok(_) => serde_json::json!({"error": "the helper event is over the size limit"}),
                Err(e) => serde_json::json!({"error": e}),
            };
            let tick = h.state.borrow().tick;
            if h.tx.send(FromScript::Call(Call { seq: 0, helper: NOTE_HELPER.into(), params, tick })).is_err() {
                h.stop(RunStatus::Cancelled);
                return Err(helper_error(&ctx, &h, "cancelled", "the run was cancelled"));
            }
            match h.rx.recv() {
                Ok(ToScript::Reply(Reply::Value(v))) => from_json(&ctx, &v),
                Ok(ToScript::Reply(_)) => Ok(rquickjs::Value::new_null(ctx.clone())),
                Ok(ToScript::Abort) | Err(_) => {
                    h.stop(RunStatus::Cancelled);
                    Err(helper_error(&ctx, &h, "cancelled", "the run was cancelled"))
                }
                Ok(ToScript::Resume { .. }) => {
                    h.stop(RunStatus::Internal);
                    Err(helper_error(&ctx, &h, "internal", "helper protocol out of step"))
                }
            }
        },
    )?;
    let h = host.clone();
    let raise =
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, code: String, message: String| -> rquickjs::Result<()> {
            Err(helper_error(&ctx, &h, &code, &message))
        })?;
    let allow: Vec<String> = prelude.allow.clone();
    let make: Function = ctx.eval(prelude.code)?;
    make.call::<_, Object>((raw, note, raise, allow))
}

/// The helpers and the built-ins as one frozen object.
fn build_raw<'js>(ctx: &Ctx<'js>, host: &Rc<Host>, helpers: &[(String, HelperKind)]) -> rquickjs::Result<Object<'js>> {
    let obj = Object::new(ctx.clone())?;
    for (name, kind) in helpers {
        if BUILTINS.contains(&name.as_str()) {
            continue;
        }
        let f = helper_fn(ctx, host.clone(), name.clone(), *kind)?;
        obj.set(name.as_str(), f)?;
    }
    let h = host.clone();
    obj.set(
        "tick",
        Function::new(ctx.clone(), move || -> u64 {
            let st = h.state.borrow();
            st.tick - st.start_tick
        })?,
    )?;
    let h = host.clone();
    obj.set("rand", Function::new(ctx.clone(), move || -> f64 { h.next_rand() })?)?;
    let h = host.clone();
    obj.set(
        "log",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<rquickjs::Value<'js>>| -> rquickjs::Result<()> {
            let parts: Vec<String> = args
                .0
                .into_iter()
                .map(|v| match v.as_string() {
                    Some(s) => s.to_string().unwrap_or_default(),
                    None => to_json_string(&ctx, v).unwrap_or_else(|_| "?".into()),
                })
                .collect();
            let mut line: String = parts.join(" ");
            if line.chars().count() > MAX_LOG_CHARS {
                line = line.chars().take(MAX_LOG_CHARS).collect::<String>() + "…";
            }
            let mut st = h.state.borrow_mut();
            if st.logs.len() < MAX_LOG_LINES {
                st.logs.push(line);
            }
            Ok(())
        })?,
    )?;
    let wait = helper_fn(ctx, host.clone(), WAIT_HELPER.into(), HelperKind::Action)?;
    // `waitTicks(n)` takes a number; it is sent as `{ticks: n}`.
    let wrap: Function = ctx.eval("(w) => function waitTicks(n) { return w({ ticks: n }); }")?;
    obj.set(WAIT_HELPER, wrap.call::<_, Function>((wait,))?)?;
    let freeze: Function = ctx.eval("(o) => Object.freeze(o)")?;
    freeze.call::<_, Object>((obj,))
}

/// One helper: validates the argument, sends the call, turns the reply into a value, a thrown
/// `HelperError` or a Promise.
fn helper_fn<'js>(ctx: &Ctx<'js>, host: Rc<Host>, name: String, kind: HelperKind) -> rquickjs::Result<Function<'js>> {
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, arg: Opt<rquickjs::Value<'js>>| -> rquickjs::Result<rquickjs::Value<'js>> {
            let params = match arg.0 {
                None => "{}".to_owned(),
                Some(v) if v.is_undefined() => "{}".to_owned(),
                Some(v) if v.is_object() && !v.is_array() && !v.is_function() => match to_json_string(&ctx, v) {
                    Ok(s) => s,
                    Err(e) => {
                        return Err(helper_error(
                            &ctx,
                            &host,
                            "invalid_params",
                            &format!("ctx.{name}: parameters {e}"),
                        ));
                    }
                },
                Some(_) => {
                    return Err(helper_error(
                        &ctx,
                        &host,
                        "invalid_params",
                        &format!("ctx.{name} takes one object of parameters, e.g. ctx.{name}({{…}})"),
                    ));
                }
            };
            if params.len() > MAX_JSON_BYTES {
                return Err(helper_error(
                    &ctx,
                    &host,
                    "invalid_params",
                    &format!("ctx.{name}: parameters over {MAX_JSON_BYTES} bytes"),
                ));
            }
            let params: Json = serde_json::from_str(&params).unwrap_or(Json::Null);
            let (seq, tick) = {
                let mut st = host.state.borrow_mut();
                if st.calls >= host.limits.max_helper_calls {
                    st.stop.get_or_insert(Stop::Status(RunStatus::HelperBudget));
                    drop(st);
                    return Err(helper_error(&ctx, &host, "helper_budget", "the run's helper-call budget is spent"));
                }
                st.calls += 1;
                (st.calls, st.tick)
            };
            if host.tx.send(FromScript::Call(Call { seq, helper: name.clone(), params, tick })).is_err() {
                host.stop(RunStatus::Cancelled);
                return Err(helper_error(&ctx, &host, "cancelled", "the run was cancelled"));
            }
            let reply = match host.rx.recv() {
                Ok(ToScript::Reply(r)) => r,
                Ok(ToScript::Abort) | Err(_) => {
                    host.stop(RunStatus::Cancelled);
                    return Err(helper_error(&ctx, &host, "cancelled", "the run was cancelled"));
                }
                Ok(ToScript::Resume { .. }) => {
                    host.stop(RunStatus::Internal);
                    return Err(helper_error(&ctx, &host, "internal", "helper protocol out of step"));
                }
            };
            match (kind, reply) {
                (_, Reply::Error { code, message }) => Err(helper_error(&ctx, &host, &code, &message)),
                (_, Reply::Value(v)) => from_json(&ctx, &v),
                (_, Reply::Resolved(v)) => {
                    let (promise, resolve, _) = ctx.promise()?;
                    resolve.call::<_, ()>((from_json(&ctx, &v)?,))?;
                    Ok(promise.into_value())
                }
                (_, Reply::Pending) => {
                    let (promise, resolve, _) = ctx.promise()?;
                    host.state.borrow_mut().resolvers.insert(seq, Persistent::save(&ctx, resolve));
                    Ok(promise.into_value())
                }
            }
        },
    )
}

/// Resolves the promises of delivered helper results.
fn apply_deliveries(context: &Context, host: &Rc<Host>) {
    let stash = std::mem::take(&mut host.state.borrow_mut().stash);
    if stash.is_empty() {
        return;
    }
    context.with(|ctx| {
        for (seq, value) in stash {
            let resolver = host.state.borrow_mut().resolvers.remove(&seq);
            let Some(resolver) = resolver else { continue };
            let Ok(resolve) = resolver.restore(&ctx) else { continue };
            let Ok(v) = from_json(&ctx, &value) else { continue };
            if resolve.call::<_, ()>((v,)).is_err() {
                let _ = ctx.catch();
            }
        }
    });
}

/// The script thread: waits for the first slice, compiles and starts `run`, then alternates
/// between draining jobs and waiting for the next tick until `run` settles or the run is stopped.
fn run_script(spec: &ScriptSpec, tx: Sender<FromScript>, rx: Receiver<ToScript>, kill: Arc<AtomicBool>) -> ScriptEnd {
    let host = Rc::new(Host { tx, rx, kill, limits: spec.limits, state: RefCell::new(HostState::new(0, spec.seed)) });
    let end = |host: &Rc<Host>, status: RunStatus, value: Option<Json>, error: Option<ScriptError>| ScriptEnd {
        status,
        value,
        error,
        usage: host.usage(),
        logs: std::mem::take(&mut host.state.borrow_mut().logs),
    };
    // The first Resume carries the start tick.
    if !host.wait_resume() {
        return end(&host, host.stopped().unwrap_or(RunStatus::Cancelled), None, None);
    }
    {
        let mut st = host.state.borrow_mut();
        st.start_tick = st.tick;
    }
    let (rt, context) = match new_runtime(&host) {
        Ok(x) => x,
        Err(e) => {
            let err = ScriptError { name: "InternalError".into(), message: e.to_string(), stack: String::new() };
            return end(&host, RunStatus::Internal, None, Some(err));
        }
    };
    let (status, value, error) = drive_script(spec, &host, &rt, &context);
    // Values kept from Rust must go before the runtime, or QuickJS finds them alive at exit.
    host.release_js();
    drop(context);
    drop(rt);
    end(&host, status, value, error)
}

type Settled = (RunStatus, Option<Json>, Option<ScriptError>);

fn drive_script(spec: &ScriptSpec, host: &Rc<Host>, rt: &Runtime, context: &Context) -> Settled {
    let host = host.clone();
    let end = |_: &Rc<Host>, status: RunStatus, value: Option<Json>, error: Option<ScriptError>| (status, value, error);
    let started = context.with(|ctx| -> Result<Persistent<rquickjs::Promise<'static>>, ScriptError> {
        harden(&ctx, &host).map_err(|e| ScriptError {
            name: "InternalError".into(),
            message: e.to_string(),
            stack: String::new(),
        })?;
        let module = Module::declare(ctx.clone(), "skill", spec.source.as_str())
            .catch(&ctx)
            .map_err(|e| caught_error(&ctx, e))?;
        let (module, top) = module.eval().catch(&ctx).map_err(|e| caught_error(&ctx, e))?;
        while ctx.execute_pending_job() {}
        if top.state() == PromiseState::Rejected {
            return Err(match top.finish::<()>().catch(&ctx) {
                Err(e) => caught_error(&ctx, e),
                Ok(()) => {
                    ScriptError { name: "Error".into(), message: "top-level code failed".into(), stack: String::new() }
                }
            });
        }
        let run: Function = module.get("run").catch(&ctx).map_err(|e| caught_error(&ctx, e))?;
        let ctx_obj = build_ctx(&ctx, &host, &spec.helpers, spec.prelude.as_ref())
            .catch(&ctx)
            .map_err(|e| caught_error(&ctx, e))?;
        let params = from_json(&ctx, &spec.params).catch(&ctx).map_err(|e| caught_error(&ctx, e))?;
        let result: rquickjs::Value = run.call((ctx_obj, params)).catch(&ctx).map_err(|e| caught_error(&ctx, e))?;
        let promise = match result.clone().into_promise() {
            Some(p) => p,
            None => {
                let (p, resolve, _) = ctx.promise().catch(&ctx).map_err(|e| caught_error(&ctx, e))?;
                resolve.call::<_, ()>((result,)).catch(&ctx).map_err(|e| caught_error(&ctx, e))?;
                p
            }
        };
        Ok(Persistent::save(&ctx, promise))
    });
    let promise = match started {
        Ok(p) => p,
        Err(e) => {
            let status = status_of(&host, &e);
            return end(&host, status, None, Some(e));
        }
    };
    loop {
        // Drain the job queue (the interrupt handler may pause inside it across ticks).
        loop {
            if host.stopped().is_some() {
                break;
            }
            apply_deliveries(context, &host);
            match rt.execute_pending_job() {
                Ok(true) => continue,
                Ok(false) => {
                    if host.state.borrow().stash.is_empty() {
                        break;
                    }
                }
                Err(_) => {
                    // A job threw past every handler: only uncatchable errors do (stops).
                    if host.stopped().is_some() {
                        break;
                    }
                }
            }
        }
        let memory = u64::try_from(rt.memory_usage().malloc_size).unwrap_or(0);
        {
            let mut st = host.state.borrow_mut();
            st.peak_memory = st.peak_memory.max(memory);
        }
        if let Some(status) = host.stopped() {
            let err = host.state.borrow().forbidden.clone().map(|what| ScriptError {
                name: "TypeError".into(),
                message: format!("{what} is not available in skills"),
                stack: String::new(),
            });
            return end(&host, status, None, err);
        }
        let settled = context.with(|ctx| -> Option<Result<Json, ScriptError>> {
            let p = promise.clone().restore(&ctx).ok()?;
            match p.state() {
                PromiseState::Pending => None,
                PromiseState::Resolved => Some(match p.result::<rquickjs::Value>() {
                    Some(Ok(v)) => match to_json_string(&ctx, v) {
                        Ok(s) if s.len() > MAX_JSON_BYTES => Err(ScriptError {
                            name: "RangeError".into(),
                            message: format!("the return value is over {MAX_JSON_BYTES} bytes of JSON"),
                            stack: String::new(),
                        }),
                        Ok(s) => Ok(serde_json::from_str(&s).unwrap_or(Json::Null)),
                        Err(e) => Err(ScriptError {
                            name: "TypeError".into(),
                            message: format!("the return value is {e}"),
                            stack: String::new(),
                        }),
                    },
                    _ => Ok(Json::Null),
                }),
                PromiseState::Rejected => Some(Err(match p.finish::<()>().catch(&ctx) {
                    Err(e) => caught_error(&ctx, e),
                    Ok(()) => ScriptError { name: "Error".into(), message: "rejected".into(), stack: String::new() },
                })),
            }
        });
        match settled {
            Some(Ok(value)) => return end(&host, RunStatus::Returned, Some(value), None),
            Some(Err(e)) => {
                let status = status_of(&host, &e);
                return end(&host, status, None, Some(e));
            }
            None => {}
        }
        let usage = host.usage();
        if host.tx.send(FromScript::Yield { paused: false, usage }).is_err() || !host.wait_resume() {
            return end(&host, RunStatus::Cancelled, None, None);
        }
    }
}

#[cfg(test)]
mod tests;
