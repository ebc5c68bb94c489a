//! The [`Redactor`]: keyword scan, rule windows, candidate resolution, output.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::{self, Read, Write};
use std::sync::{mpsc, Arc, OnceLock, PoisonError, RwLock};

use crate::builtin::P_KNOWN;
use crate::checks::{self, Verdict};
use crate::known::{self, Origin, Variant};
use crate::quick::StartNeeds;
use crate::rule::{Rule, RuleSet, Window};
use crate::scan::{Hit, Scanner};
use crate::Error;

/// How far either side of a keyword hit a line window may reach on a long line.
pub(crate) const MAX_SIDE: usize = 4096;

/// Rule id of values taken from the process environment.
pub const ENV_SECRET_ID: &str = "env-secret";
/// Rule id of values registered with [`RedactorBuilder::known_value`].
pub const KNOWN_VALUE_ID: &str = "known-value";

const MARKER_OPEN: &[u8] = b"[REDACTED:";

/// Default size of a canonical round ([`RedactorBuilder::block_size`]).
const DEFAULT_BLOCK: usize = 1 << 20;
/// How far below a round's highest cut [`Redactor::predict_cut`] looks.
const PREDICT_RANGE: usize = 16 << 10;

/// The most a stream reads at once while it waits for its workers, so that
/// it sees them answer soon (reads of files this size run at ~4 GB/s here).
const READ_PIECE: usize = 256 << 10;
/// Rule windows up to this size count in the short look-back of a prediction
/// (see `Redactor::predict_cut`); wider ones (the PEM rules' 16 and 64 KiB)
/// only where their keywords occur.
const SHORT_WINDOW: usize = 8 << 10;
/// The most threads [`RedactorBuilder::threads`] accepts.
const MAX_THREADS: usize = 64;
/// Smallest round: each round looks at up to twice the widest rule window
/// besides its block, so much smaller rounds would only repeat work.
const MIN_BLOCK: usize = 1024;
/// The largest round (see [`RedactorBuilder::block_size`]): with its context
/// its positions fit in a `u32`.
const MAX_BLOCK: usize = 1 << 30;

/// What a scanner pattern stands for.
#[derive(Debug, Default)]
struct Target {
    rules: Vec<u32>,
    /// `rules` grouped by guard (each guard is tested once per hit).
    groups: Vec<(Option<checks::Guard>, Vec<u32>)>,
    heads: Vec<u32>,
    tails: Vec<u32>,
    /// The rules of `rules` whose matches start with a keyword (run anchored at hits).
    anchors: Vec<u32>,
    /// `anchors` as a set of rule bits (the layout of `HitBufs::bits`).
    anchor_bits: Vec<u64>,
    /// The pattern is the opening of a marker (`[REDACTED:`).
    marker: bool,
    /// The pattern is a word of these line-level guards (see `checks::LINE_WORDS`).
    line_words: Vec<checks::Guard>,
    /// How a hit of this pattern is dismissed without its guard groups
    /// (`None`: it always goes through them).
    quick: Option<Quick>,
    /// Patterns whose hit at the same start does all this one's hit would
    /// (see `covering`): this hit is then skipped.
    covered_by: Vec<u32>,
    /// A covered hit is skipped on a line of any length, not only on one
    /// ending within 256 bytes (see `covering`).
    covered_far: bool,
    /// The pattern holds a `\n` (so does each of its hits: the scanner
    /// ignores only ASCII letter case).
    newline: bool,
}

impl Quick {
    /// The guards of `name_guards` that a hit with context shapes `feat` may
    /// pass (`HitCtx::may_pass`), one bit per index (`None` without `by_shape`).
    fn candidates(&self, feat: u16) -> Option<u32> {
        let (by, shapeless) = self.by_shape.as_ref()?;
        let mut cand = *shapeless;
        let mut f = feat & self.shapes;
        while f != 0 {
            cand |= by[f.trailing_zeros() as usize];
            f &= f - 1;
        }
        Some(cand)
    }
}

/// What must fail at a keyword hit for none of its target's rules to run
/// (see `Redactor::dismissed`): every guard of its groups, and for rules
/// without a guard, the cheap test of each (anchored rules: a match cannot
/// start at the hit; rules with `needs`: the line fails it).
#[derive(Debug, Default)]
struct Quick {
    /// The shapes (`HitCtx` feature bits) of the guards that look at the hit:
    /// a hit with none of them fails all of those guards at once.
    shapes: u16,
    /// The distinct guards that look at the hit.
    name_guards: Vec<checks::Guard>,
    /// One of them has no particular shape (it is always evaluated).
    shapeless: bool,
    /// Per shape bit, which of `name_guards` have it, one bit per index; and
    /// which are shapeless: the guards a hit's shapes leave to evaluate, in
    /// their order, without testing each (`None`: more than 32 guards).
    by_shape: Option<([u32; 16], u32)>,
    /// All of them read only the hit and its line's ends
    /// (`checks::reads_hit_only`): the hit's context is not read for them.
    hit_only: bool,
    /// The shape pre-test applies (`shapes` but no shapeless guard) and no
    /// guard reads the hit only: the verdict of the name guards may be
    /// remembered by the hit's key (`checks::VerdictMemo`).
    memo: bool,
    /// The guards that look at the whole line with a bit of their own (see
    /// `line_bit`): their results are kept per line as bits.
    line_bits: u8,
    /// The other distinct guards that look at the whole line (results shared by its hits).
    line_guards: Vec<checks::Guard>,
    /// Unguarded rules run anchored at the hit.
    anchored: Vec<u32>,
    /// Whether one of `anchored` reads continuation lines
    /// ([`Window::Continued`]).
    continued: bool,
    /// Unguarded line rules with a `needs` test.
    needs: Vec<u32>,
}

struct Inner {
    rules: Vec<Rule>,
    /// Ids by source: rules first, then env values, then embedder values.
    ids: Vec<String>,
    scanner: Scanner,
    targets: Vec<Target>,
    keywordless: Vec<u32>,
    variants: Vec<Variant>,
    max_variant: usize,
    env_count: usize,
    embedder_count: usize,
    /// Canonical round size (see `Redactor::round`).
    block: usize,
    /// How far past a hit the windows other than `Window::Following` reach
    /// (`context` without the widest following window).
    near: usize,
    /// How far any window reaches: the look-ahead and look-back of a round.
    context: usize,
    /// `context` without the windows wider than [`SHORT_WINDOW`]: how far
    /// back a prediction reads when none of their keywords is in the text
    /// between the two (see `Redactor::predict_cut`).
    short: usize,
    /// The keywords of the rules whose windows are wider than
    /// [`SHORT_WINDOW`] (`None`: there are none, `short` is `context`).
    wide: Option<aho_corasick::AhoCorasick>,
    /// The longest scanner pattern.
    max_keyword: usize,
    /// The pattern of markers (`[REDACTED:`, the one target with `marker`).
    marker_pattern: u32,
    /// Prefixed rules run anchored at their keyword hits.
    anchored: bool,
    /// Hits whose rules cannot run are dismissed first (see `Redactor::dismissed`).
    quick: bool,
    /// Hits without context shapes are told by `checks::HitCtx::renew_shaped`, without
    /// their context (see `Redactor::spans_with_hits`).
    shape_pretest: bool,
    /// Hits whose name guards are known to fail are told by their keys
    /// (`checks::VerdictMemo`), without their context.
    verdict_memo: bool,
    /// See `RedactorBuilder::mispredict`.
    mispredict: bool,
    /// See `RedactorBuilder::spare_cpu` (`None`: the machine says).
    spare_cpu: Option<bool>,
    /// See `RedactorBuilder::full_context`.
    full_context: bool,
    /// Checks that could only add a covered candidate are put off (see `Redactor::accept`).
    defer: bool,
    /// Searches resume where a match may start (see `Rule::resume`).
    resume: bool,
    /// Windows with more keyword starts than this group them by rule
    /// (see `Redactor::run_window`).
    many_anchors: usize,
    /// More starts than this of one rule that reads far are searched for
    /// (see `Redactor::run_window`).
    many_starts: usize,
    /// Groups are read by the pattern's pieces (see `Rule::split`).
    split: bool,
    /// Per rule: what a match needs at its start (anchored rules, built on first use).
    start_needs: Vec<OnceLock<Option<StartNeeds>>>,
}

/// Masks secrets in text. Cheap to clone and share: an `Arc` inside; `Send + Sync`.
///
/// See the crate docs for what is masked and what is deliberately left.
#[derive(Clone)]
pub struct Redactor {
    inner: Arc<Inner>,
    /// Rounds judged at the same time (see [`RedactorBuilder::threads`]).
    threads: usize,
    /// Streams read ahead while rounds are judged (see [`RedactorBuilder::read_ahead`]).
    read_ahead: bool,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("rules", &self.inner.rules.len())
            .field("env_values", &self.inner.env_count)
            .field("known_values", &self.inner.embedder_count)
            .field("searched_forms", &self.inner.variants.len())
            .field("threads", &self.threads)
            .field("read_ahead", &self.read_ahead)
            .finish()
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::builtin()
    }
}

/// Counts of what a redaction masked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedactStats {
    /// Number of markers written.
    pub redactions: usize,
    /// Markers per rule id.
    pub by_rule: BTreeMap<String, usize>,
    /// Bytes read (streaming) or given (one-shot).
    pub bytes_in: u64,
    /// Bytes written (streaming) or returned (one-shot).
    pub bytes_out: u64,
}

impl RedactStats {
    fn add(&mut self, id: &str) {
        self.redactions += 1;
        *self.by_rule.entry(id.to_string()).or_insert(0) += 1;
    }
}

/// One masked span of the input (byte offsets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Start byte offset of the masked text.
    pub start: usize,
    /// End byte offset (exclusive).
    pub end: usize,
    /// The rule id written in the marker.
    pub rule_id: String,
}

/// One masked span with what it held: its place in the input, the place of
/// its marker in the output, the rule and the original bytes. Returned by
/// [`Redactor::redact_bytes_masked`]; what a secret-preserving edit needs to
/// map the redacted view a model saw back to the file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Masked {
    /// Start byte offset of the masked text in the input.
    pub start: usize,
    /// End byte offset (exclusive) in the input.
    pub end: usize,
    /// Start byte offset of the marker `[REDACTED:RULE]` in the output.
    pub marker_start: usize,
    /// End byte offset (exclusive) of the marker in the output.
    pub marker_end: usize,
    /// The rule id written in the marker.
    pub rule_id: String,
    /// The original bytes (`input[start..end]`).
    pub value: Vec<u8>,
}

/// Settings of [`Redactor::redact_stream_with`]. They set how much is read
/// at a time, never what comes out: the output equals one-shot redaction of
/// the whole input whatever they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamOptions {
    /// Bytes asked of the reader at a time (default 1 MiB; at least 4 KiB and
    /// at most one round are asked for).
    pub chunk_size: usize,
    /// Kept for compatibility; no longer used. The stream holds at most one
    /// round ([`RedactorBuilder::block_size`]) plus twice the widest rule
    /// window, whatever the input.
    pub max_buffer: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            chunk_size: 1 << 20,
            max_buffer: 16 << 20,
        }
    }
}

/// A candidate mask.
#[derive(Clone, Copy, Debug)]
struct Cand {
    s: usize,
    e: usize,
    src: u32,
    prio: u8,
}

/// The window of a match a rule rejected: `(rule, window start, window end)`
/// (the second look runs the rule on the window again).
type Rejected = (u32, usize, usize);

/// A match whose check was put off because all it could add is covered by a
/// candidate of a better priority (see `Redactor::accept`): its verdict is
/// only needed if the second look would find something in its window.
#[derive(Clone, Copy, Debug)]
struct Deferred {
    r: u32,
    ws: usize,
    we: usize,
    /// The secret, relative to the window.
    secret: (usize, usize),
    /// The name group, relative to the window.
    name: Option<(usize, usize)>,
    bare: bool,
}

/// Where rule runs put their results.
#[derive(Default)]
struct Sink {
    cands: Vec<Cand>,
    rejected: Vec<Rejected>,
    /// Matches whose check was put off (first pass only).
    deferred: Vec<Deferred>,
    /// The second look runs: no check is put off.
    second: bool,
    /// Work buffers of `run_window` (offsets in the block, as `by_rule`).
    starts: Vec<u32>,
    /// Per rule, its keyword starts in a window of many (see `run_window`),
    /// as offsets in the block (at most [`MAX_BLOCK`] plus a context).
    by_rule: Vec<Vec<u32>>,
}

impl Sink {
    /// Records that rule `r` rejected a match in window `(ws, we)`. The
    /// first pass records a window once while its matches come one after
    /// another (the second look reads each window once: a long line's
    /// window held ~100 000 rejected matches, 4 MB); the second look
    /// records every one, as its rounds read the windows added since the
    /// round before.
    fn reject(&mut self, w: Rejected) {
        if self.second || self.rejected.last() != Some(&w) {
            self.rejected.push(w);
        }
    }
}

/// Buffers reused from round to round (a round of keyword-dense text holds
/// tens of thousands of hits: fresh vectors each round cost page faults).
#[derive(Default)]
struct Scratch {
    hits: Vec<Hit>,
    /// Hits of the scanner's second to fourth segments.
    segments: [Vec<Hit>; 3],
    blocked: Vec<(usize, usize)>,
    /// The per-round buffers of `spans_with_hits`.
    bufs: HitBufs,
}

/// The buffers `spans_with_hits` fills in each round, kept from round to
/// round: cleared, never shrunk, so that a steady stream allocates nothing
/// per round (growing them anew cost ~4 % of a keyword-dense profile in
/// reallocations and page faults).
#[derive(Default)]
struct HitBufs {
    /// The words of line-level guards.
    words: GuardWords,
    /// Windows of rules that look beyond the hit's line: (rule, start, end).
    /// Offsets in the block (at most [`MAX_BLOCK`] plus a context): 12
    /// bytes a window, a line of `key=value key=value …` has one per hit.
    follow: Vec<(u32, u32, u32)>,
    line_rules: Vec<u32>,
    line_cache: Vec<(checks::Guard, bool)>,
    follow_memo: Vec<(usize, (usize, usize))>,
    anchors: Anchors,
    /// Rules to run on the current line window, one bit each.
    bits: Vec<u64>,
    /// Per rule whose bit is set: the part of the current window its own
    /// hits' windows span (see `Redactor::run_window`).
    extents: Vec<(usize, usize)>,
    /// Name verdicts: a pure function of the name, so kept across rounds.
    memo: checks::NameMemo,
    /// Name-guard verdicts by key: a function of the key, kept across rounds.
    verdicts: checks::VerdictMemo,
}

/// The keyword starts of prefixed rules: `(pattern, hit start)` in order of
/// the hits whose target has such rules (one entry per hit, not per rule:
/// nearly every hit is dismissed, and the windows that run look the
/// target's rules up); those before `from` belong to windows already run.
#[derive(Default)]
struct Anchors {
    /// (pattern, start): starts are offsets in the block (at most
    /// [`MAX_BLOCK`] plus a context).
    list: Vec<(u32, u32)>,
    from: usize,
}

/// The text a batch's rounds read: the stream's buffer, which the stream
/// refills between batches, or (in tests of batches) a slice. A text in
/// memory is judged by [`Redactor::pipelined_rounds`], without batches.
#[derive(Clone, Copy)]
enum Text<'a> {
    #[cfg(test)]
    Slice(&'a [u8]),
    Buffer(&'a RwLock<Vec<u8>>),
}

impl Text<'_> {
    /// `f` of the text.
    fn read<T>(&self, f: impl FnOnce(&[u8]) -> T) -> T {
        match self {
            #[cfg(test)]
            Text::Slice(s) => f(s),
            Text::Buffer(b) => f(&b.read().unwrap_or_else(PoisonError::into_inner)),
        }
    }
}

/// Input a stream read ahead while a batch was judged, for the batches
/// after it: `data[start..end]`, then what the reader said last.
struct Ahead {
    /// Zeroed once, as the stream's own buffer.
    data: Vec<u8>,
    start: usize,
    end: usize,
    /// The reader said it had no more.
    eof: bool,
    /// The reader failed: the stream fails where it would have read this.
    err: Option<io::Error>,
}

/// What [`Ahead::take`] gave.
enum Taken {
    Bytes(usize),
    End,
    Failed(io::Error),
    /// Nothing was read ahead: read now.
    Nothing,
}

impl Ahead {
    /// Room for `cap` bytes read ahead (0: the stream never reads ahead).
    fn new(cap: usize) -> Ahead {
        Ahead {
            data: vec![0; cap],
            start: 0,
            end: 0,
            eof: false,
            err: None,
        }
    }

    /// Reads one piece of at most `piece` bytes ahead, if there is room;
    /// whether more may be read (room left, no end, no failure).
    fn fill_piece<R: Read>(
        &mut self,
        reader: &mut R,
        piece: usize,
        stats: &mut RedactStats,
    ) -> bool {
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
        }
        if self.eof || self.err.is_some() || self.end == self.data.len() {
            return false;
        }
        let want = piece.min(self.data.len() - self.end);
        match reader.read(&mut self.data[self.end..self.end + want]) {
            Ok(0) => self.eof = true,
            Ok(n) => {
                self.end += n;
                stats.bytes_in += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => self.err = Some(e),
        }
        !self.eof && self.err.is_none() && self.end < self.data.len()
    }

    /// Moves what was read ahead into `to` (as much as fits), in order, and
    /// then what the reader said after it.
    fn take(&mut self, to: &mut [u8]) -> Taken {
        if self.start < self.end {
            let n = (self.end - self.start).min(to.len());
            to[..n].copy_from_slice(&self.data[self.start..self.start + n]);
            self.start += n;
            return Taken::Bytes(n);
        }
        match self.err.take() {
            Some(e) => Taken::Failed(e),
            None if self.eof => Taken::End,
            None => Taken::Nothing,
        }
    }
}

/// What a worker judges: the `k`-th round (`k`: its place among the
/// workers plus `offset`) after the batch's first, which starts at `base`
/// of the text and emits from `p` (skipping to `skip`), in the `len` bytes
/// from `base`.
#[derive(Clone, Copy)]
struct Job {
    base: usize,
    len: usize,
    p: usize,
    skip: usize,
    eof: bool,
    /// Worker `i` (from 0) judges the batch's round `i + offset`: 1 when
    /// the calling thread judges the first round itself, 0 when it reads
    /// ahead meanwhile.
    offset: usize,
}

/// A worker's answer: the round and where it starts, or `None`.
type Answer = Option<(usize, Round)>;

/// The threads that judge the rounds after a batch's first, started at the
/// first batch that needs them and kept for the whole text, so that each
/// keeps its buffers and regex caches warm.
struct Workers {
    /// Per worker: where its jobs go and its answers come from; `None` when
    /// it could not be started (its rounds are then judged by the batches
    /// that follow).
    lanes: Vec<Option<(mpsc::Sender<Job>, mpsc::Receiver<Answer>)>>,
    /// Workers the text may have (threads − 1).
    most: usize,
}

impl Workers {
    /// No worker started yet; at most `most` will be.
    fn idle(most: usize) -> Workers {
        Workers {
            lanes: Vec::new(),
            most,
        }
    }

    /// Hands `job` to the first `n` workers (starting them if need be);
    /// which of them took it, in order.
    fn ask<'scope, 'env>(
        &mut self,
        sc: &'scope std::thread::Scope<'scope, 'env>,
        redactor: &'env Redactor,
        text: &Text<'env>,
        job: Job,
        n: usize,
    ) -> Vec<bool> {
        let n = n.min(self.most);
        while self.lanes.len() < n {
            let lane = self.lanes.len();
            let (jobs, inbox) = mpsc::channel::<Job>();
            let (outbox, answers) = mpsc::channel::<Answer>();
            let text = *text;
            let started = std::thread::Builder::new()
                .name("toolexec-redact".into())
                .spawn_scoped(sc, move || {
                    let mut scratch = Scratch::default();
                    while let Ok(job) = inbox.recv() {
                        let answer = text.read(|view| {
                            let view = &view[job.base..job.base + job.len];
                            let k = lane + job.offset;
                            redactor.speculate(view, (job.p, job.skip), k, job.eof, &mut scratch)
                        });
                        if outbox.send(answer).is_err() {
                            break;
                        }
                    }
                });
            self.lanes.push(started.ok().map(|_| (jobs, answers)));
        }
        self.lanes[..n]
            .iter()
            .map(|lane| {
                lane.as_ref()
                    .is_some_and(|(jobs, _)| jobs.send(job).is_ok())
            })
            .collect()
    }

    /// The answers of the workers `asked` says took a job, in order (`None`
    /// for the others and for a worker that stopped); `early` holds those
    /// [`Workers::answered`] took already.
    fn answers(&self, asked: Vec<bool>, early: Vec<Option<Answer>>) -> Vec<Answer> {
        asked
            .into_iter()
            .zip(&self.lanes)
            .zip(early.into_iter().chain(std::iter::repeat_with(|| None)))
            .map(|((took, lane), early)| match (lane, early) {
                (_, Some(answer)) => answer,
                (Some((_, answers)), None) if took => answers.recv().ok().flatten(),
                _ => None,
            })
            .collect()
    }

    /// Whether every worker `asked` says took a job has answered, taking
    /// the answers that came into `early` (without waiting).
    fn answered(&self, asked: &[bool], early: &mut Vec<Option<Answer>>) -> bool {
        early.resize_with(asked.len(), || None);
        let mut all = true;
        for ((&took, lane), slot) in asked.iter().zip(&self.lanes).zip(early.iter_mut()) {
            match lane {
                Some((_, answers)) if took && slot.is_none() => match answers.try_recv() {
                    Ok(answer) => *slot = Some(answer),
                    Err(mpsc::TryRecvError::Disconnected) => *slot = Some(None),
                    Err(mpsc::TryRecvError::Empty) => all = false,
                },
                _ => {}
            }
        }
        all
    }
}

/// What the calling thread does while the workers judge a batch's rounds
/// (see [`RedactorBuilder::read_ahead`]).
enum Meanwhile<'a> {
    /// It judges the first round and waits.
    Wait,
    /// The workers judge every round; it reads the next batch's input
    /// piece by piece (the closure: whether it may read more).
    ReadAhead(&'a mut dyn FnMut() -> bool),
    /// It judges the first round, then reads the next batch's input piece
    /// by piece until the workers answer (the closure: whether it may read
    /// more).
    ReadWhileWaiting(&'a mut dyn FnMut() -> bool),
}

/// How many rounds the next batch judges at once: all threads, but after a
/// batch whose predictions failed (text whose cuts cannot be predicted: a
/// long keyword-dense stretch) one round at a time for a few batches, so
/// that such text does not pay for guesses that keep failing.
struct Pace {
    threads: usize,
    /// Batches left that judge one round.
    calm: usize,
}

impl Pace {
    /// Batches of one round after a failed prediction.
    const CALM: usize = 4;

    fn new(threads: usize) -> Pace {
        Pace { threads, calm: 0 }
    }

    fn width(&self) -> usize {
        if self.calm > 0 {
            1
        } else {
            self.threads
        }
    }

    /// A batch was judged; `failed`: a prediction in it did not hold.
    fn judged(&mut self, failed: bool) {
        self.calm = if failed {
            Pace::CALM
        } else {
            self.calm.saturating_sub(1)
        };
    }
}

/// A resolved mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    s: usize,
    e: usize,
    src: u32,
    prio: u8,
}

#[derive(Clone, Debug)]
enum EnvSource {
    Process,
    Off,
    Given(Vec<(String, String)>),
}

/// Builder of a [`Redactor`]: built-in rules (on), user rules, known values and
/// the process's secret-looking environment values (on).
#[derive(Clone, Debug)]
pub struct RedactorBuilder {
    block: usize,
    threads: usize,
    read_ahead: bool,
    /// Prefixed rules run anchored at their keyword hits (off only in tests
    /// that compare both ways).
    anchored: bool,
    /// Hits are dismissed before their guard groups (off only in tests that
    /// compare both ways).
    quick: bool,
    /// Hits without context shapes are dismissed without their context (off
    /// only in tests that compare both ways).
    shape_pretest: bool,
    /// Name-guard verdicts are remembered by their keys (off only in tests
    /// that compare both ways).
    verdict_memo: bool,
    /// Every predicted cut is off by one byte (on only in tests of the
    /// check that drops rounds judged from a wrong prediction).
    mispredict: bool,
    /// Whether a CPU is left for reading ahead (`None`: the machine says;
    /// set only in tests of both ways of reading ahead).
    spare_cpu: Option<bool>,
    /// Predictions read their whole context back and rounds their whole
    /// context ahead (on only in tests that compare both ways).
    full_context: bool,
    /// Checks of matches that could only add a covered candidate are put
    /// off (off only in tests that compare both ways).
    defer: bool,
    /// Searches resume where a match may start (off only in tests that
    /// compare both ways).
    resume: bool,
    /// Windows with more keyword starts than this group them by rule
    /// ([`MANY_ANCHORS`]; `usize::MAX` only in tests that compare both ways).
    many_anchors: usize,
    /// More starts than this of one rule that reads far are searched for
    /// ([`MANY_STARTS`]; `usize::MAX` only in tests that compare both ways).
    many_starts: usize,
    /// Groups are read by the pattern's pieces when they can be (off only
    /// in tests that compare both ways).
    split: bool,
    builtin: bool,
    rules: Vec<Rule>,
    known: Vec<String>,
    env: EnvSource,
}

impl RedactorBuilder {
    /// Whether the built-in rules are used (default `true`).
    pub fn builtin_rules(mut self, yes: bool) -> Self {
        self.builtin = yes;
        self
    }

    /// The size of a canonical round (default 1 MiB, at least 1 KiB): text is
    /// judged in rounds of about this many bytes, each cut where no rule
    /// window spans the cut when possible. One-shot redaction of a long text
    /// and streaming make the same rounds, so they give the same output; the
    /// size bounds the stream's memory (about one round plus twice the widest
    /// rule window, ~ 80 KiB with the built-in rules). At most 1 GiB: a
    /// round's positions are kept in 32 bits.
    pub fn block_size(mut self, bytes: usize) -> Self {
        self.block = bytes.clamp(MIN_BLOCK, MAX_BLOCK);
        self
    }

    /// How many threads one long text may use (default 1, at most 64): a
    /// stream or one-shot text longer than one round ([`Self::block_size`])
    /// judges up to this many rounds at the same time. Each round after the
    /// first of a batch starts where the round before it is predicted to cut
    /// (the cut is found on the text near the predicted round's end); a
    /// prediction that the finished round does not confirm is thrown away and
    /// that round judged again, so the output is the same for every count.
    /// The threads start at the first batch that needs them (text longer
    /// than one round: short texts never start one) and last for that text,
    /// so that each keeps its buffers and regex caches warm.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n.clamp(1, MAX_THREADS);
        self
    }

    /// Whether a stream on more than one thread reads the next batch's
    /// input while the rounds of a batch are judged (default off). Reading
    /// a file is ~10–15 % of the time of a fast stream, which then waits
    /// for it less. Two ways, chosen by whether the machine leaves a CPU
    /// for the reading ([`std::thread::available_parallelism`] above
    /// [`Self::threads`]):
    ///
    /// - with a spare CPU, [`Self::threads`] worker threads judge all the
    ///   rounds of a batch and the calling thread reads meanwhile;
    /// - without one, the calling thread judges the batch's first round as
    ///   it does without reading ahead, and then reads the next batch's
    ///   input in pieces of at most 256 KiB for as long as the workers are
    ///   still judging theirs (the wait of a batch for its slowest round).
    ///   On this 2-CPU machine with 2 threads, 100 MB files streamed with
    ///   the File reader, 20 alternated runs each, medians at load ~3:
    ///   keyword-free log 129 → 121 ms, Rust sources 242 → 214 ms,
    ///   structured log 462 → 446 ms; all workers judging while the
    ///   calling thread read had been slower there (98 → 114 ms on the
    ///   sources, three threads on two CPUs).
    ///
    /// Either way the output is the one without reading ahead, and a
    /// reader's failure fails the stream after the batches it would have
    /// written without. Only for readers that never wait long for their
    /// data (files): with a pipe or socket, the output of a judged batch
    /// would wait until the next batch's input came. `toolexec redact`
    /// turns it on when its input is a regular file.
    pub fn read_ahead(mut self, yes: bool) -> Self {
        self.read_ahead = yes;
        self
    }

    /// Every rule searches its windows, none runs anchored at its keywords.
    #[cfg(test)]
    fn unanchored(mut self) -> Self {
        self.anchored = false;
        self
    }

    /// Every keyword hit goes through its guard groups: none is dismissed first.
    #[cfg(test)]
    fn full_path(mut self) -> Self {
        self.quick = false;
        self
    }

    /// Every hit of a dismissal that looks at the hit gets its context: none
    /// is told to have no shapes by `checks::HitCtx::renew_shaped`.
    #[cfg(test)]
    fn full_shapes(mut self) -> Self {
        self.shape_pretest = false;
        self
    }

    /// Every hit of a dismissal that looks at the hit is judged anew: no
    /// verdict is remembered (`checks::VerdictMemo`).
    #[cfg(test)]
    fn no_verdict_memo(mut self) -> Self {
        self.verdict_memo = false;
        self
    }

    /// Every predicted cut is one byte off the real one.
    #[cfg(test)]
    fn mispredict(mut self) -> Self {
        self.mispredict = true;
        self
    }

    /// Reading ahead as if a CPU were left for it (all workers judge while
    /// the stream reads) or not (the stream judges too, and reads while it
    /// waits), whatever the machine.
    #[cfg(test)]
    fn spare_cpu(mut self, yes: bool) -> Self {
        self.spare_cpu = Some(yes);
        self
    }

    /// Every prediction reads its whole context back, every round its whole
    /// context ahead (see `Redactor::predict_cut`, `Redactor::look_ahead_end`).
    #[cfg(test)]
    fn full_context(mut self) -> Self {
        self.full_context = true;
        self
    }

    /// Every match's check runs at once: none is put off (see `Redactor::accept`).
    #[cfg(test)]
    fn checks_at_once(mut self) -> Self {
        self.defer = false;
        self
    }

    /// Every search resumes one byte after a match it did not skip over.
    #[cfg(test)]
    fn no_resume(mut self) -> Self {
        self.resume = false;
        self
    }

    /// Every rule filters a window's keyword starts itself, however many.
    #[cfg(test)]
    fn anchors_filtered(mut self) -> Self {
        self.many_anchors = usize::MAX;
        self
    }

    /// Every window's keyword starts are grouped by rule, however few.
    #[cfg(test)]
    fn anchors_grouped(mut self) -> Self {
        self.many_anchors = 0;
        self
    }

    /// Prefixed rules run anchored at every start, however many.
    #[cfg(test)]
    fn every_start_anchored(mut self) -> Self {
        self.many_starts = usize::MAX;
        self
    }

    /// Every group is read by a capture engine.
    #[cfg(test)]
    fn capture_engines(mut self) -> Self {
        self.split = false;
        self
    }

    /// Adds a user rule.
    pub fn rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Adds user rules (e.g. from [`RuleSet::from_path`]).
    pub fn rules(mut self, rules: RuleSet) -> Self {
        self.rules.extend(rules.rules);
        self
    }

    /// Registers an exact value to mask wherever it appears (rule id
    /// `known-value`). The value is masked as given (no trimming, case-sensitive),
    /// plus its JSON-escaped and percent-encoded forms; an empty value is ignored.
    pub fn known_value(mut self, value: impl Into<String>) -> Self {
        let v = value.into();
        if !v.is_empty() {
            self.known.push(v);
        }
        self
    }

    /// Registers several exact values (see [`RedactorBuilder::known_value`]).
    pub fn known_values<I, S>(mut self, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for v in values {
            self = self.known_value(v);
        }
        self
    }

    /// Whether the values of the process's secret-looking environment variables
    /// are masked (default `true`; rule id `env-secret`).
    pub fn env_values(mut self, yes: bool) -> Self {
        self.env = if yes {
            EnvSource::Process
        } else {
            EnvSource::Off
        };
        self
    }

    /// Masks the values of the process's secret-looking environment variables
    /// (the default; same as `env_values(true)`).
    pub fn known_values_from_env(self) -> Self {
        self.env_values(true)
    }

    /// Uses these `(name, value)` pairs instead of the process environment for
    /// the `env-secret` values (same selection rules).
    pub fn env_vars<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.env = EnvSource::Given(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self
    }

    /// Compiles everything into a [`Redactor`].
    pub fn build(self) -> Result<Redactor, Error> {
        let mut rules = if self.builtin {
            crate::builtin::rules()
        } else {
            Vec::new()
        };
        rules.extend(self.rules);

        let env_pairs: Vec<(String, String)> = match self.env {
            EnvSource::Off => Vec::new(),
            EnvSource::Process => std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            EnvSource::Given(v) => v,
        };
        let mut env_values: Vec<String> = env_pairs
            .into_iter()
            .filter(|(k, v)| known::is_secret_env_name(k) && known::env_value_qualifies(v))
            .map(|(_, v)| v)
            .collect();
        env_values.sort();
        env_values.dedup();
        let mut known_values = self.known;
        known_values.sort();
        known_values.dedup();

        let mut variants: Vec<Variant> = Vec::new();
        for v in &env_values {
            variants.extend(known::variants(v, Origin::Env));
        }
        for v in &known_values {
            variants.extend(known::variants(v, Origin::Embedder));
        }

        let mut ids: Vec<String> = rules.iter().map(|r| r.id.clone()).collect();
        ids.push(ENV_SECRET_ID.to_string());
        ids.push(KNOWN_VALUE_ID.to_string());

        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut targets: Vec<Target> = Vec::new();
        let mut slot =
            |key: &[u8], patterns: &mut Vec<Vec<u8>>, targets: &mut Vec<Target>| -> usize {
                let k = key.to_ascii_lowercase();
                *index.entry(k.clone()).or_insert_with(|| {
                    patterns.push(k);
                    targets.push(Target::default());
                    patterns.len() - 1
                })
            };
        let mut keywordless = Vec::new();
        let mut max_keyword = 0;
        for (ri, rule) in rules.iter().enumerate() {
            if rule.keywords.is_empty() {
                keywordless.push(ri as u32);
            }
            for k in &rule.keywords {
                max_keyword = max_keyword.max(k.len());
                let i = slot(k.as_bytes(), &mut patterns, &mut targets);
                if !targets[i].rules.contains(&(ri as u32)) {
                    targets[i].rules.push(ri as u32);
                }
            }
        }
        for t in &mut targets {
            t.anchors = t
                .rules
                .iter()
                .copied()
                .filter(|&r| self.anchored && rules[r as usize].may_prefix)
                .collect();
            t.anchor_bits = vec![0; rules.len().div_ceil(64).max(1)];
            for &r in &t.anchors {
                t.anchor_bits[r as usize / 64] |= 1 << (r % 64);
            }
            for &r in &t.rules {
                let g = rules[r as usize].guard;
                match t.groups.iter_mut().find(|(k, _)| *k == g) {
                    Some((_, rs)) => rs.push(r),
                    None => t.groups.push((g, vec![r])),
                }
            }
            t.quick = quick_of(&rules, &t.groups, &t.anchors).map(|mut q| {
                if q.name_guards.len() <= 32 {
                    let mut by = ([0u32; 16], 0u32);
                    for (k, &g) in q.name_guards.iter().enumerate() {
                        let shapes = checks::guard_shapes(g);
                        if shapes == u16::MAX {
                            by.1 |= 1 << k;
                        } else {
                            for (b, m) in by.0.iter_mut().enumerate() {
                                if shapes & (1 << b) != 0 {
                                    *m |= 1 << k;
                                }
                            }
                        }
                    }
                    q.by_shape = Some(by);
                }
                q
            });
        }
        let mut max_variant = 0;
        for (vi, v) in variants.iter().enumerate() {
            let len = v.bytes.len();
            max_variant = max_variant.max(len);
            let a = known::anchor_len(len);
            let i = slot(&v.bytes[..a], &mut patterns, &mut targets);
            targets[i].heads.push(vi as u32);
            if len >= known::ENV_MIN_CHARS {
                let i = slot(&v.bytes[len - a..], &mut patterns, &mut targets);
                targets[i].tails.push(vi as u32);
            }
            max_keyword = max_keyword.max(a);
        }
        // Existing markers are found by the same scan.
        let i = slot(MARKER_OPEN, &mut patterns, &mut targets);
        targets[i].marker = true;
        let marker_pattern = i as u32;
        // So are the words of line-level guards, when a rule uses the guard.
        for &(g, words) in checks::LINE_WORDS {
            if rules.iter().any(|r| r.guard == Some(g)) {
                for w in words {
                    max_keyword = max_keyword.max(w.len());
                    let i = slot(w.as_bytes(), &mut patterns, &mut targets);
                    targets[i].line_words.push(g);
                }
            }
        }
        covering(&patterns, &mut targets, &rules);
        for (t, p) in targets.iter_mut().zip(&patterns) {
            t.newline = p.contains(&b'\n');
        }
        let scanner = Scanner::new(&patterns)?;
        // The longest window any rule can use, plus room for keywords and
        // known values near its ends.
        let widest = rules
            .iter()
            .map(|r| match r.window {
                Window::Following(n) | Window::Continued(n) => n,
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let reach =
            |widest: usize| widest + 4 * MAX_SIDE + max_keyword + 2 * (max_variant + 2) + 64;
        let context = reach(widest);
        // The rules whose windows a short look-back leaves out, and their keywords.
        let wide_rule = |r: &&Rule| matches!(r.window, Window::Following(n) | Window::Continued(n) if n > SHORT_WINDOW);
        let short = reach(
            rules
                .iter()
                .filter(|r| !wide_rule(r))
                .map(|r| match r.window {
                    Window::Following(n) | Window::Continued(n) => n,
                    _ => 0,
                })
                .max()
                .unwrap_or(0),
        );
        let wide_words: Vec<&String> = rules
            .iter()
            .filter(wide_rule)
            .flat_map(|r| &r.keywords)
            .collect();
        let wide = if wide_words.is_empty() {
            None
        } else {
            // Only a shortcut: a set it cannot take reads the whole context.
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&wide_words)
                .ok()
        };
        let short = if wide.is_some() { short } else { context };
        let rules_len = rules.len();
        Ok(Redactor {
            inner: Arc::new(Inner {
                rules,
                ids,
                scanner,
                targets,
                keywordless,
                variants,
                max_variant,
                env_count: env_values.len(),
                embedder_count: known_values.len(),
                block: self.block,
                near: context - widest,
                context,
                short,
                wide,
                max_keyword,
                marker_pattern,
                anchored: self.anchored,
                quick: self.quick,
                shape_pretest: self.shape_pretest,
                verdict_memo: self.verdict_memo,
                mispredict: self.mispredict,
                spare_cpu: self.spare_cpu,
                full_context: self.full_context,
                defer: self.defer,
                resume: self.resume,
                many_anchors: self.many_anchors,
                many_starts: self.many_starts,
                split: self.split,
                start_needs: (0..rules_len).map(|_| OnceLock::new()).collect(),
            }),
            threads: self.threads,
            read_ahead: self.read_ahead,
        })
    }
}

/// The [`Quick`] of a target whose rules are grouped by guard; `None` when a
/// rule has neither a guard nor a cheap test of its own (it runs at every hit).
fn quick_of(
    rules: &[Rule],
    groups: &[(Option<checks::Guard>, Vec<u32>)],
    anchors: &[u32],
) -> Option<Quick> {
    let mut q = Quick {
        hit_only: true,
        ..Quick::default()
    };
    for (g, rs) in groups {
        match *g {
            Some(g) if checks::line_level(g) => match line_bit(g) {
                0 => q.line_guards.push(g),
                bit => q.line_bits |= bit,
            },
            Some(g) => {
                let shapes = checks::guard_shapes(g);
                q.shapes |= shapes;
                q.shapeless |= shapes == u16::MAX;
                q.name_guards.push(g);
                q.hit_only &= checks::reads_hit_only(g);
            }
            None => {
                for &r in rs {
                    let rule = &rules[r as usize];
                    // A continued window is its line's unless the line
                    // continues (the dismissal then keeps the hit).
                    let continued = matches!(rule.window, Window::Continued(_));
                    if rule.window != Window::Line && !continued {
                        return None;
                    }
                    if anchors.contains(&r) {
                        q.anchored.push(r);
                        q.continued |= continued;
                    } else if rule.needs.is_some() && !continued {
                        q.needs.push(r);
                    } else {
                        return None;
                    }
                }
            }
        }
    }
    q.memo = !q.shapeless
        && !q.hit_only
        && q.shapes != 0
        && !q.name_guards.iter().any(|&g| checks::reads_hit_only(g));
    Some(q)
}

/// Fills `Target::covered_by`: pattern `i` is covered by `j` when a hit of `j`
/// at the start of a hit of `i` (on a line ending within 256 bytes of that
/// start: both read the same bytes) does everything the hit of `i` does. One
/// is the other plus word bytes (`tok`/`token`), and both end with a word
/// byte, so both hits see the same name, word, quotes and operator; `i`'s
/// rules and anchors are among `j`'s; no guard of `i`'s rules looks at where
/// the hit ends (`QuotedWord`, `Tag`); `i` has no known values or marker.
/// Equal sets are covered one way only (by the lower index).
///
/// On a longer line (minified JSON) the two hits see different reaches: a
/// guard reads to 256 bytes past its hit, a window ends 4 KiB past it, so
/// the longer hit reads two bytes more. `i` is still covered there
/// (`Target::covered_far`) when every pattern covering it is at least as
/// long as it (reads as far) and its rules are unguarded or guarded by
/// `Typed` only, whose verdict can only turn from fail to pass as the reach
/// grows (a word end, then an `=` before the window's end): whatever the
/// hit of `i` would run, with the window it would run it on, the hit of
/// `j` runs too, on a window that holds that one (same start, a later end).
/// Measured on 5 MB of one-line JSON (`tok` inside `token`, 110 k hits):
/// 504 -> 407 M instructions (callgrind), JSON lines 286 -> 284 M. Cheaper
/// still is no such hit: the built-in keywords hold no covered pair since
/// `tok` became `tok`/`toke` and a byte (a covered hit still costs a step
/// of the scanner out of its loop and its place in the sorted hits), so
/// this serves user keyword sets.
fn covering(patterns: &[Vec<u8>], targets: &mut [Target], rules: &[Rule]) {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let ends_in_word = |p: &[u8]| p.last().is_some_and(|&b| word(b));
    // Whether hits of `t` may be covered at all.
    let coverable = |t: &Target| {
        !t.rules.is_empty()
            && t.heads.is_empty()
            && t.tails.is_empty()
            && !t.marker
            && !t.rules.iter().any(|&r| {
                matches!(
                    rules[r as usize].guard,
                    Some(checks::Guard::QuotedWord | checks::Guard::Tag)
                )
            })
    };
    let covers = |i: usize, j: usize, targets: &[Target]| {
        let (ti, tj) = (&targets[i], &targets[j]);
        coverable(ti)
            && ti.rules.iter().all(|r| tj.rules.contains(r))
            && ti.anchors.iter().all(|r| tj.anchors.contains(r))
            && (ti.rules.len() < tj.rules.len() || i > j)
    };
    let index: HashMap<&[u8], usize> = patterns
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_slice(), i))
        .collect();
    let mut covered: Vec<Vec<u32>> = vec![Vec::new(); targets.len()];
    // Pairs (shorter, longer) where the longer is the shorter plus word bytes.
    for (long, p) in patterns.iter().enumerate() {
        if !ends_in_word(p) {
            continue;
        }
        for k in (1..p.len()).rev() {
            if !word(p[k]) {
                break;
            }
            let Some(&short) = index.get(&p[..k]) else {
                continue;
            };
            if !ends_in_word(&p[..k]) {
                continue;
            }
            if covers(short, long, targets) {
                covered[short].push(long as u32);
            }
            if covers(long, short, targets) {
                covered[long].push(short as u32);
            }
        }
    }
    for ((t, c), p) in targets.iter_mut().zip(covered).zip(patterns) {
        t.covered_far = !c.is_empty()
            && c.iter().all(|&k| patterns[k as usize].len() >= p.len())
            && t.groups
                .iter()
                .all(|(g, _)| matches!(g, None | Some(checks::Guard::Typed)));
        t.covered_by = c;
    }
}

/// Sorts hits by `(start, end)` (no two hits share both: a pattern is its
/// bytes). The scanner reports them by end, so a hit is out of place only
/// behind the few that end inside it or with it: an insertion sort moves
/// each a step or two. Past a budget of moves (odd input: many hits inside
/// one another) the rest is left to the standard sort.
fn sort_by_start(hits: &mut [Hit]) {
    let mut budget = 8 * hits.len() + 64;
    for i in 1..hits.len() {
        let h = hits[i];
        let key = (h.start(), h.end());
        let mut j = i;
        while j > 0 && (hits[j - 1].start(), hits[j - 1].end()) > key {
            if budget == 0 {
                hits[j] = h;
                hits.sort_unstable_by_key(|h| (h.start(), h.end()));
                return;
            }
            budget -= 1;
            hits[j] = hits[j - 1];
            j -= 1;
        }
        hits[j] = h;
    }
}

/// The line-level guards whose results per line are kept as bits.
const LINE_BIT_GUARDS: [checks::Guard; 4] = [
    checks::Guard::ValueNearby,
    checks::Guard::Closing,
    checks::Guard::JsonName,
    checks::Guard::DotSix,
];

/// The bit of a line-level guard in [`LINE_BIT_GUARDS`] (0 for others).
fn line_bit(g: checks::Guard) -> u8 {
    LINE_BIT_GUARDS
        .iter()
        .position(|&k| k == g)
        .map_or(0, |i| 1 << i)
}

/// The keywords of line-level guards in a block ([`checks::LINE_WORDS`]):
/// `(start, length)` by guard, each list sorted by start (starts are
/// offsets in the block, at most [`MAX_BLOCK`] plus a context). One list per
/// guard, so that asking for one guard's word in a window never walks the
/// others' (a line of `key=value key=value …` holds a `value` word every
/// 10 bytes, and asking each hit's window for `</` walked them all: a third
/// of that line's instructions).
#[derive(Default)]
struct GuardWords([Vec<(u32, u32)>; checks::LINE_WORDS.len()]);

impl GuardWords {
    /// Where `g`'s words are, if it has words: its place in
    /// [`checks::LINE_WORDS`] (test `guard_word_slots_follow_the_line_words`).
    #[inline]
    fn slot(g: checks::Guard) -> Option<usize> {
        match g {
            checks::Guard::ValueNearby => Some(0),
            checks::Guard::Closing => Some(1),
            checks::Guard::JsonName => Some(2),
            _ => None,
        }
    }

    fn clear(&mut self) {
        for v in &mut self.0 {
            v.clear();
        }
    }

    /// Adds a word of `g` at `start` (words come in order of start).
    fn push(&mut self, g: checks::Guard, start: usize, len: u32) {
        if let Some(i) = GuardWords::slot(g) {
            self.0[i].push((start as u32, len));
        }
    }

    /// Whether the block holds a word of `g` at all.
    fn any(&self, g: checks::Guard) -> bool {
        GuardWords::slot(g).is_some_and(|i| !self.0[i].is_empty())
    }
}

/// Whether a guard word of `g` lies inside `[ws, we)`.
fn has_word(words: &GuardWords, g: checks::Guard, ws: usize, we: usize) -> bool {
    let Some(i) = GuardWords::slot(g) else {
        return false;
    };
    let list = &words.0[i];
    let j = list.partition_point(|&(s, _)| (s as usize) < ws);
    list[j..]
        .iter()
        .take_while(|&&(s, _)| (s as usize) < we)
        .any(|&(s, n)| s as usize + n as usize <= we)
}

/// What long line windows read from indexes of the whole text instead of
/// their own bytes, each index built once per text when first asked.
#[derive(Default)]
struct LongLines {
    /// The dots that open [`checks::dot_six`]'s pattern
    /// ([`checks::dot_six_dots`]).
    dots: std::cell::OnceCell<Vec<usize>>,
    /// Per length `n` asked, the runs that can satisfy `Guard::Run(n)`
    /// ([`checks::long_runs`]).
    runs: std::cell::RefCell<Vec<(usize, Runs)>>,
}

/// Maximal runs of token bytes, `[s, e)` in order ([`checks::long_runs`]).
type Runs = Vec<(usize, usize)>;

/// Line windows longer than this judge [`checks::dot_six`] from the text's
/// [`LongLines`] instead of reading the window. On a long line (minified
/// JSON, a log line of thousands of bytes) every hit has its own window of
/// up to `2 * MAX_SIDE` bytes, and reading each one for its dots was 63 %
/// of the instructions on a megabyte of one-line JSON (callgrind, 335 M).
const DOT_SIX_LONG: usize = 512;

/// More starts than this of one rule that [`Rule::reads_far`] in one window
/// are searched for (see `Redactor::run_window`), not tried one by one.
const MANY_STARTS: usize = 16;

/// More keyword starts than this in one window are grouped by rule once
/// (see `Redactor::run_window`); a line's few are filtered per rule.
const MANY_ANCHORS: usize = 64;

/// [`checks::dot_six`] on `hay[ls..le]`, from `long` when the window is
/// long or the text's dots are found already.
fn dot_six_in(hay: &[u8], (ls, le): (usize, usize), long: &LongLines) -> bool {
    if le - ls <= DOT_SIX_LONG && long.dots.get().is_none() {
        return checks::dot_six(&hay[ls..le]);
    }
    let dots = long.dots.get_or_init(|| checks::dot_six_dots(hay));
    let k = dots.partition_point(|&i| i < ls + 23);
    dots.get(k).is_some_and(|&i| i + 7 < le)
}

/// Line windows longer than this judge `Guard::Run` from the text's runs
/// ([`LongLines::runs`]) instead of reading the window. On a long line
/// without a run (1 MB of `AKIA ` repeated: a hit every 5 bytes, each with
/// its own window of up to `2 * MAX_SIDE` bytes) reading each window was
/// 98 % of the instructions, 0.6 MB/s.
const RUN_LONG: usize = 512;

/// `Guard::Run(n)` on `hay[ls..le]`, from `long` when the window is long.
fn run_in(hay: &[u8], (ls, le): (usize, usize), n: usize, long: &LongLines) -> bool {
    if le - ls <= RUN_LONG {
        return checks::has_run(&hay[ls..le], n);
    }
    let mut all = long.runs.borrow_mut();
    let k = match all.iter().position(|&(m, _)| m == n) {
        Some(k) => k,
        None => {
            all.push((n, checks::long_runs(hay, n)));
            all.len() - 1
        }
    };
    let runs = &all[k].1;
    // Runs are disjoint and in order: those overlapping the window start
    // here, and all but the first and the last lie inside it whole.
    let from = runs.partition_point(|&(_, e)| e <= ls);
    runs[from..]
        .iter()
        .take_while(|&&(s, _)| s < le)
        .any(|&(s, e)| e.min(le) - s.max(ls) >= n)
}

/// A guard of [`LINE_BIT_GUARDS`] on the line window `lw` clamped to
/// `(ls, le)`: what [`line_guard_ok`] finds for it, without a hit context
/// (none of them looks at the hit). `next_end` gives the clamped end of the
/// line plus the next line (only `ValueNearby` looks there).
fn line_bit_ok(
    g: checks::Guard,
    hay: &[u8],
    lw: (usize, usize),
    (ls, le): (usize, usize),
    next_end: impl FnOnce() -> usize,
    words: &GuardWords,
    long: &LongLines,
) -> bool {
    match g {
        checks::Guard::ValueNearby => {
            // The next line ends at most `MAX_SIDE` bytes after its start: no
            // word of the guard within that reach, no need to find it.
            let reach = (lw.1 + 1 + MAX_SIDE).min(hay.len());
            has_word(words, g, ls, reach) && has_word(words, g, ls, next_end())
        }
        checks::Guard::Closing | checks::Guard::JsonName => has_word(words, g, ls, le),
        checks::Guard::DotSix => dot_six_in(hay, (ls, le), long),
        _ => unreachable!("not a guard of LINE_BIT_GUARDS"),
    }
}

/// A line-level guard `g` at the hit `[hs, he)` whose line window `lw` is
/// clamped to `(ls, le)`: remembered in `cache` for the other hits of the
/// line. `next_end` gives the clamped end of the line plus the next line
/// (only `ValueNearby` looks there); `ctx` is the hit's context, made here
/// when first needed.
#[allow(clippy::too_many_arguments)]
fn line_guard_ok(
    g: checks::Guard,
    hay: &[u8],
    (hs, he): (usize, usize),
    lw: (usize, usize),
    (ls, le): (usize, usize),
    next_end: impl FnOnce() -> usize,
    words: &GuardWords,
    long: &LongLines,
    cache: &mut Vec<(checks::Guard, bool)>,
    ctx: &mut Option<checks::HitCtx>,
    memo: &mut checks::NameMemo,
) -> bool {
    if let Some(&(_, ok)) = cache.iter().find(|(k, _)| *k == g) {
        return ok;
    }
    if line_bit(g) != 0 {
        let ok = line_bit_ok(g, hay, lw, (ls, le), next_end, words, long);
        cache.push((g, ok));
        return ok;
    }
    let word = checks::LINE_WORDS.iter().any(|&(k, _)| k == g);
    let ok = if let checks::Guard::Run(n) = g {
        run_in(hay, (ls, le), n, long)
    } else if g == checks::Guard::ValueNearby {
        // The next line ends at most `MAX_SIDE` bytes after its start: no
        // word of the guard within that reach, no need to find it.
        let reach = (lw.1 + 1 + MAX_SIDE).min(hay.len());
        if word && !has_word(words, g, ls, reach) {
            false
        } else {
            let ne = next_end();
            if word {
                has_word(words, g, ls, ne)
            } else {
                let c = ctx.get_or_insert_with(|| checks::HitCtx::new(hay, hs, he, ls, le));
                checks::guard_ok_at(g, hay, c, ne, memo)
            }
        }
    } else if word {
        has_word(words, g, ls, le)
    } else {
        let c = ctx.get_or_insert_with(|| checks::HitCtx::new(hay, hs, he, ls, le));
        checks::guard_ok_at(g, hay, c, le, memo)
    };
    cache.push((g, ok));
    ok
}

#[cfg(test)]
fn find_markers(hay: &[u8]) -> Vec<(usize, usize)> {
    markers_at(hay, memchr::memmem::find_iter(hay, MARKER_OPEN))
}

/// The markers starting at the given offsets (where `[REDACTED:` was seen).
fn markers_at(hay: &[u8], starts: impl Iterator<Item = usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for p in starts {
        if !hay[p..].starts_with(MARKER_OPEN) {
            continue;
        }
        let rest = &hay[p + MARKER_OPEN.len()..];
        let n = rest
            .iter()
            .take(64)
            .take_while(|&&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            .count();
        if n > 0 && rest.get(n) == Some(&b']') {
            out.push((p, p + MARKER_OPEN.len() + n + 1));
        }
    }
    out
}

/// Whether `[s, e)` overlaps or touches a marker.
fn touches_marker(markers: &[(usize, usize)], s: usize, e: usize) -> bool {
    if markers.is_empty() {
        return false;
    }
    // First marker whose end >= s.
    let i = markers.partition_point(|&(_, me)| me < s);
    markers.get(i).is_some_and(|&(ms, _)| ms <= e)
}

fn inside_marker(markers: &[(usize, usize)], s: usize, e: usize) -> bool {
    if markers.is_empty() {
        return false;
    }
    let i = markers.partition_point(|&(_, me)| me < e);
    markers.get(i).is_some_and(|&(ms, me)| ms <= s && e <= me)
}

/// Narrows a window around the hit `[hs, he)` to the markers on either side:
/// a marker is a boundary like a line break (it may have replaced one), so a
/// second pass sees no context the first pass did not.
fn clamp_to_markers(
    markers: &[(usize, usize)],
    hs: usize,
    he: usize,
    (ws, we): (usize, usize),
) -> (usize, usize) {
    if markers.is_empty() {
        return (ws, we);
    }
    // Markers are sorted and disjoint; the hit is outside all of them.
    let i = markers.partition_point(|&(_, me)| me <= hs);
    let ws = match i.checked_sub(1).map(|k| markers[k].1) {
        Some(me) if me > ws => me,
        _ => ws,
    };
    let j = markers.partition_point(|&(ms, _)| ms < he);
    let we = match markers.get(j) {
        Some(&(ms, _)) if ms < we => ms,
        _ => we,
    };
    (ws, we)
}

/// The line around `[hs, he)`, at most [`MAX_SIDE`] bytes either side, without its `\n`.
fn line_window(hay: &[u8], hs: usize, he: usize) -> (usize, usize) {
    let lo = hs.saturating_sub(MAX_SIDE);
    let ls = match memchr::memrchr(b'\n', &hay[lo..hs]) {
        Some(i) => lo + i + 1,
        None => lo,
    };
    let hi = (he + MAX_SIDE).min(hay.len());
    let le = match memchr::memchr(b'\n', &hay[he.min(hi)..hi]) {
        Some(i) => he + i,
        None => hi,
    };
    (ls, le)
}

/// [`line_window`] for hits in order of their start, remembering the line
/// breaks it found: on a long line (a keyword-dense line without `\n`) each
/// hit would otherwise search up to [`MAX_SIDE`] bytes either side again.
#[derive(Default)]
struct LineFinder {
    /// The last `\n` before `upto` that can matter to hits starting at or
    /// after `upto` (older ones are more than `MAX_SIDE` behind them).
    last: Option<usize>,
    upto: usize,
    /// The first `\n` in `[from, to)`, if any.
    next: Option<usize>,
    from: usize,
    to: usize,
    /// Every `\n` of the text, in order, when indexed (see
    /// `LineFinder::indexed`): windows are read from it, not searched.
    nl: Vec<usize>,
    indexed: bool,
    /// How many of `nl` lie before the start of the last window's hit.
    k: usize,
}

impl LineFinder {
    /// A finder that reads every line break of `hay` once, up front (one
    /// vector search over the text), for texts dense with hits: there each
    /// line's window cost two searches and their calls (~200 instructions
    /// a line of a structured log), read from the index it costs a few
    /// compares.
    fn indexed(hay: &[u8]) -> LineFinder {
        LineFinder {
            nl: memchr::memchr_iter(b'\n', hay).collect(),
            indexed: true,
            ..LineFinder::default()
        }
    }

    /// The index of the first line break at or after `at`, from `self.k`
    /// on (every break before `self.k` lies before `at`).
    fn first_break_from(&self, at: usize) -> usize {
        let mut j = self.k;
        while j < self.nl.len() && self.nl[j] < at {
            j += 1;
        }
        j
    }

    /// Whether the line of a hit without `\n` ending at `he` ends at or
    /// before `limit` (its first `\n` at or after `he`, or the text's end):
    /// the line end `window` gives such a hit. A search made here is
    /// remembered for the next `window`.
    fn ends_by(&mut self, hay: &[u8], he: usize, limit: usize) -> bool {
        if limit >= hay.len() {
            return true;
        }
        if limit < he {
            return false;
        }
        if self.indexed {
            // The hit holds no break: those before `he` are those before its
            // start, and later hits start at or after it.
            self.k = self.first_break_from(he);
            return self.nl.get(self.k).is_some_and(|&q| q <= limit);
        }
        if let Some(q) = self.next.filter(|&q| self.from <= he && he <= q) {
            return q <= limit;
        }
        if self.from <= he && he <= self.to && self.next.is_none() && limit < self.to {
            return false;
        }
        let to = limit + 1;
        self.next = memchr::memchr(b'\n', &hay[he..to]).map(|i| he + i);
        self.from = he;
        self.to = to;
        self.next.is_some()
    }

    /// `line_window(hay, hs, he)` for a hit without `\n`.
    fn window(&mut self, hay: &[u8], hs: usize, he: usize) -> (usize, usize) {
        let lo = hs.saturating_sub(MAX_SIDE);
        if hs < self.upto {
            return line_window(hay, hs, he);
        }
        if self.indexed {
            self.upto = hs;
            self.k = self.first_break_from(hs);
            let ls = match self.k.checked_sub(1).map(|i| self.nl[i]) {
                Some(q) if q >= lo => q + 1,
                _ => lo,
            };
            let hi = (he + MAX_SIDE).min(hay.len());
            let j = self.first_break_from(he);
            let le = match self.nl.get(j) {
                Some(&q) if q < hi => q,
                _ => hi,
            };
            return (ls, le);
        }
        let from = self.upto.max(lo);
        // Between two hits of a long line the gap is short: a loop there,
        // the vector search (and its call) for longer gaps.
        let gap = &hay[from..hs];
        let found = if gap.len() <= 32 {
            gap.iter().rposition(|&b| b == b'\n')
        } else {
            memchr::memrchr(b'\n', gap)
        };
        if let Some(i) = found {
            self.last = Some(from + i);
        }
        self.upto = hs;
        let ls = match self.last {
            Some(q) if q >= lo => q + 1,
            _ => lo,
        };
        let hi = (he + MAX_SIDE).min(hay.len());
        let known = he >= self.from
            && match self.next {
                Some(q) => q >= he,
                None => hi <= self.to,
            };
        if !known {
            // Look further than this hit needs: the next hits reuse it.
            let to = (hi + 16 * MAX_SIDE).min(hay.len());
            self.next = memchr::memchr(b'\n', &hay[he..to]).map(|i| he + i);
            self.from = he;
            self.to = to;
        }
        let le = match self.next {
            Some(q) if q < hi => q,
            _ => hi,
        };
        (ls, le)
    }
}

/// Whether a hit of `covered_by` starts where `hits[hi]` does (hits sorted by start).
fn covered_at(hits: &[Hit], hi: usize, covered_by: &[u32]) -> bool {
    let start = hits[hi].start();
    // Usually the next hit (`token` right after `tok`).
    if hits
        .get(hi + 1)
        .is_some_and(|k| k.start() == start && covered_by.contains(&k.pattern))
    {
        return true;
    }
    let same = |k: &&Hit| k.start() == start;
    hits[hi + 1..]
        .iter()
        .take_while(same)
        .chain(hits[..hi].iter().rev().take_while(same))
        .any(|k| covered_by.contains(&k.pattern))
}

/// Whether [`line_window`] of `[hs, he)` is `(ls, le)`, the line window of an
/// earlier hit, without searching again: true when the hit lies inside it and
/// both ends are true line ends that `line_window` would reach from this hit.
fn same_line_window(hay: &[u8], (ls, le): (usize, usize), hs: usize, he: usize) -> bool {
    // `[ls, le)` holds no `\n` (it came from `line_window` for a hit without
    // one), so a hit inside it sees the same nearest line breaks, if they are
    // within `MAX_SIDE` of it.
    ls <= hs
        && he <= le
        && (ls == 0 || hay[ls - 1] == b'\n')
        && ls >= hs.saturating_sub(MAX_SIDE)
        && (le == hay.len() || hay[le] == b'\n')
        && le <= (he + MAX_SIDE).min(hay.len())
}

/// A hit's [`line_window`] extended by the next line (at most [`MAX_SIDE`] bytes of it).
fn with_next_line(hay: &[u8], (ls, le): (usize, usize)) -> (usize, usize) {
    if le >= hay.len() || hay[le] != b'\n' {
        return (ls, le);
    }
    let from = le + 1;
    let hi = (from + MAX_SIDE).min(hay.len());
    let we = match memchr::memchr(b'\n', &hay[from..hi]) {
        Some(i) => from + i,
        None => hi,
    };
    (ls, we)
}

/// From the line start of the hit to `n` bytes further, snapped to a line end.
#[cfg(test)]
fn following_window(hay: &[u8], hs: usize, he: usize, n: usize) -> (usize, usize) {
    following_from(hay, line_window(hay, hs, he), n)
}

/// [`Window::Continued`] of the line window `(ls, le)` of a line that
/// continues ([`line_continues`]): the line and each next one while the
/// line before ends in a continuation, within [`following_from`]'s window
/// of `n` bytes.
fn continued_from(hay: &[u8], (ls, le): (usize, usize), n: usize) -> (usize, usize) {
    let limit = following_from(hay, (ls, le), n).1;
    let mut e = le;
    while e < limit && line_continues(hay, (ls, e)) {
        e = memchr::memchr(b'\n', &hay[e + 1..limit]).map_or(limit, |i| e + 1 + i);
    }
    (ls, e)
}

/// Whether the line (or lines) `[ls, le)` ends at a line break after a
/// continuation (`\`, `^` or `` ` ``, before an optional `\r`). A line
/// window cut short of its line's end (a long line) does not.
fn line_continues(hay: &[u8], (ls, le): (usize, usize)) -> bool {
    let line = &hay[ls..le];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    hay.get(le) == Some(&b'\n') && matches!(line.last(), Some(b'\\' | b'^' | b'`'))
}

/// A hit's [`line_window`] extended as [`following_window`] does.
fn following_from(hay: &[u8], (ls, le): (usize, usize), n: usize) -> (usize, usize) {
    let target = (ls + n).min(hay.len()).max(le);
    let hi = (target + MAX_SIDE).min(hay.len());
    let we = match memchr::memchr(b'\n', &hay[target..hi]) {
        Some(i) => target + i,
        None => hi,
    };
    (ls, we)
}

impl Redactor {
    /// The built-in rules only (no environment values). Shared: every call
    /// returns a clone of one lazily built instance.
    pub fn builtin() -> Redactor {
        static BUILTIN: OnceLock<Redactor> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                Redactor::builder()
                    .env_values(false)
                    .build()
                    .expect("the built-in rules compile")
            })
            .clone()
    }

    /// A builder: built-in rules and environment values on, no user rules.
    pub fn builder() -> RedactorBuilder {
        RedactorBuilder {
            block: DEFAULT_BLOCK,
            threads: 1,
            read_ahead: false,
            anchored: true,
            quick: true,
            shape_pretest: true,
            verdict_memo: true,
            mispredict: false,
            spare_cpu: None,
            full_context: false,
            defer: true,
            resume: true,
            many_anchors: MANY_ANCHORS,
            many_starts: MANY_STARTS,
            split: true,
            builtin: true,
            rules: Vec::new(),
            known: Vec::new(),
            env: EnvSource::Process,
        }
    }

    /// This redactor on `n` threads (see [`RedactorBuilder::threads`]): the
    /// same rules and values, shared.
    pub fn with_threads(&self, n: usize) -> Redactor {
        Redactor {
            inner: Arc::clone(&self.inner),
            threads: n.clamp(1, MAX_THREADS),
            read_ahead: self.read_ahead,
        }
    }

    /// This redactor reading ahead or not (see [`RedactorBuilder::read_ahead`]):
    /// the same rules and values, shared.
    pub fn with_read_ahead(&self, yes: bool) -> Redactor {
        Redactor {
            inner: Arc::clone(&self.inner),
            threads: self.threads,
            read_ahead: yes,
        }
    }

    /// The distinct rule ids this redactor can write (rules, then `env-secret`
    /// and `known-value`).
    pub fn rule_ids(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for id in &self.inner.ids {
            if !out.contains(&id.as_str()) {
                out.push(id);
            }
        }
        out
    }

    /// Number of environment values that are masked.
    pub fn env_value_count(&self) -> usize {
        self.inner.env_count
    }

    /// Masks the secrets in `text`. Returns `Cow::Borrowed(text)` (no allocation)
    /// when nothing was masked.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact_with_stats(text).0
    }

    /// Like [`Redactor::redact`], also counting what was masked.
    pub fn redact_with_stats<'a>(&self, text: &'a str) -> (Cow<'a, str>, RedactStats) {
        let spans = snap_to_chars(text, self.spans(text.as_bytes()));
        let mut stats = RedactStats {
            bytes_in: text.len() as u64,
            ..RedactStats::default()
        };
        if spans.is_empty() {
            stats.bytes_out = stats.bytes_in;
            return (Cow::Borrowed(text), stats);
        }
        let mut out = String::with_capacity(text.len() + spans.len() * 24);
        let mut pos = 0;
        for sp in &spans {
            out.push_str(&text[pos..sp.s]);
            let id = &self.inner.ids[sp.src as usize];
            out.push_str("[REDACTED:");
            out.push_str(id);
            out.push(']');
            stats.add(id);
            pos = sp.e;
        }
        out.push_str(&text[pos..]);
        stats.bytes_out = out.len() as u64;
        (Cow::Owned(out), stats)
    }

    /// Masks the secrets in raw bytes (which need not be UTF-8).
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let spans = self.spans(bytes);
        if spans.is_empty() {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len() + spans.len() * 24);
        self.emit(bytes, &spans, &mut out, &mut RedactStats::default());
        Cow::Owned(out)
    }

    /// [`Redactor::redact_bytes`] (always an owned copy), with every masked
    /// span: where it was, what it held and where its marker stands.
    pub fn redact_bytes_masked(&self, bytes: &[u8]) -> (Vec<u8>, Vec<Masked>) {
        let spans = self.spans(bytes);
        let mut out = Vec::with_capacity(bytes.len() + spans.len() * 24);
        let mut masks = Vec::with_capacity(spans.len());
        let mut pos = 0;
        for sp in &spans {
            out.extend_from_slice(&bytes[pos..sp.s]);
            let id = &self.inner.ids[sp.src as usize];
            let marker_start = out.len();
            out.extend_from_slice(MARKER_OPEN);
            out.extend_from_slice(id.as_bytes());
            out.push(b']');
            masks.push(Masked {
                start: sp.s,
                end: sp.e,
                marker_start,
                marker_end: out.len(),
                rule_id: id.clone(),
                value: bytes[sp.s..sp.e].to_vec(),
            });
            pos = sp.e;
        }
        out.extend_from_slice(&bytes[pos..]);
        (out, masks)
    }

    /// The spans [`Redactor::redact`] would mask, in order.
    pub fn find(&self, text: &str) -> Vec<Finding> {
        snap_to_chars(text, self.spans(text.as_bytes()))
            .into_iter()
            .map(|sp| Finding {
                start: sp.s,
                end: sp.e,
                rule_id: self.inner.ids[sp.src as usize].clone(),
            })
            .collect()
    }

    /// Copies `reader` to `writer`, masking secrets, with bounded memory.
    /// The output is exactly [`Redactor::redact_bytes`] of the whole input,
    /// whatever the reads return (see the crate docs, "Streaming").
    pub fn redact_stream<R: Read, W: Write>(
        &self,
        reader: R,
        writer: W,
    ) -> io::Result<RedactStats> {
        self.redact_stream_with(reader, writer, StreamOptions::default())
    }

    /// Writes `bytes` to `writer` with secrets masked, round by round as
    /// [`Redactor::redact_stream`] does, but straight from `bytes`: nothing
    /// is copied into a stream buffer, so a text already in memory (or a
    /// mapped file) is redacted without reading it twice. The output is
    /// exactly [`Redactor::redact_bytes`] of `bytes`.
    ///
    /// `done(n)` is called after each batch of rounds is written: `bytes[..n]`
    /// will not be read again (a caller that mapped a file may drop those
    /// pages, so that memory stays bounded by a few rounds).
    ///
    /// ```
    /// let r = toolexec_redact::Redactor::builtin();
    /// let mut out = Vec::new();
    /// r.redact_slice_to(b"GITHUB_TOKEN=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n", &mut out, |_| {})
    ///     .unwrap();
    /// assert_eq!(out, b"GITHUB_TOKEN=[REDACTED:github-token]\n");
    /// ```
    pub fn redact_slice_to<W: Write>(
        &self,
        bytes: &[u8],
        mut writer: W,
        mut done: impl FnMut(usize),
    ) -> io::Result<RedactStats> {
        let mut stats = RedactStats {
            bytes_in: bytes.len() as u64,
            ..RedactStats::default()
        };
        let mut out: Vec<u8> = Vec::new();
        self.slice_rounds(
            bytes,
            |q, r| {
                let end = (q + r.hay_len).min(bytes.len());
                self.write_range(&mut writer, &bytes[q..end], r, &mut out, &mut stats)
            },
            &mut done,
        )?;
        writer.flush()?;
        Ok(stats)
    }

    /// [`Redactor::redact_stream`] with explicit read sizes.
    ///
    /// The stream works in the same canonical rounds as one-shot redaction of
    /// a long text (see the crate docs, "Streaming"), so its output never
    /// depends on how the reads split the input, nor on `options`: they only
    /// set how much is read at a time.
    pub fn redact_stream_with<R: Read, W: Write>(
        &self,
        mut reader: R,
        mut writer: W,
        options: StreamOptions,
    ) -> io::Result<RedactStats> {
        let inner = &*self.inner;
        // What a batch of rounds may read past its first round's `p`.
        let reach = (self.threads - 1) * inner.block + inner.block + inner.context;
        let read_size = options.chunk_size.clamp(4096, reach + 1);
        let mut stats = RedactStats::default();
        // `buf[..len]` holds the input from the batch's first round start; that
        // round emits from `p`, skipping output already written up to `skip`.
        // A batch reads at most to `p + reach + 1` and `p` is at most one
        // context, so `buf` never grows: it is zeroed once (by the allocator,
        // for fresh pages) and never again. The batch's other rounds read it
        // on worker threads while this thread judges the first one.
        let buf = RwLock::new(vec![0u8; reach + inner.context + 1]);
        let text = Text::Buffer(&buf);
        let mut len = 0usize;
        let mut out: Vec<u8> = Vec::new();
        let mut scratch = Scratch::default();
        let mut pace = Pace::new(self.threads);
        let (mut p, mut skip) = (0usize, 0usize);
        let mut eof = false;
        // Input read while the last batch was judged (see `RedactorBuilder::read_ahead`).
        let reads_ahead = self.read_ahead && self.threads > 1;
        // All workers judge while this thread reads, or this thread judges
        // too and reads while it waits for them.
        let all_judge = reads_ahead
            && inner.spare_cpu.unwrap_or_else(|| {
                std::thread::available_parallelism().is_ok_and(|n| n.get() > self.threads)
            });
        let mut ahead = Ahead::new(if reads_ahead {
            self.threads * inner.block
        } else {
            0
        });
        std::thread::scope(|sc| -> io::Result<()> {
            let mut workers = Workers::idle(if all_judge {
                self.threads
            } else {
                self.threads - 1
            });
            loop {
                {
                    let mut buf = buf.write().unwrap_or_else(PoisonError::into_inner);
                    // One byte past the batch's end tells whether its last round
                    // is the text's last.
                    while !eof && len <= p + reach {
                        let want = read_size.min(p + reach + 1 - len).max(1);
                        match ahead.take(&mut buf[len..len + want]) {
                            Taken::Bytes(n) => {
                                len += n;
                                continue;
                            }
                            Taken::End => {
                                eof = true;
                                continue;
                            }
                            Taken::Failed(e) => return Err(e),
                            Taken::Nothing => {}
                        }
                        match reader.read(&mut buf[len..len + want]) {
                            Ok(0) => eof = true,
                            Ok(n) => {
                                len += n;
                                stats.bytes_in += n as u64;
                            }
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => return Err(e),
                        }
                    }
                }
                // A text read whole by its first batch has nothing to read
                // ahead: its first round is judged here, as without.
                let ahead_now = all_judge && !(eof && workers.lanes.is_empty());
                let piece = if all_judge {
                    read_size
                } else {
                    read_size.min(READ_PIECE)
                };
                let mut read_piece = || !eof && ahead.fill_piece(&mut reader, piece, &mut stats);
                let rounds = self.batch(
                    &text,
                    (0, len),
                    (p, skip),
                    eof,
                    &mut scratch,
                    (sc, &mut workers),
                    &mut pace,
                    if ahead_now {
                        Meanwhile::ReadAhead(&mut read_piece)
                    } else if reads_ahead {
                        Meanwhile::ReadWhileWaiting(&mut read_piece)
                    } else {
                        Meanwhile::Wait
                    },
                );
                let mut buf = buf.write().unwrap_or_else(PoisonError::into_inner);
                let mut next = None;
                for (q, r) in rounds {
                    let end = (q + r.hay_len).min(len);
                    self.write_range(&mut writer, &buf[q..end], &r, &mut out, &mut stats)?;
                    next = (!r.last).then(|| r.next(q));
                }
                let Some((nq, np, nskip)) = next else {
                    return Ok(());
                };
                buf.copy_within(nq..len, 0);
                len -= nq;
                (p, skip) = (np, nskip - nq);
            }
        })?;
        writer.flush()?;
        Ok(stats)
    }

    /// Writes a round's output, `hay[r.from..r.to]` with its spans masked:
    /// long unmasked runs go to `writer` straight from `hay`, the rest is
    /// gathered in `out` first so that a writer sees few, large writes.
    fn write_range<W: Write>(
        &self,
        writer: &mut W,
        hay: &[u8],
        r: &Round,
        out: &mut Vec<u8>,
        stats: &mut RedactStats,
    ) -> io::Result<()> {
        const DIRECT: usize = 32 * 1024;
        let mut put = |bytes: &[u8], out: &mut Vec<u8>| -> io::Result<()> {
            if bytes.len() >= DIRECT || out.len() + bytes.len() > 4 * DIRECT {
                if !out.is_empty() {
                    writer.write_all(out)?;
                    out.clear();
                }
                if bytes.len() >= DIRECT {
                    return writer.write_all(bytes);
                }
            }
            out.extend_from_slice(bytes);
            Ok(())
        };
        out.clear();
        let mut pos = r.from;
        for sp in &r.spans {
            put(&hay[pos..sp.s], out)?;
            let id = &self.inner.ids[sp.src as usize];
            out.extend_from_slice(MARKER_OPEN);
            out.extend_from_slice(id.as_bytes());
            out.push(b']');
            stats.add(id);
            stats.bytes_out += (sp.s - pos + MARKER_OPEN.len() + id.len() + 1) as u64;
            pos = sp.e;
        }
        put(&hay[pos..r.to], out)?;
        stats.bytes_out += (r.to - pos) as u64;
        if !out.is_empty() {
            writer.write_all(out)?;
        }
        Ok(())
    }

    fn emit(&self, hay: &[u8], spans: &[Span], out: &mut Vec<u8>, stats: &mut RedactStats) {
        self.emit_range(hay, 0, hay.len(), spans, out, stats);
    }

    /// Writes `hay[from..to]` with `spans` (inside that range, sorted) masked.
    fn emit_range(
        &self,
        hay: &[u8],
        from: usize,
        to: usize,
        spans: &[Span],
        out: &mut Vec<u8>,
        stats: &mut RedactStats,
    ) {
        let mut pos = from;
        for sp in spans {
            out.extend_from_slice(&hay[pos..sp.s]);
            let id = &self.inner.ids[sp.src as usize];
            out.extend_from_slice(MARKER_OPEN);
            out.extend_from_slice(id.as_bytes());
            out.push(b']');
            stats.add(id);
            pos = sp.e;
        }
        out.extend_from_slice(&hay[pos..to]);
    }

    /// One canonical round over `hay` (the text from the round's start `q`):
    /// output is written from `max(p, skip)`; `last` when `hay` reaches the
    /// end of the text, else `hay` is exactly `p + block + context` long.
    ///
    /// The round cuts at the largest *safe* position in `(p, p + block]`: one
    /// that no rule window, marker or known-value reach spans, so that the
    /// text on either side is judged exactly as it would be together. Where no
    /// such position exists (a chain of windows longer than a block), it cuts
    /// at a fixed place (the last line start in the block's second half, else
    /// the block's end) and the next round starts `context` bytes earlier, so
    /// that every window around the cut is seen whole on both sides; a span
    /// that crosses the cut is written whole by this round.
    fn round(&self, hay: &[u8], p: usize, skip: usize, last: bool, scratch: &mut Scratch) -> Round {
        let inner = &*self.inner;
        let mut blocked = std::mem::take(&mut scratch.blocked);
        blocked.clear();
        let spans = self.block_spans(hay, if last { None } else { Some(&mut blocked) }, scratch);
        let from = p.max(skip).min(hay.len());
        let (cut, forced) = if last {
            (hay.len(), false)
        } else {
            match self.safe_cut(hay, p, &mut blocked) {
                Some(c) => (c, false),
                None => (forced_cut(hay, p, inner.block), true),
            }
        };
        scratch.blocked = blocked;
        let mut kept = Vec::new();
        let mut to = cut.max(from);
        for sp in spans {
            if sp.e <= from {
                continue;
            }
            if sp.s >= cut {
                break;
            }
            let s = sp.s.max(from);
            to = to.max(sp.e);
            kept.push(Span { s, ..sp });
        }
        Round {
            spans: kept,
            from,
            to,
            cut,
            forced: forced || to > cut,
            context: inner.context,
            last,
            hay_len: hay.len(),
            given: (p, skip),
        }
    }

    /// The round that starts at `q` of `view` (the text read so far from the
    /// batch's start; `eof`: nothing follows it) and emits from `p`, skipping
    /// what was written up to `skip`. `None` when `view` does not reach one
    /// byte past that round although more text follows.
    fn round_at(
        &self,
        view: &[u8],
        q: usize,
        (p, skip): (usize, usize),
        eof: bool,
        scratch: &mut Scratch,
    ) -> Option<Round> {
        let limit = self.inner.block + self.inner.context;
        let avail = view.len().checked_sub(q)?;
        let last = avail <= p + limit;
        if last && !eof {
            return None;
        }
        let mut end = q + avail.min(p + limit);
        if !last {
            end = self.look_ahead_end(view, q, q + p + self.inner.block, end);
        }
        Some(self.round(&view[q..end], p, skip, last, scratch))
    }

    /// Where a round that is not the text's last, with highest cut `hi`,
    /// stops reading (`end`: one context past `hi`). Only a window wider
    /// than [`SHORT_WINDOW`] reaches from before `hi` past `hi` plus the
    /// short context (`Inner::short`), and no hit past that reaches back to
    /// `hi` (a window starts at most [`MAX_SIDE`] before its hit): without a
    /// keyword of those rules from one context before `hi` on, the round
    /// reads to the short context only, and judges the same hits alike,
    /// with the same intervals up to `hi` and the same spans — ~56 KiB
    /// less per ~1 MiB round judged. (Rules without keywords run on whole
    /// lines, which the end could cut: with them it stays.)
    fn look_ahead_end(&self, view: &[u8], q: usize, hi: usize, end: usize) -> usize {
        let inner = &*self.inner;
        let short_end = hi + inner.short;
        match &inner.wide {
            Some(wide)
                if short_end < end && !inner.full_context && inner.keywordless.is_empty() =>
            {
                let from = hi.saturating_sub(inner.context).max(q);
                if wide.is_match(&view[from..(short_end + inner.max_keyword).min(end)]) {
                    end
                } else {
                    short_end
                }
            }
            _ => end,
        }
    }

    /// Judges up to `threads` consecutive rounds of `view` at the same time:
    /// the first from `(p, skip)`, each further one from where the round
    /// before it is predicted to cut ([`Redactor::predict_cut`]). Returns
    /// the first round and each further one whose predecessor cut where
    /// predicted, with their starts in `view`, in order: a round judged
    /// from a wrong prediction is dropped (the next batch judges it again
    /// from the real cut), so every round returned is the one sequential
    /// rounds give and the output does not depend on the thread count.
    #[allow(clippy::too_many_arguments)]
    fn batch<'scope, 'env>(
        &'env self,
        text: &Text<'env>,
        (base, len): (usize, usize),
        first: (usize, usize),
        eof: bool,
        mine: &mut Scratch,
        (sc, workers): (&'scope std::thread::Scope<'scope, 'env>, &mut Workers),
        pace: &mut Pace,
        meanwhile: Meanwhile<'_>,
    ) -> Vec<(usize, Round)> {
        let limit = self.inner.block + self.inner.context;
        // A last round has no successor to judge beside it.
        let width = if len <= first.0 + limit {
            1
        } else {
            pace.width()
        };
        let first_round = |mine: &mut Scratch| {
            text.read(|view| self.round_at(&view[base..base + len], 0, first, eof, mine))
        };
        let reads_ahead = matches!(meanwhile, Meanwhile::ReadAhead(_));
        if width == 1 && !reads_ahead {
            pace.judged(false);
            return first_round(mine).map(|r| (0, r)).into_iter().collect();
        }
        // Reading ahead, the workers judge every round (the first too, and
        // a batch of one round: the calling thread's buffers stay empty).
        let offset = usize::from(!reads_ahead);
        let job = Job {
            base,
            len,
            p: first.0,
            skip: first.1,
            eof,
            offset,
        };
        let asked = workers.ask(sc, self, text, job, width - offset);
        let mut got: Vec<Answer> = Vec::with_capacity(width);
        let mut early = Vec::new();
        match meanwhile {
            Meanwhile::ReadAhead(read) => while read() {},
            Meanwhile::Wait => got.push(first_round(mine).map(|r| (0, r))),
            Meanwhile::ReadWhileWaiting(read) => {
                got.push(first_round(mine).map(|r| (0, r)));
                while !workers.answered(&asked, &mut early) && read() {}
            }
        }
        // Every answer is taken, so that no worker still reads the text.
        got.extend(workers.answers(asked, early));
        if got[0].is_none() {
            // The first round's worker could not be started: judged here.
            got[0] = first_round(mine).map(|r| (0, r));
        }
        let mut out = Vec::with_capacity(width);
        let mut next = None;
        for (i, answer) in got.into_iter().enumerate() {
            match (i, next, answer) {
                (0, _, Some((q, r))) => {
                    next = (!r.last).then(|| r.next(q));
                    out.push((q, r));
                }
                (_, Some(n), Some((q, r))) if n == (q, r.given.0, q + r.given.1) => {
                    next = (!r.last).then(|| r.next(q));
                    out.push((q, r));
                }
                _ => next = None,
            }
        }
        // Fewer rounds than asked for, the last not the text's last.
        let failed = out.len() < width && out.last().is_some_and(|(_, r)| !r.last);
        pace.judged(failed);
        out
    }

    /// The `k`-th round after the one that starts at 0 of `view` and emits
    /// from `p` (skipping to `skip`), judged from predicted cuts: `None`
    /// when a prediction fails or a round before it is the last (`k` = 0:
    /// that round itself).
    fn speculate(
        &self,
        view: &[u8],
        (p, skip): (usize, usize),
        k: usize,
        eof: bool,
        scratch: &mut Scratch,
    ) -> Option<(usize, Round)> {
        if k == 0 {
            return Some((0, self.round_at(view, 0, (p, skip), eof, scratch)?));
        }
        let limit = self.inner.block + self.inner.context;
        let (mut q, mut p, mut skip) = (0usize, p, skip);
        for _ in 0..k {
            if view.len() - q <= p + limit {
                return None;
            }
            (q, p, skip) = self.guess_next(&view[q..q + p + limit], q, p, scratch)?;
        }
        Some((q, self.round_at(view, q, (p, skip), eof, scratch)?))
    }

    /// Where the round after the one over `hay` (not the last, starting at
    /// `q` of the text and emitting from `p`) starts, as
    /// [`Redactor::pipelined_rounds`] hands rounds out and
    /// [`Redactor::speculate`] judges them ahead: at the predicted
    /// safe cut ([`Redactor::predict_cut`]); or, when none is found and the
    /// round itself starts after a forced cut (`p > 0`: a chain of windows,
    /// such as a long keyword-dense line, minified JSON), where the round
    /// would start if it is forced too and no span crosses its cut. Only a
    /// guess: a round that started elsewhere than its predecessor really
    /// ends is dropped and judged again. Without the second guess, the
    /// rounds of a line of minified JSON (no safe cut anywhere) were judged
    /// one after another.
    fn guess_next(
        &self,
        hay: &[u8],
        q: usize,
        p: usize,
        scratch: &mut Scratch,
    ) -> Option<(usize, usize, usize)> {
        if let Some(c) = self.predict_cut(hay, p, scratch) {
            return Some((q + c, 0, 0));
        }
        if p == 0 {
            return None;
        }
        let cut = forced_cut(hay, p, self.inner.block);
        let back = cut.min(self.inner.context);
        #[cfg(test)]
        tests::FORCED_GUESSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some((
            q + cut - back,
            back,
            back + usize::from(self.inner.mispredict),
        ))
    }

    /// Where a round over `hay` (not the last, emitting from `p`) cuts, found
    /// from the text near its end only: the blocked intervals of the text
    /// from one context plus [`PREDICT_RANGE`] before the round's highest cut
    /// to the reach of the line windows after it, searched down to
    /// `PREDICT_RANGE` below that cut. No interval reaches farther back than
    /// a context from the hit that makes it, so there they start where the
    /// round's own do. `None` when no safe cut lies that high or a span would
    /// cross it (the round is then judged without a prediction). Only a
    /// guess: [`Redactor::batch`] checks it.
    ///
    /// The context is mostly the widest window, the PEM rules' 64 KiB: when
    /// no keyword of a rule with a window wider than [`SHORT_WINDOW`] lies
    /// in the text from one context back to the short one (`Inner::short`,
    /// the same sum without those windows), nothing there reaches the
    /// searched range and the prediction reads from the short one on:
    /// ~58 KiB judged instead of ~115 KiB, and each worker of a batch
    /// predicts the cuts of the rounds before its own.
    fn predict_cut(&self, hay: &[u8], p: usize, scratch: &mut Scratch) -> Option<usize> {
        let inner = &*self.inner;
        let hi = (p + inner.block).min(hay.len());
        let a = hi
            .checked_sub(inner.context + PREDICT_RANGE)
            .filter(|&a| a > p)?;
        // Between the two look-backs only a wide window can start that
        // reaches the searched range: without one of its keywords there,
        // the short look-back gives the same intervals there.
        let short = hi - inner.short - PREDICT_RANGE;
        let a = match &inner.wide {
            Some(wide)
                if short > a
                    && !inner.full_context
                    && !wide.is_match(&hay[a..(short + inner.max_keyword).min(hi)]) =>
            {
                short
            }
            _ => a,
        };
        self.predict_from(hay, p, a, scratch)
    }

    /// [`Redactor::predict_cut`] from the intervals of the text from `a` on.
    fn predict_from(&self, hay: &[u8], p: usize, a: usize, scratch: &mut Scratch) -> Option<usize> {
        let inner = &*self.inner;
        let hi = (p + inner.block).min(hay.len());
        let local = &hay[a..(hi + inner.near).min(hay.len())];
        let mut blocked = std::mem::take(&mut scratch.blocked);
        blocked.clear();
        let spans = self.block_spans(local, Some(&mut blocked), scratch);
        let cut = self.safe_cut_in(local, hi - PREDICT_RANGE - a, hi - a, &mut blocked);
        scratch.blocked = blocked;
        let cut = cut?;
        if spans.iter().any(|sp| sp.s < cut && sp.e > cut) {
            return None;
        }
        Some(a + cut - usize::from(inner.mispredict))
    }

    /// The largest position in `(p, p + block]` not strictly inside a blocked interval.
    fn safe_cut(&self, hay: &[u8], p: usize, blocked: &mut [(usize, usize)]) -> Option<usize> {
        let hi = (p + self.inner.block).min(hay.len());
        self.safe_cut_in(hay, p, hi, blocked)
    }

    /// The largest position in `(p, hi]` not strictly inside a blocked interval.
    fn safe_cut_in(
        &self,
        hay: &[u8],
        p: usize,
        hi: usize,
        blocked: &mut [(usize, usize)],
    ) -> Option<usize> {
        // Rules without keywords run on whole lines: only line starts are safe then.
        largest_safe(hay, p, hi, blocked, !self.inner.keywordless.is_empty())
    }

    /// The markers in `hay`, from the scanner's hits on `[REDACTED:`.
    fn markers_from(&self, hay: &[u8], hits: &[Hit]) -> Vec<(usize, usize)> {
        let inner = &*self.inner;
        let mut starts: Vec<usize> = hits
            .iter()
            .filter(|h| h.pattern == inner.marker_pattern)
            .map(|h| h.start())
            .collect();
        if starts.is_empty() {
            return Vec::new();
        }
        starts.sort_unstable();
        markers_at(hay, starts.into_iter())
    }

    /// The canonical rounds of a whole text in memory: `each(q, round)` for
    /// every round in order (`q`: where its text starts), then `done(n)`
    /// after each round but the last (`hay[..n]` is not read again). On one
    /// thread they are judged one after the other; on more, see
    /// [`Redactor::pipelined_rounds`].
    fn slice_rounds(
        &self,
        hay: &[u8],
        mut each: impl FnMut(usize, &Round) -> io::Result<()>,
        mut done: impl FnMut(usize),
    ) -> io::Result<()> {
        if self.threads > 1 {
            return self.pipelined_rounds(hay, each, done);
        }
        self.rounds_from(
            hay,
            (0, 0, 0),
            &mut Scratch::default(),
            &mut each,
            &mut done,
        )
    }

    /// The rounds of `hay` from `(q, p, skip)` (a real round start, the
    /// emission start and the written end relative to it), judged here one
    /// after the other.
    fn rounds_from(
        &self,
        hay: &[u8],
        (mut q, mut p, mut skip): (usize, usize, usize),
        scratch: &mut Scratch,
        each: &mut impl FnMut(usize, &Round) -> io::Result<()>,
        done: &mut impl FnMut(usize),
    ) -> io::Result<()> {
        loop {
            // Never `None`: nothing follows the slice.
            let Some(r) = self.round_at(&hay[q..], 0, (p, skip), true, scratch) else {
                return Ok(());
            };
            each(q, &r)?;
            if r.last {
                return Ok(());
            }
            let (nq, np, nskip) = r.next(q);
            (q, p, skip) = (nq, np, nskip - nq);
            done(q);
        }
    }

    /// [`Redactor::slice_rounds`] on `threads` workers kept busy without a
    /// pause between batches: a worker given a round first predicts where
    /// it cuts ([`Redactor::predict_cut`]) and says so, so that an idle
    /// worker can start the round after it at once, then judges its round.
    /// The calling thread only hands out rounds and writes them in order:
    /// a round is written when the one before it is, and only if it starts
    /// where that one really cut; otherwise it and every round after it are
    /// dropped and judged again from the real cut (and the next
    /// [`Pace::CALM`] rounds are judged one at a time, unpredicted), so the
    /// rounds are those one thread makes.
    ///
    /// Measured against batches of `threads` rounds (each batch waits for
    /// its slowest round, then for the writes, before the next starts):
    /// see the crate docs, "Text already in memory".
    fn pipelined_rounds(
        &self,
        hay: &[u8],
        mut each: impl FnMut(usize, &Round) -> io::Result<()>,
        mut done: impl FnMut(usize),
    ) -> io::Result<()> {
        /// A round handed to a worker: its start, emission start and
        /// written end (relative), and whether to predict its cut first.
        struct Ask {
            seq: u64,
            start: (usize, usize, usize),
            predict: bool,
        }
        /// A worker's news about the round `seq`.
        enum News {
            /// Where the next round starts (its start, emission start and
            /// written end, as [`Ask::start`]), if it can be predicted.
            Guess(u64, Option<(usize, usize, usize)>),
            Judged(u64, Option<Round>),
            /// The worker stopped (a panic unwinding it): its round will
            /// never come.
            Gone,
        }
        /// Tells the calling thread when its worker stops.
        struct Farewell(usize, mpsc::Sender<(usize, News)>);
        impl Drop for Farewell {
            fn drop(&mut self) {
                let _ = self.1.send((self.0, News::Gone));
            }
        }
        /// A round handed out and not written yet.
        struct Slot {
            seq: u64,
            start: (usize, usize, usize),
            /// `None` while not known (or not asked for).
            guess: Option<Option<(usize, usize, usize)>>,
            round: Option<Option<Round>>,
        }
        let inner = &*self.inner;
        let limit = inner.block + inner.context;
        std::thread::scope(|sc| {
            let (tell, news) = mpsc::channel::<(usize, News)>();
            let mut lanes: Vec<mpsc::Sender<Ask>> = Vec::new();
            for w in 0..self.threads {
                let (ask, asked) = mpsc::channel::<Ask>();
                let tell = tell.clone();
                let started = std::thread::Builder::new()
                    .name("toolexec-redact".into())
                    .spawn_scoped(sc, move || {
                        let _farewell = Farewell(w, tell.clone());
                        let mut scratch = Scratch::default();
                        while let Ok(a) = asked.recv() {
                            let (q, p, skip) = a.start;
                            let view = &hay[q..];
                            if a.predict {
                                let guess = if view.len() <= p + limit {
                                    None
                                } else {
                                    self.guess_next(&view[..p + limit], q, p, &mut scratch)
                                };
                                if tell.send((w, News::Guess(a.seq, guess))).is_err() {
                                    break;
                                }
                            }
                            let r = self.round_at(view, 0, (p, skip), true, &mut scratch);
                            if tell.send((w, News::Judged(a.seq, r))).is_err() {
                                break;
                            }
                        }
                    });
                if started.is_err() {
                    break;
                }
                lanes.push(ask);
            }
            drop(tell);
            let mut idle: Vec<usize> = (0..lanes.len()).rev().collect();
            let mut flight: std::collections::VecDeque<Slot> = Default::default();
            let mut next = (0usize, 0usize, 0usize);
            let mut seq = 0u64;
            let mut calm = 0usize;
            let most = 2 * lanes.len();
            loop {
                while flight.len() < most {
                    let start = match flight.back() {
                        None => next,
                        Some(Slot {
                            guess: Some(Some(start)),
                            ..
                        }) => *start,
                        Some(_) => break,
                    };
                    let Some(w) = idle.pop() else { break };
                    let ask = Ask {
                        seq,
                        start,
                        predict: calm == 0,
                    };
                    if lanes[w].send(ask).is_err() {
                        // That worker is gone: it gets no more rounds.
                        continue;
                    }
                    flight.push_back(Slot {
                        seq,
                        start,
                        guess: None,
                        round: None,
                    });
                    seq += 1;
                }
                // No worker left to judge, or one stopped with a round: the
                // rest is judged here.
                let heard = match flight.is_empty() {
                    false => news.recv().ok().filter(|(_, n)| !matches!(n, News::Gone)),
                    true => None,
                };
                let Some((w, n)) = heard else {
                    return self.rounds_from(
                        hay,
                        next,
                        &mut Scratch::default(),
                        &mut each,
                        &mut done,
                    );
                };
                // The slots' numbers are consecutive; a dropped round's
                // number is below the first slot's.
                let first = flight.front().map_or(0, |f| f.seq);
                let at = |s: u64| s.checked_sub(first).and_then(|i| usize::try_from(i).ok());
                match n {
                    News::Guess(s, g) => {
                        if let Some(f) = at(s).and_then(|i| flight.get_mut(i)) {
                            f.guess = Some(g);
                        }
                    }
                    News::Judged(s, r) => {
                        idle.push(w);
                        if let Some(f) = at(s).and_then(|i| flight.get_mut(i)) {
                            f.round = Some(r);
                        }
                    }
                    News::Gone => {}
                }
                while let Some(f) = flight.front() {
                    if f.start != next {
                        // Mispredicted: it and the rounds after it go.
                        #[cfg(test)]
                        tests::DROPPED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        flight.clear();
                        calm = Pace::CALM;
                        break;
                    }
                    if f.round.is_none() {
                        break;
                    }
                    let Some(Slot { start, round, .. }) = flight.pop_front() else {
                        break;
                    };
                    let Some(r) = round.flatten() else {
                        return Ok(());
                    };
                    let q = start.0;
                    each(q, &r)?;
                    if r.last {
                        return Ok(());
                    }
                    let (nq, np, nskip) = r.next(q);
                    next = (nq, np, nskip - nq);
                    calm = calm.saturating_sub(1);
                    done(nq);
                }
            }
        })
    }

    fn spans(&self, hay: &[u8]) -> Vec<Span> {
        let inner = &*self.inner;
        let limit = inner.block + inner.context;
        if hay.len() <= limit {
            return self.block_spans(hay, None, &mut Scratch::default());
        }
        // Long text: the canonical rounds the stream makes (see `round`).
        let mut out: Vec<Span> = Vec::new();
        // Collecting spans cannot fail: the result is always `Ok`.
        let _ = self.slice_rounds(
            hay,
            |q, r| {
                out.extend(r.spans.iter().map(|sp| Span {
                    s: sp.s + q,
                    e: sp.e + q,
                    ..*sp
                }));
                Ok(())
            },
            |_| {},
        );
        out
    }

    /// The spans of one block, and (when asked) the intervals no cut may fall
    /// strictly inside: markers, the line window of every keyword hit that has
    /// rules, the wider windows of rules whose guard passed, known-value reach.
    fn block_spans(
        &self,
        hay: &[u8],
        blocked: Option<&mut Vec<(usize, usize)>>,
        scratch: &mut Scratch,
    ) -> Vec<Span> {
        // Anchored starts are kept as `u32` offsets (see `MAX_BLOCK`).
        debug_assert!(u32::try_from(hay.len()).is_ok());
        let mut hits = std::mem::take(&mut scratch.hits);
        hits.clear();
        self.inner
            .scanner
            .scan(hay, &mut hits, &mut scratch.segments);
        let spans = if hits.is_empty() && self.inner.keywordless.is_empty() {
            Vec::new()
        } else {
            self.spans_with_hits(hay, &mut hits, blocked, &mut scratch.bufs)
        };
        scratch.hits = hits;
        spans
    }

    fn spans_with_hits(
        &self,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        mut blocked: Option<&mut Vec<(usize, usize)>>,
        bufs: &mut HitBufs,
    ) -> Vec<Span> {
        let inner = &*self.inner;
        let HitBufs {
            words,
            follow,
            line_rules,
            line_cache,
            follow_memo,
            anchors,
            bits,
            extents,
            memo,
            verdicts,
        } = bufs;
        words.clear();
        follow.clear();
        line_rules.clear();
        line_cache.clear();
        follow_memo.clear();
        anchors.list.clear();
        anchors.from = 0;
        bits.clear();
        bits.resize(inner.rules.len().div_ceil(64).max(1), 0);
        extents.resize(inner.rules.len(), (0, 0));
        let markers = self.markers_from(hay, hits);
        hits.retain(|h| !inside_marker(&markers, h.start(), h.end()));
        let reach = inner.max_variant + 2;
        if let Some(b) = blocked.as_deref_mut() {
            b.extend_from_slice(&markers);
        }
        sort_by_start(hits);
        let mut sink = Sink::default();
        let long = LongLines::default();
        let mut cur: Option<(usize, usize)> = None;
        let mut line_key = ((usize::MAX, 0), (usize::MAX, 0));
        // The previous hit's line window, and windows derived from it alone.
        let mut prev_lw: Option<(usize, usize)> = None;
        let mut reusable = false;
        let mut next_memo: Option<(usize, usize)> = None;
        // Dense hits (a structured log, JSON: a hit every few dozen bytes)
        // read their line windows from an index of the line breaks.
        let dense = hits.len() * 64 >= hay.len();
        let mut lines = if dense {
            LineFinder::indexed(hay)
        } else {
            LineFinder::default()
        };
        // The context of the last hit the dismissal looked at.
        let mut ctx_store: Option<checks::HitCtx> = None;
        // The key of the hit's name-guard verdict, and the facts of the line
        // `facts_of` that keys carry.
        let mut key = checks::VerdictKey::default();
        let mut facts = checks::LineFacts::default();
        let mut facts_of = (usize::MAX, 0);
        let mut names = checks::NameStarts::default();
        // Line-level guards of the current line: which bits are known, which passed.
        let mut line_bits = (0u8, 0u8);
        // The name guards of the current hit the dismissal judged: the first
        // `passed` of its `Quick::name_guards` failed but the last.
        let mut passed: usize;
        for h in hits.iter() {
            for &g in &inner.targets[h.pattern as usize].line_words {
                words.push(g, h.start(), h.len());
            }
        }
        // The line bits of word guards without a word in the block: known
        // to fail on every line (`has_word` finds nothing), not searched.
        let mut absent = 0u8;
        for (i, &g) in LINE_BIT_GUARDS.iter().enumerate() {
            let word = checks::LINE_WORDS.iter().any(|&(k, _)| k == g);
            if word && !words.any(g) {
                absent |= 1 << i;
            }
        }
        // Dense hits: the dots that open `DotSix`'s pattern are found once in
        // the block (~2 dots a line of a log: cheaper than a search per
        // line), and every window asks them (see `dot_six_in`); none, and the
        // bit is known to fail everywhere.
        if dense
            && long
                .dots
                .get_or_init(|| checks::dot_six_dots(hay))
                .is_empty()
        {
            absent |= line_bit(checks::Guard::DotSix);
        }
        for (hi, h) in hits.iter().enumerate() {
            let t = &inner.targets[h.pattern as usize];
            if let Some(b) = blocked.as_deref_mut() {
                if !t.heads.is_empty() {
                    block(
                        b,
                        (h.start(), (h.start() + reach).min(hay.len()).max(h.end())),
                    );
                }
                if !t.tails.is_empty() {
                    block(b, (h.end().saturating_sub(reach), h.end()));
                }
            }
            for &v in &t.heads {
                self.known_head(hay, h, v, &markers, &mut sink);
            }
            for &v in &t.tails {
                self.known_tail(hay, h, v, &markers, &mut sink);
            }
            if t.rules.is_empty() {
                continue;
            }
            // A covered hit (see below) whose line ends within 256 bytes of
            // its start (as the line's earlier hits found, or found here and
            // kept for the next window) is skipped before its line window:
            // the covering hit's window and anchor are the same.
            let covered =
                inner.quick && !t.covered_by.is_empty() && covered_at(hits, hi, &t.covered_by);
            if covered
                && !t.newline
                && (t.covered_far || lines.ends_by(hay, h.end(), h.start() + 256))
            {
                continue;
            }
            if !t.anchors.is_empty() {
                anchors.list.push((h.pattern, h.start() as u32));
            }
            let clamp = |w: (usize, usize)| clamp_to_markers(&markers, h.start(), h.end(), w);
            let lw = match prev_lw {
                Some(p) if reusable && same_line_window(hay, p, h.start(), h.end()) => p,
                _ => {
                    // A window holds no `\n` unless its hit does (a custom keyword).
                    reusable = !t.newline;
                    if reusable {
                        lines.window(hay, h.start(), h.end())
                    } else {
                        line_window(hay, h.start(), h.end())
                    }
                }
            };
            if prev_lw != Some(lw) {
                if let Some(b) = blocked.as_deref_mut() {
                    block(b, lw);
                }
                prev_lw = Some(lw);
                next_memo = None;
                follow_memo.clear();
            }
            let (ls, le) = clamp(lw);
            // Guards that look only at the line are shared by its hits.
            if line_key != (lw, (ls, le)) {
                line_key = (lw, (ls, le));
                line_cache.clear();
                line_bits = (absent, 0);
            }
            // A hit that another hit at its start covers adds nothing.
            if covered && reusable && le <= h.start() + 256 {
                continue;
            }
            line_rules.clear();
            let mut ctx: Option<checks::HitCtx> = None;
            passed = 0;
            // A hit at which no rule can run is done here (its line window
            // is blocked above like every hit's).
            if let (true, true, Some(q)) = (inner.quick, reusable, &t.quick) {
                // `tok` then `token`, `secret` then `secret_`: the context of
                // the previous hit serves a longer one at its start.
                // Only guards that look at the hit read its context (the
                // line-level ones make it when they need it).
                // A hit without any context shape (most hits in prose and
                // logs) fails every guard with a shape: its context is not
                // built (a guard group that runs after all makes it).
                let pretest = inner.shape_pretest && !q.shapeless && !q.hit_only && q.shapes != 0;
                let mut renewed = checks::Renewed::Bare;
                if pretest {
                    let known = if inner.verdict_memo && q.memo {
                        if facts_of != (ls, le) {
                            facts = checks::LineFacts::of(hay, ls, le);
                            facts_of = (ls, le);
                        }
                        Some((&mut *verdicts, &facts, h.pattern))
                    } else {
                        None
                    };
                    renewed = checks::HitCtx::renew_shaped(
                        &mut ctx_store,
                        hay,
                        (h.start(), h.end()),
                        (ls, le),
                        known,
                        &mut key,
                        &mut names,
                    );
                    #[cfg(test)]
                    if renewed == checks::Renewed::Known {
                        tests::check_known(q, hay, h, (ls, le));
                    }
                } else if (q.shapeless || q.shapes != 0) && !q.hit_only {
                    match ctx_store.as_mut() {
                        Some(c) => c.renew(hay, (h.start(), h.end()), (ls, le)),
                        None => {
                            ctx_store = Some(checks::HitCtx::new(hay, h.start(), h.end(), ls, le));
                        }
                    }
                } else {
                    ctx_store = None;
                }
                let bare = pretest && ctx_store.is_none();
                let mut line_ok = |g: checks::Guard,
                                   ctx: &mut Option<checks::HitCtx>,
                                   memo: &mut checks::NameMemo| {
                    line_guard_ok(
                        g,
                        hay,
                        (h.start(), h.end()),
                        lw,
                        (ls, le),
                        || clamp(with_next_line(hay, lw)).1,
                        words,
                        &long,
                        line_cache,
                        ctx,
                        memo,
                    )
                };
                let mut next_end =
                    || clamp(*next_memo.get_or_insert_with(|| with_next_line(hay, lw))).1;
                let gone = self.dismissed(
                    q,
                    hay,
                    h,
                    lw,
                    (ls, le),
                    &mut ctx_store,
                    (words, &long, &mut next_end),
                    &mut line_ok,
                    &mut line_bits,
                    memo,
                    (bare, &mut passed),
                );
                // Every name guard failed: remembered by the hit's key
                // where that decides it.
                if passed == 0 && renewed == checks::Renewed::Built && key.is_some() {
                    if let Some(c) = &ctx_store {
                        if c.reads_within(hay, &q.name_guards, key.window()) {
                            verdicts.remember(&key);
                        }
                    }
                }
                if gone {
                    continue;
                }
                ctx = ctx_store;
            }
            for (g, rs) in &t.groups {
                if let Some(g) = *g {
                    let ok = if checks::line_level(g) {
                        line_guard_ok(
                            g,
                            hay,
                            (h.start(), h.end()),
                            lw,
                            (ls, le),
                            || clamp(*next_memo.get_or_insert_with(|| with_next_line(hay, lw))).1,
                            words,
                            &long,
                            line_cache,
                            &mut ctx,
                            memo,
                        )
                    } else if let Some(k) = t
                        .quick
                        .as_ref()
                        .filter(|_| passed > 0)
                        .and_then(|q| q.name_guards[..passed].iter().position(|&x| x == g))
                    {
                        k + 1 == passed
                    } else {
                        let c = ctx.get_or_insert_with(|| {
                            checks::HitCtx::new(hay, h.start(), h.end(), ls, le)
                        });
                        c.may_pass(g) && checks::guard_ok_at(g, hay, c, le, memo)
                    };
                    if !ok {
                        continue;
                    }
                }
                for &r in rs {
                    let rule = &inner.rules[r as usize];
                    match rule.window {
                        Window::Line => line_rules.push(r),
                        Window::Following(n) => {
                            let w = match follow_memo.iter().find(|&&(k, _)| k == n) {
                                Some(&(_, w)) => w,
                                None => {
                                    let w = following_from(hay, lw, n);
                                    follow_memo.push((n, w));
                                    w
                                }
                            };
                            let (ws, we) = clamp(w);
                            follow.push((r, ws as u32, we as u32));
                        }
                        // The line's own window unless the line continues
                        // (then searched as a `Following` window is).
                        Window::Continued(n) => {
                            if line_continues(hay, lw) {
                                let (ws, we) = clamp(continued_from(hay, lw, n));
                                follow.push((r, ws as u32, we as u32));
                            } else {
                                line_rules.push(r);
                            }
                        }
                        Window::NextLine => {
                            let (ws, we) =
                                clamp(*next_memo.get_or_insert_with(|| with_next_line(hay, lw)));
                            follow.push((r, ws as u32, we as u32));
                        }
                    }
                }
            }
            if line_rules.is_empty() {
                continue;
            }
            match cur {
                Some((cs, ce)) if ls < ce => cur = Some((cs, ce.max(le))),
                Some((cs, ce)) => {
                    self.run_window(hay, cs, ce, bits, extents, anchors, &markers, &mut sink);
                    cur = Some((ls, le));
                }
                None => cur = Some((ls, le)),
            }
            for &r in line_rules.iter() {
                let (w, b) = (r as usize / 64, 1u64 << (r % 64));
                let e = &mut extents[r as usize];
                *e = if bits[w] & b == 0 {
                    (ls, le)
                } else {
                    (e.0.min(ls), e.1.max(le))
                };
                bits[w] |= b;
            }
        }
        if let Some((cs, ce)) = cur {
            self.run_window(hay, cs, ce, bits, extents, anchors, &markers, &mut sink);
        }
        if let Some(b) = blocked {
            for &(_, ws, we) in follow.iter() {
                block(b, (ws as usize, we as usize));
            }
        }
        follow.sort_unstable();
        // Per rule (windows come sorted by rule, then start): the first byte the
        // rule needs at or after `from`, found once and reused while it lies ahead
        // of the windows, so that long windows are not searched again and again.
        let mut needed: Option<(u32, usize, usize)> = None;
        let mut i = 0;
        while i < follow.len() {
            let (r, ws, mut we) = follow[i];
            let mut j = i + 1;
            while j < follow.len() && follow[j].0 == r && follow[j].1 < we {
                we = we.max(follow[j].2);
                j += 1;
            }
            i = j;
            let (ws, we) = (ws as usize, we as usize);
            if let Some(checks::Needs::Byte(set)) = inner.rules[r as usize].needs {
                let q = match needed {
                    Some((nr, from, q)) if nr == r && from <= ws && q >= ws => q,
                    _ => match checks::first_needed(set, hay, ws) {
                        Some(q) => {
                            needed = Some((r, ws, q));
                            q
                        }
                        None => ws,
                    },
                };
                if q >= we {
                    continue;
                }
            }
            self.run_rule(hay, r, ws, we, &markers, &mut sink);
        }
        if !inner.keywordless.is_empty() {
            let mut ls = 0;
            while ls <= hay.len() {
                let le = memchr::memchr(b'\n', &hay[ls..]).map_or(hay.len(), |i| ls + i);
                for &r in &inner.keywordless {
                    self.run_rule(hay, r, ls, le, &markers, &mut sink);
                }
                ls = le + 1;
            }
        }
        self.second_look(hay, hits, &markers, sink)
    }

    /// Whether no rule of the hit's target can run at the hit `h` (line
    /// window `lw`, clamped to `(ls, le)`; `ctx` holds its context): every
    /// guard of the target fails there — the guards that look at the hit
    /// first by their shapes, one bit test for all of them — and so does the
    /// cheap test of each unguarded rule. Such a hit changes nothing but the
    /// blocked intervals (kept by the caller), so skipping the guard groups
    /// gives the same windows, regex runs and spans.
    ///
    /// The tests of unguarded rules: a rule that runs anchored at its
    /// keyword starts cannot match where its [`StartNeeds`] fail, on any
    /// window (its runs only try keyword starts, and every start lies in
    /// the window of its own hit, which is dismissed only where it fails
    /// too): tested on every window, a long line's as well (5 MB of JSON on
    /// one line: 304.0 -> 281.2 M instructions). A rule that searches its
    /// windows and a rule with `needs` (which does not run on a line that
    /// fails them) are only tested on a whole line without markers, where
    /// the window of every hit of the line is the line itself, so the
    /// windows the rule would run on do not depend on which hits trigger it.
    ///
    /// When the `k`-th of the name guards passes, `passed` becomes `k + 1`
    /// (the earlier ones failed): the caller's guard groups reuse the verdicts.
    /// A `bare` hit has no context shape (`checks::HitCtx::renew_shaped`, for a target
    /// without shapeless name guards): its name guards all fail untested.
    #[allow(clippy::too_many_arguments)]
    fn dismissed(
        &self,
        q: &Quick,
        hay: &[u8],
        h: &Hit,
        lw: (usize, usize),
        (ls, le): (usize, usize),
        ctx: &mut Option<checks::HitCtx>,
        (words, long, next_end): (&GuardWords, &LongLines, &mut impl FnMut() -> usize),
        line_ok: &mut impl FnMut(
            checks::Guard,
            &mut Option<checks::HitCtx>,
            &mut checks::NameMemo,
        ) -> bool,
        (known, pass): &mut (u8, u8),
        memo: &mut checks::NameMemo,
        (bare, passed): (bool, &mut usize),
    ) -> bool {
        let inner = &*self.inner;
        if q.hit_only {
            // Shapeless guards (`checks::guard_shapes`): each is evaluated.
            for (k, &g) in q.name_guards.iter().enumerate() {
                if checks::hit_guard_ok(g, hay, (h.start(), h.end()), (ls, le)) {
                    *passed = k + 1;
                    return false;
                }
            }
        } else if !bare && (q.shapeless || q.shapes != 0) {
            let c = ctx.get_or_insert_with(|| checks::HitCtx::new(hay, h.start(), h.end(), ls, le));
            if q.shapeless || c.feat() & q.shapes != 0 {
                if let Some(mut cand) = q.candidates(c.feat()) {
                    while cand != 0 {
                        let k = cand.trailing_zeros() as usize;
                        cand &= cand - 1;
                        if checks::guard_ok_at(q.name_guards[k], hay, c, le, memo) {
                            *passed = k + 1;
                            return false;
                        }
                    }
                } else {
                    for (k, &g) in q.name_guards.iter().enumerate() {
                        if c.may_pass(g) && checks::guard_ok_at(g, hay, c, le, memo) {
                            *passed = k + 1;
                            return false;
                        }
                    }
                }
            }
        }
        let mut need = q.line_bits & !*known;
        while need != 0 {
            let bit = need & need.wrapping_neg();
            need &= !bit;
            let g = LINE_BIT_GUARDS[bit.trailing_zeros() as usize];
            *known |= bit;
            if line_bit_ok(g, hay, lw, (ls, le), &mut *next_end, words, long) {
                *pass |= bit;
            }
        }
        if *pass & q.line_bits != 0 {
            return false;
        }
        for &g in &q.line_guards {
            if line_ok(g, ctx, memo) {
                return false;
            }
        }
        if q.anchored.is_empty() && q.needs.is_empty() {
            return true;
        }
        let whole = (lw.0 == 0 || hay[lw.0 - 1] == b'\n')
            && (lw.1 == hay.len() || hay[lw.1] == b'\n')
            && (ls, le) == lw;
        // A window past the line: the tests below read the line only.
        if q.continued && line_continues(hay, lw) {
            return false;
        }
        for &r in &q.anchored {
            let rule = &inner.rules[r as usize];
            if !self.runs_anchored(rule) {
                // It searches its windows (as `run_window` decides): only its
                // `needs` can rule the line out.
                if !whole || rule.needs.is_none_or(|n| checks::needs_ok(n, &hay[ls..le])) {
                    return false;
                }
                continue;
            }
            let needs = inner.start_needs[r as usize]
                .get_or_init(|| rule.hir().and_then(StartNeeds::of_hir));
            if needs
                .as_ref()
                .is_none_or(|n| n.may_match_at(hay, h.start(), ls))
            {
                return false;
            }
        }
        if !q.needs.is_empty() && !whole {
            return false;
        }
        for &r in &q.needs {
            if inner.rules[r as usize]
                .needs
                .is_none_or(|n| checks::needs_ok(n, &hay[ls..le]))
            {
                return false;
            }
        }
        true
    }

    /// What a second pass over the output would see: the masked spans become
    /// markers (window boundaries, and matches touching them are dropped). A
    /// match rejected in the first round because it ran into text that got
    /// masked is looked at again on the pieces between the spans, so that
    /// redacting the output again finds nothing new.
    ///
    /// A window whose only rejections may be among the matches whose check
    /// was put off (see [`Self::accept`]) is looked at on the side first:
    /// when that finds nothing, the window changes nothing either way and
    /// the checks never run; otherwise they decide, as if they had run in
    /// the first pass, whether what was found counts.
    fn second_look(
        &self,
        hay: &[u8],
        hits: &[Hit],
        markers: &[(usize, usize)],
        mut sink: Sink,
    ) -> Vec<Span> {
        sink.second = true;
        let mut deferred = std::mem::take(&mut sink.deferred);
        // By window, so that each window finds its own in O(log n) (a long
        // secret-dense line has thousands).
        deferred.sort_unstable_by_key(|d| (d.r, d.ws, d.we));
        let mut spans = resolve(sink.cands.clone());
        let mut done = 0;
        for round in 0..3 {
            let unsure = round == 0 && !deferred.is_empty();
            if spans.is_empty() || (done == sink.rejected.len() && !unsure) {
                break;
            }
            let mut vm: Vec<(usize, usize)> = markers
                .iter()
                .copied()
                .chain(spans.iter().map(|sp| (sp.s, sp.e)))
                .collect();
            vm.sort_unstable();
            // What follows depends on the rule and the window only: a long
            // window with thousands of rejected matches is looked at once.
            // Windows known to hold a rejected match sort before the same
            // windows with put-off checks only (`false < true`).
            let mut todo: Vec<(u32, usize, usize, bool)> = sink.rejected[done..]
                .iter()
                .map(|&(r, ws, we)| (r, ws, we, false))
                .collect();
            if unsure {
                // Sorted by window: each window once (a long line's window
                // puts off thousands of matches).
                let mut last = None;
                for d in &deferred {
                    if last != Some((d.r, d.ws, d.we)) {
                        last = Some((d.r, d.ws, d.we));
                        todo.push((d.r, d.ws, d.we, true));
                    }
                }
            }
            todo.sort_unstable();
            todo.dedup_by_key(|t| (t.0, t.1, t.2));
            done = sink.rejected.len();
            let before = sink.cands.len();
            let mut seen = Pieces::new();
            let mut pieces: Vec<(usize, usize)> = Vec::new();
            for (i, &(r, ws, we, unsure)) in todo.iter().enumerate() {
                // Only a piece that a later window of the rule may hold
                // again is remembered: one at or past the next window's
                // start (the windows come sorted by rule, then start). A
                // long line's one window per rule remembers none of its
                // hundreds of thousands of pieces.
                let again = todo
                    .get(i + 1)
                    .filter(|t| t.0 == r)
                    .map_or(usize::MAX, |t| t.1);
                // Only windows holding a masked span can look different now
                // (the span may have been part of the match, or its context).
                let i = spans.partition_point(|sp| sp.e <= ws);
                if spans.get(i).is_none_or(|sp| sp.s >= we) {
                    continue;
                }
                self.pieces(hits, &vm, r, (ws, we), &seen, &mut pieces);
                if !unsure {
                    for &(gs, ge) in &pieces {
                        if gs >= again {
                            seen.insert(piece(r, gs, ge));
                        }
                        self.run_rule(hay, r, gs, ge, &vm, &mut sink);
                    }
                    continue;
                }
                let mut side = Sink {
                    second: true,
                    ..Sink::default()
                };
                for &(gs, ge) in &pieces {
                    self.run_rule(hay, r, gs, ge, &vm, &mut side);
                }
                // Nothing found: the window changes nothing, looked at or not
                // (its pieces would give the same nothing to a later window).
                if side.cands.is_empty() && side.rejected.is_empty() {
                    continue;
                }
                let from = deferred.partition_point(|d| (d.r, d.ws, d.we) < (r, ws, we));
                let rejected = deferred[from..]
                    .iter()
                    .take_while(|d| (d.r, d.ws, d.we) == (r, ws, we))
                    .any(|d| self.deferred_rejected(hay, d));
                #[cfg(test)]
                tests::SIDE_KEPT.with(|n| n.set(n.get() + usize::from(rejected)));
                if rejected {
                    seen.extend(
                        pieces
                            .iter()
                            .filter(|&&(gs, _)| gs >= again)
                            .map(|&(gs, ge)| piece(r, gs, ge)),
                    );
                    sink.cands.append(&mut side.cands);
                    sink.rejected.append(&mut side.rejected);
                }
            }
            if sink.cands.len() == before {
                break;
            }
            spans = resolve(sink.cands.clone());
        }
        spans
    }

    /// The pieces of the window `[ws, we)` between the markers and spans
    /// `vm` on which the second look runs rule `r` again: those not `seen`
    /// yet that hold a whole keyword hit of the rule.
    fn pieces(
        &self,
        hits: &[Hit],
        vm: &[(usize, usize)],
        r: u32,
        (ws, we): (usize, usize),
        seen: &Pieces,
        out: &mut Vec<(usize, usize)>,
    ) {
        let inner = &*self.inner;
        out.clear();
        let mut gs = ws;
        let mut k = vm.partition_point(|&(_, e)| e <= ws);
        loop {
            let ge = match vm.get(k) {
                Some(&(s, _)) if s < we => s.max(gs),
                _ => we,
            };
            // The pieces come in order (`gs`, then `ge`, never decrease: `vm`
            // is sorted), so a repeated one is the last one pushed.
            if ge > gs && !seen.contains(&piece(r, gs, ge)) && out.last() != Some(&(gs, ge)) {
                let a = hits.partition_point(|h| h.start() < gs);
                let has_hit = hits[a..]
                    .iter()
                    .take_while(|h| h.end() <= ge)
                    .any(|h| inner.targets[h.pattern as usize].rules.contains(&r));
                if has_hit {
                    out.push((gs, ge));
                }
            }
            match vm.get(k) {
                Some(&(_, e)) if e < we => {
                    gs = e.max(gs);
                    k += 1;
                }
                _ => break,
            }
        }
    }

    /// Whether a rule of `Target::anchors` runs anchored at its keyword hits
    /// (as `run_window` decides), rather than searching its windows: a
    /// prefixed rule always has its anchored engine (its regex).
    fn runs_anchored(&self, rule: &Rule) -> bool {
        self.inner.anchored && rule.prefixed()
    }

    /// Runs the rules set in `bits` on the window `[ws, we)`, each on the
    /// part of it its own hits' windows span (`extents`); `anchors` holds
    /// the keyword starts of prefixed rules from the window on (those before
    /// `we` are used and passed).
    ///
    /// The window is the union of overlapping hit windows. On an ordinary
    /// line every hit's window is the line, and so is each rule's part; on a
    /// long line (minified code or JSON, base64) the windows of hits a few
    /// KiB apart chain into one as long as the round, and a rule that one
    /// hit asked for searched all of it, far beyond the 4 KiB either side
    /// of its keyword that a window reaches (50 MB of base64 on one line:
    /// ~86 MB/s, most of it five rules searching every round whole).
    #[allow(clippy::too_many_arguments)]
    fn run_window(
        &self,
        hay: &[u8],
        ws: usize,
        we: usize,
        bits: &mut [u64],
        extents: &[(usize, usize)],
        anchors: &mut Anchors,
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) {
        let from = anchors.from;
        let upto = from + anchors.list[from..].partition_point(|&(_, st)| (st as usize) < we);
        let mut starts = std::mem::take(&mut sink.starts);
        let targets = &self.inner.targets;
        // Many keyword starts (a long line's window): each is read once for
        // the rules it anchors, and each rule takes its own from them
        // sorted, instead of every rule reading all of them (a megabyte
        // of one-line JSON: 56 k starts read by each anchored rule).
        let mut by_rule = std::mem::take(&mut sink.by_rule);
        let grouped = upto - from > self.inner.many_anchors;
        if grouped {
            by_rule.resize_with(self.inner.rules.len(), Vec::new);
            // The window's rules among each start's anchored rules, by their
            // bits (a long window has hundreds of thousands of starts, each
            // of a dozen anchored rules of which one or two run).
            for &(p, st) in &anchors.list[from..upto] {
                if st as usize >= ws {
                    for (wi, (&a, &b)) in targets[p as usize]
                        .anchor_bits
                        .iter()
                        .zip(bits.iter())
                        .enumerate()
                    {
                        let mut w = a & b;
                        while w != 0 {
                            let r = wi * 64 + w.trailing_zeros() as usize;
                            by_rule[r].push(st);
                            w &= w - 1;
                        }
                    }
                }
            }
            // Each rule's starts are in order (the list is), 4 bytes each: a
            // list of (rule, start) sorted by rule was 16 bytes a start and
            // rule, 8 MB of a megabyte of `AKIA AKIA …` (and as much again
            // for the stable sort's buffer).
            #[cfg(test)]
            tests::GROUPED.with(|n| n.set(n.get() + 1));
        }
        for (wi, word) in bits.iter_mut().enumerate() {
            let mut w = std::mem::take(word);
            while w != 0 {
                let b = w.trailing_zeros();
                w &= w - 1;
                let r = (wi * 64) as u32 + b;
                let rule = &self.inner.rules[r as usize];
                let (rs, re_end) = extents[r as usize];
                let (rs, re_end) = (rs.max(ws), re_end.min(we));
                let prefixed = self.inner.anchored && rule.prefixed();
                match rule.anchored().filter(|_| prefixed) {
                    Some(re) => {
                        starts.clear();
                        let within = |st: u32| (st as usize) >= rs && (st as usize) < re_end;
                        if grouped {
                            starts.extend(by_rule[r as usize].drain(..).filter(|&st| within(st)));
                        } else {
                            starts.extend(
                                anchors.list[from..upto]
                                    .iter()
                                    .filter(|&&(p, st)| {
                                        within(st) && targets[p as usize].anchors.contains(&r)
                                    })
                                    .map(|&(_, st)| st),
                            );
                        }
                        starts.dedup();
                        // Many starts of a rule that reads far (a long line
                        // of `lftp lftp …`): anchored at each, it reads the
                        // rest of the window from each, quadratic; the search,
                        // which it stands for (same matches, same order),
                        // reads the window once.
                        if starts.len() > self.inner.many_starts && rule.reads_far() {
                            #[cfg(test)]
                            tests::SEARCHED.with(|n| n.set(n.get() + 1));
                            self.run_rule(hay, r, rs, re_end, markers, sink);
                        } else {
                            self.run_anchored(hay, r, re, rs, re_end, &starts, markers, sink);
                        }
                    }
                    None => {
                        if grouped {
                            by_rule[r as usize].clear();
                        }
                        self.run_rule(hay, r, rs, re_end, markers, sink)
                    }
                }
            }
        }
        // Passed, not drained: removing the front of a long list per window
        // moved the rest each time (memmove was ~2 % on keyword-dense JSON).
        anchors.from = upto;
        sink.starts = starts;
        sink.by_rule = by_rule;
    }

    /// [`Redactor::run_rule`] for a rule whose matches start with one of its
    /// keywords: the regex runs anchored at each keyword start in `starts`
    /// (sorted, inside the window) instead of searching the window. The
    /// matches, and the order in which they are taken or rejected, are those
    /// of the search (it resumes at the same places).
    #[allow(clippy::too_many_arguments)]
    fn run_anchored(
        &self,
        hay: &[u8],
        r: u32,
        re: &regex_automata::meta::Regex,
        ws: usize,
        we: usize,
        starts: &[u32],
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) {
        use regex_automata::{Anchored, Input};
        let rule = &self.inner.rules[r as usize];
        let win = &hay[ws..we];
        if starts.is_empty() || rule.needs.is_some_and(|n| !checks::needs_ok(n, win)) {
            return;
        }
        let mut at = 0;
        let mut restarts = Restarts::default();
        let whole = rule.compiled().whole();
        let mut caps = if whole {
            None
        } else {
            Some(re.create_captures())
        };
        for &st in starts {
            let s0 = st as usize - ws;
            if s0 < at {
                continue;
            }
            let input = Input::new(win).span(s0..win.len()).anchored(Anchored::Yes);
            match caps.as_mut() {
                None => {
                    let Some(m) = re.search(&input) else {
                        continue;
                    };
                    let (s, e) = (m.start(), m.end());
                    let taken = self.take_whole(rule, r, win, (ws, we), (s, e), markers, sink);
                    at = next_start(s, e, taken, &mut restarts);
                }
                Some(caps) => {
                    re.search_captures(&input, caps);
                    let Some(m) = caps.get_match() else {
                        continue;
                    };
                    let (ms, me) = (m.start(), m.end());
                    let group = |g: usize| caps.get_group(g).map(|sp| (sp.start, sp.end));
                    let taken =
                        self.take_groups(rule, r, win, (ws, we), (ms, me), group, markers, sink);
                    at = next_start(ms, me, taken, &mut restarts);
                }
            }
        }
    }

    fn run_rule(
        &self,
        hay: &[u8],
        r: u32,
        ws: usize,
        we: usize,
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) {
        let rule = &self.inner.rules[r as usize];
        let win = &hay[ws..we];
        if rule.needs.is_some_and(|n| !checks::needs_ok(n, win)) {
            return;
        }
        let mut at = 0;
        let mut restarts = Restarts::default();
        // After a match, the search goes on where a match may still start
        // (the same next match: see `Resume`), or stops when none can.
        let resume = if self.inner.resume {
            rule.resume()
        } else {
            None
        };
        let go_on = |at: usize| match resume {
            Some(res) => res.next(win, at),
            None => Some(at),
        };
        if rule.compiled().whole() {
            // The whole match is the secret: no capture groups to resolve.
            while at <= win.len() {
                let Some(m) = rule.regex().find_at(win, at) else {
                    break;
                };
                let (s, e) = (m.start(), m.end());
                let taken = self.take_whole(rule, r, win, (ws, we), (s, e), markers, sink);
                let Some(next) = go_on(next_start(s, e, taken, &mut restarts)) else {
                    break;
                };
                at = next;
            }
            return;
        }
        let mut locs = rule.regex().capture_locations();
        // The plain search, then the groups read by the pattern's pieces
        // (see `Split`); a capture engine when they cannot tell.
        let split = if self.inner.split { rule.split() } else { None };
        let mut read = [None; crate::rule::MAX_SPLIT_GROUPS];
        let read = &mut read[..split.map_or(0, |sp| sp.groups())];
        while at <= win.len() {
            let (ms, me, by_pieces) = match split {
                Some(sp) => {
                    let Some(m) = rule.regex().find_at(win, at) else {
                        break;
                    };
                    let (ms, me) = (m.start(), m.end());
                    let by_pieces = sp.read(win, (ms, me), read);
                    if !by_pieces {
                        // The same match: none starts between `at` and `ms`.
                        rule.regex().captures_read_at(&mut locs, win, ms);
                    }
                    (ms, me, by_pieces)
                }
                None => {
                    let Some(m) = rule.regex().captures_read_at(&mut locs, win, at) else {
                        break;
                    };
                    (m.start(), m.end(), false)
                }
            };
            let group = |g: usize| {
                if by_pieces {
                    read.get(g).copied().flatten()
                } else {
                    locs.get(g)
                }
            };
            let taken = self.take_groups(rule, r, win, (ws, we), (ms, me), group, markers, sink);
            let Some(next) = go_on(next_start(ms, me, taken, &mut restarts)) else {
                break;
            };
            at = next;
        }
    }

    /// One match whose whole text is the secret: bounded by the rule's
    /// `before`/`after` byte sets, then judged by [`Self::accept`]; a
    /// non-empty match that adds no candidate is recorded as rejected (for
    /// the second look). Whether it was taken.
    #[allow(clippy::too_many_arguments)]
    fn take_whole(
        &self,
        rule: &Rule,
        r: u32,
        win: &[u8],
        (ws, we): (usize, usize),
        (s, e): (usize, usize),
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) -> bool {
        if s >= e {
            return false;
        }
        let in_set = |b: u8, extra: &[u8]| b.is_ascii_alphanumeric() || extra.contains(&b);
        let bounded = rule.before.is_none_or(|x| s == 0 || !in_set(win[s - 1], x))
            && rule
                .after
                .is_none_or(|x| e >= win.len() || !in_set(win[e], x));
        let before = (sink.cands.len(), sink.deferred.len());
        let taken = bounded
            && self.accept(
                rule,
                r,
                win,
                (ws, we),
                (s, e),
                (s, e),
                None,
                false,
                markers,
                sink,
            );
        if (sink.cands.len(), sink.deferred.len()) == before {
            sink.reject((r, ws, we));
        }
        taken
    }

    /// One match with capture groups (`group(g)` gives group `g`'s span):
    /// the secret is the main group, else the first alternative that took
    /// part; judged by [`Self::accept`]; a match that adds no candidate is
    /// recorded as rejected. Whether it was taken.
    #[allow(clippy::too_many_arguments)]
    fn take_groups(
        &self,
        rule: &Rule,
        r: u32,
        win: &[u8],
        (ws, we): (usize, usize),
        (ms, me): (usize, usize),
        group: impl Fn(usize) -> Option<(usize, usize)>,
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) -> bool {
        let c = rule.compiled();
        let chosen = std::iter::once(c.group_index)
            .chain(c.alt.iter().copied())
            .find_map(|g| group(g).filter(|(s, e)| e > s).map(|(s, e)| (g, s, e)));
        let before = (sink.cands.len(), sink.deferred.len());
        let taken = match chosen {
            Some((g, s, e)) => {
                let bare = c.regex.capture_names().nth(g).flatten() == Some("s3");
                let name = c.name_group.and_then(&group);
                self.accept(
                    rule,
                    r,
                    win,
                    (ws, we),
                    (ms, me),
                    (s, e),
                    name,
                    bare,
                    markers,
                    sink,
                )
            }
            None => false,
        };
        if (sink.cands.len(), sink.deferred.len()) == before {
            sink.reject((r, ws, we));
        }
        taken
    }

    /// Filters a match (allow patterns, entropy, markers, the rule's check) and
    /// records the spans to mask; whether they cover the whole match. Offsets
    /// are relative to the window `[ws, we)` of the haystack.
    ///
    /// In the first pass, a check whose only possible effect is a candidate
    /// that a candidate already found covers — with a better priority, or of
    /// the same rule — and that cannot cover the whole match (so the search
    /// resumes at the same place whatever it says) is put off (see
    /// [`Self::deferrable`]): the candidate would change no span, and whether
    /// the match was rejected only matters to the second look, which asks
    /// for the verdict when it does.
    #[allow(clippy::too_many_arguments)]
    fn accept(
        &self,
        rule: &Rule,
        r: u32,
        win: &[u8],
        (ws, we): (usize, usize),
        (ms, me): (usize, usize),
        (s, e): (usize, usize),
        name: Option<(usize, usize)>,
        bare: bool,
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) -> bool {
        let secret = &win[s..e];
        if rule.allow.iter().any(|a| a.is_match(secret)) {
            return false;
        }
        if let Some(min) = rule.min_entropy {
            if checks::entropy(secret) < min {
                return false;
            }
        }
        if touches_marker(markers, ws + ms, ws + me) {
            return false;
        }
        let verdict = match rule.check {
            None => Verdict::Accept,
            Some(c) => {
                let defer = self.inner.defer && !sink.second;
                if defer && self.deferrable(rule, r, c, win, ws, (ms, me), (s, e), &sink.cands) {
                    #[cfg(test)]
                    tests::PUT_OFF.with(|n| n.set(n.get() + 1));
                    sink.deferred.push(Deferred {
                        r,
                        ws,
                        we,
                        secret: (s, e),
                        name,
                        bare,
                    });
                    return false;
                }
                checks::run(c, win, (s, e), name, if bare { 2 } else { 0 })
            }
        };
        // No vector for the usual single span.
        let one;
        let spans: &[(usize, usize)] = match &verdict {
            Verdict::Reject => return false,
            Verdict::Accept => {
                one = [(s, e)];
                &one
            }
            Verdict::Spans(v) => v,
        };
        // Only a match masked from end to end is skipped over; otherwise the
        // search resumes inside it (what is left may hold another match).
        let whole = spans.len() == 1 && spans[0] == (ms, me);
        for &(a, b) in spans {
            sink.cands.push(Cand {
                s: ws + a,
                e: ws + b,
                src: r,
                prio: rule.priority,
            });
        }
        whole
    }

    /// Whether the check `c` of a match (`[ms, me)`, secret `[s, e)`, relative
    /// to the window `win` at `ws`) may be put off: its verdict can add at most
    /// one candidate, on a span known here (the secret; for `GenericKv` the
    /// value it splits off) that is not the whole match, and one of the last
    /// candidates covers that span with a better priority, or with the same
    /// priority from this rule or one listed before it. Merging then gives
    /// the same spans with or without it: [`resolve`] keeps the id of the
    /// first candidate of a merged span in its order (start, longest first,
    /// priority, rule), and a candidate inside one of the same priority that
    /// sorts before it takes the id only with a strictly better priority.
    /// (The same-priority case is the bare `Bearer X` rule after the
    /// `Authorization: Bearer X` rule took the same token: the JWT's
    /// placeholder, code and entropy tests ran twice per line, ~11 000
    /// instructions; dense5 668.6 M → 644.5 M.)
    #[allow(clippy::too_many_arguments)]
    fn deferrable(
        &self,
        rule: &Rule,
        r: u32,
        c: checks::Check,
        win: &[u8],
        ws: usize,
        (ms, me): (usize, usize),
        (s, e): (usize, usize),
        cands: &[Cand],
    ) -> bool {
        use checks::Check;
        /// Candidates looked back at: those of the window's earlier rules.
        const LOOK_BACK: usize = 16;
        if cands.is_empty() {
            return false;
        }
        let (a, b) = match c {
            // Verdicts that accept `[s, e)` as a whole or reject.
            Check::Token
            | Check::Mixed
            | Check::AwsSecret
            | Check::ShortPrefix
            | Check::Generic
            | Check::Value
            | Check::Command
            | Check::Typed
            | Check::UrlPassword
            | Check::UrlToken
            | Check::Bearer
            | Check::BareBearer => (s, e),
            // Accepts the value of its split, or rejects.
            Check::GenericKv => match checks::split_assignment(win, s, e) {
                Some((_, _, vs, ve, _)) => (vs, ve),
                None => return false,
            },
            _ => return false,
        };
        if a >= b || (a, b) == (ms, me) {
            return false;
        }
        let (a, b) = (ws + a, ws + b);
        cands.iter().rev().take(LOOK_BACK).any(|k| {
            k.s <= a
                && b <= k.e
                && (k.prio < rule.priority || (k.prio == rule.priority && k.src <= r))
        })
    }

    /// Whether a match whose check was put off is rejected by it (no
    /// candidate: what `take_whole`/`take_groups` record as rejected).
    fn deferred_rejected(&self, hay: &[u8], d: &Deferred) -> bool {
        let rule = &self.inner.rules[d.r as usize];
        let Some(c) = rule.check else {
            return false;
        };
        let win = &hay[d.ws..d.we];
        match checks::run(c, win, d.secret, d.name, if d.bare { 2 } else { 0 }) {
            Verdict::Reject => true,
            Verdict::Accept => false,
            Verdict::Spans(v) => v.is_empty(),
        }
    }

    fn known_src(&self, v: &Variant) -> u32 {
        let base = self.inner.rules.len() as u32;
        match v.origin {
            Origin::Env => base,
            Origin::Embedder => base + 1,
        }
    }

    fn known_head(
        &self,
        hay: &[u8],
        h: &Hit,
        vi: u32,
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) {
        let v = &self.inner.variants[vi as usize];
        let breakable = v.bytes.len() >= known::ENV_MIN_CHARS;
        if let Some(e) = known::match_forward(hay, h.start(), &v.bytes, breakable) {
            self.push_known(v, h.start(), e, markers, sink);
        }
    }

    fn known_tail(
        &self,
        hay: &[u8],
        h: &Hit,
        vi: u32,
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) {
        let v = &self.inner.variants[vi as usize];
        if let Some(s) = known::match_backward(hay, h.end(), &v.bytes, true) {
            self.push_known(v, s, h.end(), markers, sink);
        }
    }

    fn push_known(
        &self,
        v: &Variant,
        s: usize,
        e: usize,
        markers: &[(usize, usize)],
        sink: &mut Sink,
    ) {
        if touches_marker(markers, s, e) {
            return;
        }
        sink.cands.push(Cand {
            s,
            e,
            src: self.known_src(v),
            prio: P_KNOWN,
        });
    }
}

/// What one canonical round wrote, and where the next starts.
#[derive(Debug, PartialEq, Eq)]
struct Round {
    /// The spans written (relative to the round's text), inside `[from, to)`.
    spans: Vec<Span>,
    /// Output starts here.
    from: usize,
    /// Output ends here (the cut, or the end of a span written whole across it).
    to: usize,
    /// Where the round cut.
    cut: usize,
    /// The cut was not safe: the next round looks back `context` bytes.
    forced: bool,
    context: usize,
    /// No text follows the round.
    last: bool,
    /// The length of the round's text.
    hay_len: usize,
    /// The emission start and the written end it was given (relative to
    /// its text): a round judged from a guessed start counts only if they
    /// are what its predecessor left.
    given: (usize, usize),
}

impl Round {
    /// The next round's start, emission start (relative to it) and the
    /// absolute end of what was written, for a round whose text started at `q`.
    fn next(&self, q: usize) -> (usize, usize, usize) {
        let back = if self.forced {
            self.cut.min(self.context)
        } else {
            0
        };
        let nq = q + self.cut - back;
        (nq, back, q + self.to)
    }
}

/// Adds the open interval `w` to `blocked`, into the last one where they
/// overlap: the cut search reads only their union, and a long keyword-dense
/// line blocks one window per hit, each overlapping the one before (a round
/// of `token token …` held 350 000 intervals, 5.6 MB, now one).
fn block(blocked: &mut Vec<(usize, usize)>, (s, e): (usize, usize)) {
    if let Some(last) = blocked.last_mut() {
        if s < last.1 && last.0 < e {
            *last = (last.0.min(s), last.1.max(e));
            return;
        }
    }
    blocked.push((s, e));
}

/// Passes over the unsorted intervals before [`largest_safe`] sorts them.
const CUT_PASSES: usize = 4;

/// The largest position `c` in `(p, hi]` strictly inside no interval of
/// `blocked` (open at both ends), and, when `line_starts_only`, at a line
/// start (`hay[c - 1] == b'\n'`); `None` if there is none.
///
/// Walking down from `hi`, a position strictly inside intervals is unsafe
/// down to the lowest start among them, so the walk jumps there. A round's
/// cut is near its end and most rounds reach it in one to three jumps: a
/// few passes over the intervals as they come cost less than sorting them
/// (the ~1 MiB round of a structured log holds ~10 000, one per line with a
/// keyword). A walk still unsafe after [`CUT_PASSES`] passes (a chain of
/// windows) goes on over the sorted and merged intervals, as a whole walk
/// did before; both find the same position (test
/// `the_cut_is_the_one_merged_intervals_give`).
fn largest_safe(
    hay: &[u8],
    p: usize,
    hi: usize,
    blocked: &mut [(usize, usize)],
    line_starts_only: bool,
) -> Option<usize> {
    let mut c = hi;
    for _ in 0..CUT_PASSES {
        c = line_start_at_or_below(hay, p, c, line_starts_only)?;
        let low = blocked
            .iter()
            .filter(|&&(s, e)| s < c && c < e)
            .map(|&(s, _)| s)
            .min();
        match low {
            None => return Some(c),
            Some(s) => c = s,
        }
    }
    largest_safe_merged(hay, p, c, blocked, line_starts_only)
}

/// The largest position at or below `c` and above `p` that may be a cut
/// as far as lines go (any, or a line start when `line_starts_only`).
fn line_start_at_or_below(hay: &[u8], p: usize, c: usize, line_starts_only: bool) -> Option<usize> {
    if c <= p {
        return None;
    }
    if line_starts_only && hay[c - 1] != b'\n' {
        return memchr::memrchr(b'\n', &hay[p..c - 1]).map(|i| p + i + 1);
    }
    Some(c)
}

/// [`largest_safe`] over the sorted and merged intervals.
fn largest_safe_merged(
    hay: &[u8],
    p: usize,
    hi: usize,
    blocked: &mut [(usize, usize)],
    line_starts_only: bool,
) -> Option<usize> {
    blocked.sort_unstable();
    // Merge into disjoint intervals (open at both ends).
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(blocked.len());
    for &(s, e) in blocked.iter() {
        match merged.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    let inside = |c: usize| -> Option<usize> {
        let i = merged.partition_point(|&(_, e)| e <= c);
        match merged.get(i) {
            Some(&(s, _)) if s < c => Some(s),
            _ => None,
        }
    };
    let mut c = hi;
    loop {
        c = line_start_at_or_below(hay, p, c, line_starts_only)?;
        match inside(c) {
            None => return Some(c),
            Some(s) => c = s,
        }
    }
}

/// The fixed cut of a round without a safe one: the last line start in the
/// block's second half, else the block's end (moved back to a UTF-8 character
/// start when it would split one).
fn forced_cut(hay: &[u8], p: usize, block: usize) -> usize {
    let hi = (p + block).min(hay.len());
    let mid = p + block / 2;
    if let Some(i) = memchr::memrchr(b'\n', &hay[mid..hi]) {
        if mid + i + 1 > p {
            return mid + i + 1;
        }
    }
    let mut c = hi;
    let mut back = 0;
    while back < 3 && c > p + 1 && c < hay.len() && (hay[c] & 0xC0) == 0x80 {
        c -= 1;
        back += 1;
    }
    c
}

/// What the restarts of one window's search have spent (see [`next_start`]).
#[derive(Default)]
struct Restarts {
    /// How many.
    count: usize,
    /// How many bytes of rejected matches they read again.
    bytes: usize,
}

/// The pieces the second look ran a rule on (see `Redactor::second_look`):
/// (rule, start, end) in 12 bytes, as offsets in the block (at most
/// [`MAX_BLOCK`] plus a context); a long secret-dense line has hundreds of
/// thousands.
type Pieces = std::collections::HashSet<(u32, u32, u32)>;

/// The key of rule `r`'s piece `[gs, ge)` in [`Pieces`].
fn piece(r: u32, gs: usize, ge: usize) -> (u32, u32, u32) {
    (r, gs as u32, ge as u32)
}

/// Where a rule's search resumes after a match `[s, e)`. After a rejected
/// match the search resumes just after its start, so that text the rejected
/// match spanned (`KEY: password=X` where `KEY` is not secret) is still seen on
/// its own: a second pass over the output then finds nothing the first missed.
/// The restarts per window are capped to keep odd patterns linear: at most
/// 256, and at most 1 MiB of rejected matches read again. (A long line of
/// `::add-mask:: ::add-mask:: …` is one rejected match from each start to the
/// end of the line's megabyte window: 256 restarts read 256 MB per megabyte,
/// 0.09 MB/s.)
fn next_start(s: usize, e: usize, taken: bool, restarts: &mut Restarts) -> usize {
    const MAX_RESTARTS: usize = 256;
    const MAX_RESTART_BYTES: usize = 1 << 20;
    if !taken
        && e > s + 1
        && restarts.count < MAX_RESTARTS
        && restarts.bytes + (e - s) <= MAX_RESTART_BYTES
    {
        restarts.count += 1;
        restarts.bytes += e - s;
        s + 1
    } else if e > s {
        e
    } else {
        e + 1
    }
}

/// Sorts candidates and merges overlapping ones; the merged span takes the id
/// of its highest-priority (lowest number) candidate.
fn resolve(mut cands: Vec<Cand>) -> Vec<Span> {
    cands.retain(|c| c.e > c.s);
    // The source breaks ties: the id of a merged span does not depend on the
    // order in which the candidates were found.
    cands.sort_unstable_by(|a, b| {
        a.s.cmp(&b.s)
            .then(b.e.cmp(&a.e))
            .then(a.prio.cmp(&b.prio))
            .then(a.src.cmp(&b.src))
    });
    let mut out: Vec<Span> = Vec::with_capacity(cands.len());
    for c in cands {
        match out.last_mut() {
            Some(last) if c.s < last.e => {
                last.e = last.e.max(c.e);
                if c.prio < last.prio {
                    last.prio = c.prio;
                    last.src = c.src;
                }
            }
            _ => out.push(Span {
                s: c.s,
                e: c.e,
                src: c.src,
                prio: c.prio,
            }),
        }
    }
    out
}

/// Widens spans to character boundaries (and re-merges) for `&str` output.
fn snap_to_chars(text: &str, spans: Vec<Span>) -> Vec<Span> {
    if spans.is_empty() {
        return spans;
    }
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for mut sp in spans {
        while !text.is_char_boundary(sp.s) {
            sp.s -= 1;
        }
        while !text.is_char_boundary(sp.e) {
            sp.e += 1;
        }
        match out.last_mut() {
            Some(last) if sp.s < last.e => {
                last.e = last.e.max(sp.e);
                if sp.prio < last.prio {
                    last.prio = sp.prio;
                    last.src = sp.src;
                }
            }
            _ => out.push(sp),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in keywords fit the scanner's narrow table (at most 2^18
    /// entries with quartered ids: states times the row's stride; the
    /// halved layout holds 2^17 and is full at stop 49): past it every byte of
    /// every input is scanned through the wide one, ~30 % more instructions.
    /// A guard's word is looked up among its own words only: a window
    /// full of `value` words still finds the one `</` in it, and none
    /// outside it.
    #[test]
    fn guard_words_are_found_by_guard() {
        use checks::Guard;
        let mut words = GuardWords::default();
        for i in 0..10_000 {
            words.push(Guard::ValueNearby, i * 10, 5);
            if i == 5_000 {
                words.push(Guard::Closing, i * 10 + 6, 2);
            }
        }
        words.push(Guard::DotSix, 3, 1);
        assert!(words.any(Guard::Closing) && !words.any(Guard::JsonName));
        assert!(!words.any(Guard::DotSix));
        assert!(has_word(&words, Guard::Closing, 0, 100_000));
        assert!(has_word(&words, Guard::Closing, 50_006, 50_008));
        assert!(!has_word(&words, Guard::Closing, 50_006, 50_007));
        assert!(!has_word(&words, Guard::Closing, 50_007, 100_000));
        assert!(!has_word(&words, Guard::JsonName, 0, 100_000));
        assert!(has_word(&words, Guard::ValueNearby, 99_990, 99_995));
        assert!(!has_word(&words, Guard::ValueNearby, 99_991, 100_000));
        words.clear();
        assert!(!words.any(Guard::ValueNearby));
    }

    #[test]
    fn guard_word_slots_follow_the_line_words() {
        for (i, &(g, _)) in checks::LINE_WORDS.iter().enumerate() {
            assert_eq!(GuardWords::slot(g), Some(i), "{g:?}");
        }
        assert_eq!(GuardWords::slot(checks::Guard::DotSix), None);
    }

    /// A keyword-dense line (no line break, a hit every few bytes) blocks
    /// its cuts with one merged interval, not one per hit, and its hits take
    /// 12 bytes each: the round's memory (`toolexec redact` holds one round
    /// per thread) was 36 MB of heap for `token token …`, then 20 MB (hits
    /// of 16 bytes), now less (12).
    #[test]
    fn a_keyword_dense_line_blocks_one_interval_and_small_hits() {
        assert_eq!(std::mem::size_of::<Hit>(), 12);
        let r = Redactor::builder().env_values(false).build().unwrap();
        for unit in ["token ", "key=value ", "password=hunter2 "] {
            let hay = unit.repeat(20_000);
            let mut scratch = Scratch::default();
            let mut blocked = Vec::new();
            r.block_spans(hay.as_bytes(), Some(&mut blocked), &mut scratch);
            assert!(
                scratch.hits.len() >= 20_000,
                "{unit:?}: {} hits",
                scratch.hits.len()
            );
            assert!(blocked.len() <= 4, "{unit:?}: {} intervals", blocked.len());
            // The one interval spans the line (every cut inside it is unsafe).
            assert!(blocked
                .iter()
                .any(|&(s, e)| s == 0 && e >= hay.len() - unit.len()));
        }
    }

    /// A rule added with long keywords fails here; shorter keywords (the
    /// regex checks the rest) bring it back.
    #[test]
    fn builtin_keywords_fit_the_narrow_scanner_table() {
        assert!(Redactor::builtin().inner.scanner.is_narrow());
    }

    #[test]
    fn markers_are_found() {
        let m = find_markers(b"a [REDACTED:github-token] b [REDACTED:] [REDACTED:X]");
        assert_eq!(m, vec![(2, 25)]);
        assert!(touches_marker(&m, 25, 30));
        assert!(touches_marker(&m, 0, 2));
        assert!(!touches_marker(&m, 26, 30));
        assert!(inside_marker(&m, 10, 15));
    }

    #[test]
    fn a_reused_line_window_is_the_one_line_window_finds() {
        // Short and long lines (longer than `MAX_SIDE` either side of a hit),
        // and text that does not end with a line break.
        let mut text = b"ab\nkey=1 token\n\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_SIDE + 300));
        text.extend(b" key ");
        text.extend(std::iter::repeat_n(b'y', MAX_SIDE + 300));
        text.extend(b"\n");
        for n in [3000, 5000] {
            text.extend(std::iter::repeat_n(b'z', n / 2));
            text.extend(b" pass ");
            text.extend(std::iter::repeat_n(b'z', n / 2));
            text.extend(b"\n");
        }
        text.extend(b"last key");
        let hay = &text[..];
        let mut reused = 0;
        for hs in (0..hay.len()).step_by(37) {
            for len in [1, 3] {
                let he = (hs + len).min(hay.len());
                if hay[hs..he].contains(&b'\n') {
                    continue;
                }
                let prev = line_window(hay, hs, he);
                for hs2 in (prev.0..prev.1).step_by(29) {
                    let he2 = (hs2 + 2).min(prev.1);
                    if same_line_window(hay, prev, hs2, he2) {
                        reused += 1;
                        assert_eq!(line_window(hay, hs2, he2), prev, "{hs}..{he} then {hs2}");
                    }
                }
            }
        }
        assert!(reused > 5000, "{reused}");
    }

    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "ghp_",
                "sk-",
                "sk-proj-",
                "secret_",
                "ntn_",
                "basic ",
                "Basic ",
                "xoxb-",
                "glpat-",
                "AKIA",
                "hf_",
                "npm_",
                "eyJ",
                "vault",
                "token=",
                "key_id=",
                "password=",
                "\"api_key\": \"",
                " ",
                "\n",
                "-",
                "_",
                ".",
                "=",
                "\"",
            ])
            .prop_map(str::to_string),
            "[A-Za-z0-9]{1,48}",
        ]
    }

    /// The built-in redactor, and the same with every rule searching its windows.
    fn both_ways() -> &'static (Redactor, Redactor) {
        static BOTH: OnceLock<(Redactor, Redactor)> = OnceLock::new();
        BOTH.get_or_init(|| {
            (
                Redactor::builder().env_values(false).build().unwrap(),
                Redactor::builder()
                    .env_values(false)
                    .unanchored()
                    .build()
                    .unwrap(),
            )
        })
    }

    proptest! {
        /// Running prefixed rules anchored at their keyword hits finds exactly
        /// what searching their windows finds.
        #[test]
        fn anchored_rules_find_what_the_window_search_finds(
            parts in prop::collection::vec(piece(), 0..60),
        ) {
            let text = parts.concat();
            let (anchored, searched) = both_ways();
            prop_assert_eq!(anchored.find(&text), searched.find(&text));
        }
    }

    proptest! {
        /// Many starts of a rule that reads far in one window (a long line of
        /// command-line keywords) are searched for: the same spans and ids
        /// as running the rule anchored at each of them.
        #[test]
        fn many_starts_of_a_far_reading_rule_find_what_each_start_finds(
            parts in prop::collection::vec((command_piece(), 1usize..24), 0..12),
        ) {
            let (searched, anchored) = searched_and_anchored();
            let text: String = parts.iter().map(|(p, n)| p.repeat(*n)).collect();
            prop_assert_eq!(searched.find(&text), anchored.find(&text));
            prop_assert_eq!(searched.redact(&text), anchored.redact(&text));
        }
    }

    /// The built-in redactor, and the same with prefixed rules anchored at
    /// every start, however many.
    fn searched_and_anchored() -> &'static (Redactor, Redactor) {
        static BOTH: OnceLock<(Redactor, Redactor)> = OnceLock::new();
        BOTH.get_or_init(|| {
            let b = || Redactor::builder().env_values(false);
            (
                b().build().unwrap(),
                b().every_start_anchored().build().unwrap(),
            )
        })
    }

    /// A long line of one command's name (each start of its rule reading the
    /// rest of the line for its flag) is searched once per window, and
    /// finds the secret at its end as each start does.
    #[test]
    fn a_long_line_of_command_names_is_searched_once() {
        let (searched, anchored) = searched_and_anchored();
        for name in ["lftp", "nmcli", "sshpass", "::add-mask::"] {
            let text = format!(
                "{} lftp -u bob,Sup3rS3cretPw9 done",
                format!("{name} ").repeat(2000)
            );
            SEARCHED.with(|n| n.set(0));
            let out = searched.redact(&text);
            assert!(SEARCHED.with(|n| n.get()) > 0, "{name}");
            assert!(!out.contains("Sup3rS3cretPw9"), "{name}");
            assert_eq!(out, anchored.redact(&text), "{name}");
        }
    }

    /// Pieces of command lines whose rules read far (`lftp … -u user,v`),
    /// repeated on one line or on many, continued over lines or not.
    fn command_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => prop::sample::select(vec![
                "lftp ", "nmcli ", "sshpass ", "psexec ", "mysql ", "::add-mask::", "ldap",
                "-u ", "-p ", "-P ", "--password ", "password ", "/pass:", "user,", "a,",
                " ", "\n", "\"", "'", ";", "|", "&", "x", "AKIA", "aws ", "docker login ",
                "redis-cli ", " \\\n", " ^\n", " `\r\n", "\\",
            ])
            .prop_map(str::to_string),
            1 => "[A-Za-z0-9+/_-]{1,44}",
        ]
    }

    /// The committed seed of the property above (redactor.txt): an `sk-`
    /// keyword followed by a token-shaped run.
    #[test]
    fn seed_anchored_sk_prefix_then_token_run() {
        let text = ["sk-", "AAAaaaaAAAaa0A00aaAAaaaB112bch3d"].concat();
        let (anchored, searched) = both_ways();
        assert_eq!(anchored.find(&text), searched.find(&text));
    }

    #[test]
    fn anchored_and_searched_agree_on_vendor_tokens() {
        let text = "a ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 b secret_name=x \
                    ntn_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ c sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH";
        let (anchored, searched) = both_ways();
        let found = anchored.find(text);
        assert!(found.len() >= 3, "{found:?}");
        assert_eq!(found, searched.find(text));
    }

    #[test]
    fn the_line_finder_finds_what_line_window_finds() {
        // Short lines, lines longer than `MAX_SIDE` either side, long runs
        // without `\n`; hits in order of their start (as the scan gives them).
        let mut text = Vec::new();
        let mut x = 7u32;
        while text.len() < 200_000 {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            let n = match (x >> 16) % 4 {
                0 => 3,
                1 => 90,
                2 => 5000,
                _ => 20_000,
            };
            text.extend(std::iter::repeat_n(b'a', n));
            text.push(b'\n');
        }
        let hay = &text[..];
        for mut f in [LineFinder::default(), LineFinder::indexed(hay)] {
            let mut hs = 0;
            let (mut checked, mut ends) = (0, 0);
            while hs + 4 < hay.len() {
                x = x.wrapping_mul(1103515245).wrapping_add(12345);
                let he = hs + 1 + (x >> 16) as usize % 3;
                if !hay[hs..he].contains(&b'\n') {
                    // Asked before the window, as the hit loop asks for covered hits.
                    if x & 1 == 1 {
                        let limit = hs + (x >> 8) as usize % 300;
                        let end = memchr::memchr(b'\n', &hay[he..]).map_or(hay.len(), |i| he + i);
                        assert_eq!(
                            f.ends_by(hay, he, limit),
                            end <= limit,
                            "{hs}..{he} by {limit}"
                        );
                        ends += 1;
                    }
                    assert_eq!(
                        f.window(hay, hs, he),
                        line_window(hay, hs, he),
                        "{hs}..{he}"
                    );
                    checked += 1;
                }
                hs += (x >> 20) as usize % 700;
            }
            assert!(checked > 500 && ends > 200, "{checked} {ends}");
        }
    }

    proptest! {
        /// `ends_by` answers whether the first `\n` at or after the hit's end
        /// (or the text's end) comes by the limit, asked once or more before
        /// a window, and leaves the windows as `line_window` gives them.
        #[test]
        fn ends_by_is_the_first_line_break_by_the_limit(
            text in prop::collection::vec(prop_oneof![9 => Just(b'a'), 1 => Just(b'\n')], 1..1500),
            steps in prop::collection::vec(
                (0usize..60, 1usize..4, prop::collection::vec(0usize..300, 0..3)),
                1..80,
            ),
        ) {
            let hay = &text[..];
            for (mut f, steps) in [(LineFinder::default(), steps.clone()), (LineFinder::indexed(hay), steps)] {
            let mut hs = 0;
            for (gap, len, reaches) in steps {
                hs += gap;
                let he = hs + len;
                if he > hay.len() {
                    break;
                }
                if hay[hs..he].contains(&b'\n') {
                    continue;
                }
                let end = memchr::memchr(b'\n', &hay[he..]).map_or(hay.len(), |i| he + i);
                for reach in reaches {
                    let limit = hs + reach;
                    prop_assert_eq!(f.ends_by(hay, he, limit), end <= limit, "{}..{} by {}", hs, he, limit);
                }
                prop_assert_eq!(f.window(hay, hs, he), line_window(hay, hs, he));
            }
            }
        }
    }

    /// Keyword-dense text in the shapes the guards look for: names around
    /// keywords, quotes, operators, separators, line starts, line words.
    fn dense_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => prop::sample::select(vec![
                "token", "key", "secret", "password", "passwd", "pass", "pwd", "_pw", "auth",
                "cred", "tok", "api_key", "token_count", "key_id", "secret_name", "secret_",
                "client_secret_basic", "sk-", "basic ", "vault", "authorization", "cookie",
                "://", "@", "value", "\"value\"", "\"name\"", "\"key\"", "</", "<", ">",
                "=", ":", ": ", "::", ":=", "=>", "?=", ".=", "+=", "||", " || ", "??", "?:",
                " or ", "\"", "'", "`", "\\\"", "%22", "|", " | ", "\t", "  ", " ", "\n",
                "\n  ", "-", "--", "ENV ", "ARG ", "${", ":-", "}", "(", ")", ",", "[", "]",
                "{", "var ", "const ", "&str", "String", "=\"", "\":\"", "\": \"", ": |",
                ".", "/", "[REDACTED:generic-secret]", "  - name: ", "value: ", "x",
            ])
            .prop_map(str::to_string),
            1 => "[A-Za-z0-9_]{1,24}",
            1 => "[A-Za-z0-9+/=._-]{16,48}",
        ]
    }

    /// The built-in redactor, and the same with no hit dismissed before its guard groups.
    fn quick_and_full(block: usize) -> (Redactor, Redactor) {
        (
            Redactor::builder()
                .env_values(false)
                .block_size(block)
                .build()
                .unwrap(),
            Redactor::builder()
                .env_values(false)
                .block_size(block)
                .full_path()
                .build()
                .unwrap(),
        )
    }

    use crate::rule::corpus;

    /// The records of the labelled corpus (secrets of every family in every
    /// context, clean look-alikes), as pieces of keyword-dense text.
    fn corpus_texts() -> &'static [String] {
        static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
        TEXTS.get_or_init(|| {
            let mut v: Vec<String> = corpus::secret_records(0x5EC2E7, 1)
                .into_iter()
                .map(|r| r.text)
                .collect();
            v.extend(
                corpus::clean_records(0xC1EA7, 300)
                    .into_iter()
                    .map(|r| r.text),
            );
            v.extend(corpus::hard_clean_records().into_iter().map(|r| r.text));
            v
        })
    }

    /// Quick and full redactors with the default round and with small rounds.
    fn quick_and_full_at(i: usize) -> &'static (Redactor, Redactor) {
        static BOTH: OnceLock<Vec<(Redactor, Redactor)>> = OnceLock::new();
        &BOTH.get_or_init(|| {
            [DEFAULT_BLOCK, 1024, 1531, 2048]
                .into_iter()
                .map(quick_and_full)
                .collect()
        })[i]
    }

    /// The corpus on one line (every window a long line's: covered hits are
    /// skipped whatever the line's length, see `covering`) comes out the
    /// same with and without the dismissal.
    #[test]
    fn the_corpus_on_one_line_is_judged_alike_with_and_without_dismissal() {
        let line = corpus_texts()
            .iter()
            .map(|t| t.replace(['\n', '\r'], " "))
            .collect::<Vec<_>>()
            .join(", ");
        let (quick, full) = quick_and_full_at(0);
        let out = quick.redact(&line);
        assert_ne!(out, line);
        assert_eq!(out, full.redact(&line));
    }

    proptest! {
        /// `tok` inside `token` on a long line, with a type annotation and
        /// an `=` and a literal near where the two hits' reaches end (256
        /// bytes past the hit for guards, 4 KiB for windows): the same
        /// output with and without the dismissal, which skips the `tok` hit.
        #[test]
        fn covered_hits_on_long_lines_are_judged_alike_with_and_without_dismissal(
            before in 0usize..64,
            word in "[a-z_]{0,8}",
            colon in prop::sample::select(vec![":", "?:", " ", "::", ""]),
            gap in prop::sample::select(vec![0usize, 200, 245, 248, 249, 250, 251, 252, 253, 254, 300, 4080, 4085, 4086, 4087, 4088, 4089, 4090, 4200]),
            fill in prop::sample::select(vec!["x", " ", "a_", "=", ";"]),
            kw in prop::sample::select(vec!["token", "TOKEN", "Token", "tok", "tokens"]),
            tail in prop::sample::select(vec![" = \"Zx9kQ2mN7vB4tR8wY1pL6sD3fG5hJ0aK\";", "=\"Zx9kQ2mN7vB4tR8w\"", " = 'v'", ""]),
        ) {
            let pad: String = fill.repeat(gap / fill.len() + 1).chars().take(gap).collect();
            let text = format!(
                "{}const {kw}{word}{colon} &str{pad}{tail} {}",
                "q ".repeat(before),
                "z".repeat(5000),
            );
            let (quick, full) = quick_and_full_at(0);
            prop_assert_eq!(quick.redact(&text), full.redact(&text));
        }
    }

    proptest! {
        /// Vendor prefixes on a long line, where every hit has a window of
        /// its own (not the line): a hit at which none of its target's
        /// anchored rules can start (`secret_name`, `sk-...`, `secret_` and
        /// a short run) is dismissed as on a whole line, and the output is
        /// the one without dismissal, redacting it again changes nothing.
        #[test]
        fn anchored_hits_on_long_lines_are_judged_alike_with_and_without_dismissal(
            pad in 0usize..9000,
            parts in prop::collection::vec(
                prop_oneof![
                    prop::sample::select(vec![
                        "secret_", "secret_name=db ", "ntn_", "sk-", "sk-...ab ", "basic ",
                        "client_secret_basic ", " ", "=", "_", "\"", "token=", "SECRET_",
                    ])
                    .prop_map(str::to_string),
                    "[A-Za-z0-9]{1,50}",
                    "(?:secret|ntn)_[A-Za-z0-9]{43,46}",
                    "sk-[A-Za-z0-9]{32,40}",
                ],
                0..40,
            ),
        ) {
            let text = format!("{}{}{}", "z ".repeat(pad / 2), parts.concat(), " q".repeat(2500));
            let (quick, full) = quick_and_full_at(0);
            let out = quick.redact(&text);
            prop_assert_eq!(&out, &full.redact(&text));
            let again = quick.redact(&out);
            prop_assert_eq!(&*again, &*out);
        }
    }

    /// Every record of the corpus, alone and all of them in one text cut into
    /// small rounds, comes out the same with and without the dismissal.
    #[test]
    fn the_corpus_is_judged_alike_with_and_without_dismissal() {
        let (quick, full) = quick_and_full_at(0);
        let mut masked = 0;
        for t in corpus_texts() {
            let out = quick.redact(t);
            masked += usize::from(out != *t);
            assert_eq!(out, full.redact(t), "{t:?}");
        }
        assert!(masked > 500, "{masked}");
        // Small rounds each look at the widest window's reach (~80 KiB) past
        // their block: a part of the corpus keeps this quick.
        let all = corpus_texts()[..300].join("\n");
        assert!(all.len() > 20_000, "{}", all.len());
        for i in 1..4 {
            let (quick, full) = quick_and_full_at(i);
            assert_eq!(quick.redact(&all), full.redact(&all), "rounds {i}");
        }
    }

    /// For every built-in pattern and every set of context shapes, the
    /// guards the table leaves to evaluate are those `may_pass` lets through.
    #[test]
    fn the_shape_table_leaves_the_guards_may_pass_lets_through() {
        let r = Redactor::builder().env_values(false).build().unwrap();
        let mut tables = 0;
        for t in &r.inner.targets {
            let Some(q) = &t.quick else { continue };
            if q.by_shape.is_none() {
                assert!(q.name_guards.len() > 32);
                continue;
            }
            tables += 1;
            for feat in 0..(1u16 << 13) {
                let want = q
                    .name_guards
                    .iter()
                    .enumerate()
                    .filter(|&(_, &g)| {
                        let sh = checks::guard_shapes(g);
                        sh == u16::MAX || feat & sh != 0
                    })
                    .fold(0u32, |m, (k, _)| m | 1 << k);
                assert_eq!(
                    q.candidates(feat),
                    Some(want),
                    "{:?} {feat:#x}",
                    q.name_guards
                );
            }
        }
        assert!(tables > 20, "{tables}");
    }

    /// Hits whose guards read only the hit (`://` and `@` after it, a
    /// Twilio `AC` + 32 hex, base64 before `==`) are judged without a hit
    /// context: the same spans as through their guard groups, masked or not.
    #[test]
    fn hits_judged_without_context_give_the_full_paths_spans() {
        let (quick, full) = quick_and_full_at(0);
        let b64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw".repeat(2);
        let texts = [
            "db = postgres://admin:Zq8vR2mX7pL4wK9t@db.example.com:5432/app".to_string(),
            "see https://docs.example.com/auth and ftp://mirror.example.org/pub".to_string(),
            "{\"url\":\"https://user:hunter2hunter2@host\",\"next\":\"https://x.example\"}"
                .to_string(),
            "sid ACa1b2c3d4e5f60718293a4b5c6d7e8f90 acme ace accent".to_string(),
            format!("blob: {b64}== and x == y"),
        ];
        let mut masked = 0;
        for t in &texts {
            let out = quick.redact(t);
            masked += usize::from(out != *t);
            assert_eq!(out, full.redact(t), "{t:?}");
        }
        assert!(masked >= 2, "{masked}");
    }

    proptest! {
        /// Hits sorted by start are those the standard sort gives: in the
        /// scanner's order (by end), and in any order (past the budget of
        /// moves, reversed runs).
        #[test]
        fn hits_sorted_by_start_are_the_standard_sort(
            spans in prop::collection::btree_set((0usize..400, 1usize..12), 0..300),
            shuffle in any::<u64>(),
        ) {
            let hits: Vec<Hit> = spans
                .iter()
                .enumerate()
                .map(|(k, &(s, n))| Hit::new(s, n as u32, k as u32))
                .collect();
            let mut want = hits.clone();
            want.sort_unstable_by_key(|h| (h.start(), h.end()));
            let mut by_end = hits.clone();
            by_end.sort_by_key(|h| (h.end(), h.start()));
            sort_by_start(&mut by_end);
            prop_assert_eq!(&by_end, &want);
            let mut rev = want.clone();
            rev.reverse();
            sort_by_start(&mut rev);
            prop_assert_eq!(&rev, &want);
            let mut mixed = hits;
            let mut x = shuffle | 1;
            for i in (1..mixed.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                mixed.swap(i, (x % (i as u64 + 1)) as usize);
            }
            sort_by_start(&mut mixed);
            prop_assert_eq!(&mixed, &want);
        }
    }

    /// Corpus records and keyword-dense pieces in any order.
    fn mixed_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => dense_piece(),
            1 => (0..corpus_texts().len()).prop_map(|i| corpus_texts()[i].clone()),
        ]
    }

    proptest! {
        /// Dismissing the hits at which no rule can run changes nothing: the
        /// same spans as running every hit through its guard groups, in one
        /// round and in many small ones (cuts between the rounds).
        #[test]
        fn dismissing_hits_changes_nothing(
            parts in prop::collection::vec(mixed_piece(), 0..60),
            small in 1..4usize,
        ) {
            let text = parts.concat();
            let (quick, full) = quick_and_full_at(0);
            prop_assert_eq!(quick.find(&text), full.find(&text));
            let (quick, full) = quick_and_full_at(small);
            prop_assert_eq!(quick.redact(&text), full.redact(&text));
        }
    }

    /// The built-in redactor, and the same building the context of every
    /// hit its dismissal looks at (no pre-test of `checks::HitCtx::renew_shaped`).
    fn pretest_and_full_shapes() -> &'static (Redactor, Redactor) {
        static BOTH: OnceLock<(Redactor, Redactor)> = OnceLock::new();
        BOTH.get_or_init(|| {
            (
                Redactor::builder().env_values(false).build().unwrap(),
                Redactor::builder()
                    .env_values(false)
                    .full_shapes()
                    .build()
                    .unwrap(),
            )
        })
    }

    /// Keyword words in prose and log lines around assignments and the
    /// other shapes: most of their hits have no shape.
    fn prose_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => dense_piece(),
            2 => prop::sample::select(vec![
                "auth.keys rotated ", "the token was ", " owner=", " or ", "or ", " o",
                "prod/db/password ", "key_", "token_count=12 ", "secret_name=a/b ",
                " version ", "vault.sync ", "api.usage ", "\tvalue ", "  ", " -", "<",
                "${", "var ", "ENV ", "\n", "\nARG ",
            ])
            .prop_map(str::to_string),
        ]
    }

    proptest! {
        /// Telling hits without shapes from the bytes after their names
        /// changes nothing: the same spans as building each one's context.
        #[test]
        fn hits_told_to_have_no_shape_change_nothing(
            parts in prop::collection::vec(prose_piece(), 0..60),
        ) {
            let text = parts.concat();
            let (pre, full) = pretest_and_full_shapes();
            prop_assert_eq!(pre.find(&text), full.find(&text));
        }
    }

    /// The corpus comes out the same with and without the shape pre-test.
    #[test]
    fn the_corpus_is_judged_alike_with_and_without_the_shape_pretest() {
        let (pre, full) = pretest_and_full_shapes();
        for t in corpus_texts() {
            assert_eq!(pre.redact(t), full.redact(t), "{t:?}");
        }
    }

    /// The built-in redactor, and the same judging the name guards of
    /// every hit anew (no verdict memo).
    fn memo_and_not() -> &'static (Redactor, Redactor) {
        static BOTH: OnceLock<(Redactor, Redactor)> = OnceLock::new();
        BOTH.get_or_init(|| {
            (
                Redactor::builder().env_values(false).build().unwrap(),
                Redactor::builder()
                    .env_values(false)
                    .no_verdict_memo()
                    .build()
                    .unwrap(),
            )
        })
    }

    /// A field as JSON, logs, configs and code write them: what opens the
    /// name, a name with keywords in it, what follows the name.
    fn memo_field() -> impl Strategy<Value = (String, String, String)> {
        let open = prop::sample::select(vec![
            "\"", "", "'", "\\\"", "%22", "<", "${", "--", "-", "(\"", "( '", "var ", "const ",
            "  ", "| ", "- \"", "{\"", " ", "$", "@", ".", "[\"",
        ]);
        let name = prop::sample::select(vec![
            "prompt_tokens",
            "max_tokens",
            "token_count",
            "key_id",
            "key_name",
            "secret_name",
            "api_key",
            "auth_token",
            "password",
            "passwd",
            "token",
            "secret",
            "client_secret",
            "tok",
            "DB_PASSWORD",
            "apiKey",
            "token_endpoint",
            "key",
            "next_page_token",
            "x.key",
            "key-id",
            "pwd",
            "secret_key_base",
            "Token",
            "PASS",
            "token_endpoint_auth_methods",
        ]);
        let close = prop::sample::select(vec![
            "\":",
            "\": ",
            "=",
            ": ",
            ":",
            " = ",
            "\"=",
            "\\\":",
            "%22:",
            "%22%3A",
            ">",
            " a=1>",
            ":-",
            "  ",
            "\t",
            " || ",
            " ?? ",
            "\") or ",
            "\", ",
            " string = ",
            ": &str = ",
            " | ",
            " ",
            "\":{",
            ": |",
            "::",
            ":=",
            "=>",
            ".",
            "-",
            "\"]",
            "\")",
            " or ",
            "\" or ",
            "?:",
            "\"\t",
            "\"  ",
            ":\t",
            "=\r",
            "%33",
            "%33:",
            " xy ",
        ]);
        (open, name, close).prop_map(|(o, n, c)| (o.to_string(), n.to_string(), c.to_string()))
    }

    /// A value after a field: numbers, strings, ids, objects, operators.
    fn memo_value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[0-9]{1,5}",
            "\"[a-z0-9_]{0,12}\"",
            "'[A-Za-z0-9]{0,10}'",
            "[a-z]{1,3}_[0-9a-f]{10}",
            "\"[a-z]{1,3}_[0-9a-f]{10}\"",
            "[A-Za-z0-9+/]{16,40}",
            "\"[A-Za-z0-9+/]{16,40}\"",
            prop::sample::select(vec![
                "null",
                "{",
                "{\"value\": \"x\"}",
                "[\"a\"]",
                "\"\"",
                "or x",
                "%22ab%22",
                "\\\"abcdef\\\"",
                "|",
                ">",
                "",
                " ",
                "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                "'v' = 1",
                "\"v\" = \"hunter2-prod\"",
                "= \"s3cr3t-value\"",
                "</password>",
                "x\\",
                "\\",
                "o",
                "or",
                "%",
                "ab x",
                "or 'v'",
                "xy 'v'",
                "%33ab%33",
                "%2x",
                "OR 'v'",
                // Words that are no values, and values of their shapes.
                "missing",
                "Hk3jL8p",
                "UNDEFINED",
                "[REDACTED]",
                "[Kx7mN2pQ]",
                "default,x",
                "Bearer x=1",
                "bearer abc",
            ])
            .prop_map(str::to_string),
        ]
    }

    proptest! {
        /// Remembering name-guard verdicts by their keys changes nothing: on
        /// lines that repeat a few fields with other values (most hits are
        /// told by the memo, and `check_known` judges each again), the same
        /// spans as judging every hit anew.
        #[test]
        fn remembered_verdicts_change_nothing(
            fields in prop::collection::vec(memo_field(), 1..6),
            lines in prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "{", "", "  ", "2024-05-11T04:25:41.049Z INFO api.usage ", "ENV ",
                        "- ", "var ", "\t", "ARG ", "  -  ", "foo(", "x ",
                    ]),
                    prop::collection::vec((any::<prop::sample::Index>(), memo_value()), 1..5),
                    prop::sample::select(vec![",", " ", ", ", "", "\t", ";", "&", " | "]),
                ),
                1..40,
            ),
        ) {
            let mut text = String::new();
            for (lead, parts, sep) in &lines {
                text.push_str(lead);
                for (k, (i, v)) in parts.iter().enumerate() {
                    if k > 0 {
                        text.push_str(sep);
                    }
                    let (o, n, c) = i.get(&fields);
                    text.push_str(o);
                    text.push_str(n);
                    text.push_str(c);
                    text.push_str(v);
                }
                text.push('\n');
            }
            let (memo, fresh) = memo_and_not();
            prop_assert_eq!(memo.find(&text), fresh.find(&text));
        }
    }

    /// The corpus comes out the same with and without the verdict memo,
    /// record by record and all records in one text (where the memo tells
    /// most of their hits).
    #[test]
    fn the_corpus_is_judged_alike_with_and_without_the_verdict_memo() {
        let (memo, fresh) = memo_and_not();
        for t in corpus_texts() {
            assert_eq!(memo.redact(t), fresh.redact(t), "{t:?}");
        }
        let all = corpus_texts().join("\n");
        let before = KNOWN.with(|k| k.get());
        assert_eq!(memo.redact(&all), fresh.redact(&all));
        let told = KNOWN.with(|k| k.get()) - before;
        assert!(told > 200, "the memo told {told} hits");
    }

    /// Where the guards read letters or digits after a name as themselves
    /// (a fallback `or ` after a Go declaration's name, `%22` of URL-encoded
    /// JSON), hits are not memoized: each line below has the key of the
    /// one before it (letters and digits read as `a`), and its hit passes
    /// a guard that the one before fails.
    #[test]
    fn letters_the_guards_read_keep_hits_out_of_the_memo() {
        let (memo, fresh) = memo_and_not();
        for (fails, passes) in [
            ("var token ab 'v'", "var token or 'v'"),
            ("var token %33x%33", "var token %22x%22"),
        ] {
            let text = format!("{fails}\n{fails}\n{passes}\n{passes}\n");
            assert_eq!(memo.find(&text), fresh.find(&text), "{text:?}");
        }
    }

    /// A JSON field repeated with other values is told by the memo after
    /// its first hit, and the memo changes nothing where a line's shape
    /// changes what the guards see (a value that opens an object, a
    /// quoted value, an assignment of a real secret).
    #[test]
    fn repeated_json_fields_are_told_by_the_memo() {
        let (memo, fresh) = memo_and_not();
        let mut text = String::new();
        for i in 0..200 {
            text.push_str(&format!(
                "{{\"id\":\"req_{i:010x}\",\"usage\":{{\"prompt_tokens\":{i},\"total_tokens\":{}}},\"key_id\":\"key_{:010x}\"}}\n",
                i * 7,
                i * 7919
            ));
        }
        text.push_str(
            "{\"prompt_tokens\":{\"value\": \"x\"}, \"auth_token\":\"hunter2-prod-db-77\"}\n",
        );
        text.push_str("{\"prompt_tokens\":\"s3cr3t-Value-9911\"}\n");
        let before = KNOWN.with(|k| k.get());
        assert_eq!(memo.redact(&text), fresh.redact(&text));
        assert!(KNOWN.with(|k| k.get()) - before > 400);
        assert_eq!(memo.find(&text), fresh.find(&text));
    }

    thread_local! {
        /// Hits told by the verdict memo on this thread (see `check_known`).
        pub(super) static KNOWN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Every hit the verdict memo tells (`checks::Renewed::Known`) is judged
    /// again the slow way, in every test: its context built anew and each
    /// name guard of its target evaluated; none may pass.
    pub(super) fn check_known(q: &Quick, hay: &[u8], h: &Hit, (ls, le): (usize, usize)) {
        KNOWN.with(|k| k.set(k.get() + 1));
        let c = checks::HitCtx::new(hay, h.start(), h.end(), ls, le);
        let mut names = checks::NameMemo::default();
        for &g in &q.name_guards {
            assert!(
                !(c.may_pass(g) && checks::guard_ok_at(g, hay, &c, le, &mut names)),
                "the verdict memo dismissed a hit whose {g:?} passes: {:?} in {:?}",
                String::from_utf8_lossy(&hay[h.start()..h.end()]),
                String::from_utf8_lossy(&hay[ls..le]),
            );
        }
    }

    thread_local! {
        /// Checks put off on this thread (see `Redactor::accept`).
        pub(super) static PUT_OFF: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// Windows of put-off checks whose second look counted (a check rejected).
        pub(super) static SIDE_KEPT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// Windows whose keyword starts were grouped by rule (see `Redactor::run_window`).
        pub(super) static GROUPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// Rules searched for instead of run at their many starts (see `Redactor::run_window`).
        pub(super) static SEARCHED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Starts of rounds guessed after a forced cut (`Redactor::guess_next`), on any thread.
    pub(super) static FORCED_GUESSES: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);
    /// Mispredicted rounds dropped by `Redactor::pipelined_rounds`.
    pub(super) static DROPPED: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);

    /// The built-in redactor at round size `block`, and the same running
    /// every check at once, restarting every search one byte after a match
    /// and reading every group with a capture engine (the slow path of all
    /// three shortcuts).
    fn put_off_and_at_once(block: usize) -> (Redactor, Redactor) {
        (
            Redactor::builder()
                .env_values(false)
                .block_size(block)
                .build()
                .unwrap(),
            Redactor::builder()
                .env_values(false)
                .block_size(block)
                .checks_at_once()
                .no_resume()
                .capture_engines()
                .build()
                .unwrap(),
        )
    }

    fn put_off_and_at_once_at(i: usize) -> &'static (Redactor, Redactor) {
        static BOTH: OnceLock<Vec<(Redactor, Redactor)>> = OnceLock::new();
        &BOTH.get_or_init(|| {
            [DEFAULT_BLOCK, 1024, 1531]
                .into_iter()
                .map(put_off_and_at_once)
                .collect()
        })[i]
    }

    /// A vendor token, random past its prefix, of a few families the
    /// generic rules also see when they are assigned (`NAME=token`).
    fn vendor_token() -> impl Strategy<Value = String> {
        prop_oneof![
            "ghp_[A-Za-z0-9]{36}",
            "AKIA[A-Z0-9]{16}",
            "xoxb-[0-9]{11}-[0-9]{12}-[A-Za-z0-9]{24}",
            "sk_live_[A-Za-z0-9]{24}",
            "glpat-[A-Za-z0-9_-]{20}",
            "hf_[A-Za-z0-9]{34}",
            "npm_[A-Za-z0-9]{36}",
            "sk-proj-[A-Za-z0-9_-]{48}",
            "sk-ant-api03-[A-Za-z0-9_-]{93}AA",
            // Fakes and placeholders the checks reject.
            "ghp_x{36}",
            "sk_live_YOUR_KEY_HERE[a-z]{0,4}",
            "[A-Za-z0-9]{8,30}",
        ]
    }

    /// Secrets as the dense text has them (vendor tokens under secret-looking
    /// names, in quotes, after headers), and the keyword-dense pieces.
    fn secret_piece() -> impl Strategy<Value = String> {
        let name = prop::sample::select(vec![
            "GITHUB_TOKEN=",
            "export API_KEY=",
            "token: ",
            "\"password\": \"",
            "key = '",
            "aws_access_key_id = ",
            "stripe.api_key = \"",
            "Authorization: Bearer ",
            "//registry.npmjs.org/:_authToken=",
            "secret=",
            "pwd:",
            "token_count=",
            "DATABASE_URL=postgres://app:",
            "https://",
            "x=",
            "-p ",
            " ",
            "password=",
        ]);
        let tail = prop::sample::select(vec![
            "",
            "\"",
            "'",
            "\",",
            "@db.internal:5432/prod",
            "@github.com/x",
            " (ok)",
            "\n",
            "=",
            ":",
            " token=",
            ".",
            "[REDACTED:github-token]",
        ]);
        prop_oneof![
            3 => (name, vendor_token(), tail).prop_map(|(n, v, t)| format!("{n}{v}{t}")),
            2 => dense_piece(),
            1 => (0..corpus_texts().len()).prop_map(|i| corpus_texts()[i].clone()),
        ]
    }

    /// The spans and ids of `text` from both redactors of `both`.
    fn masked_both(both: &(Redactor, Redactor), text: &str) -> (Vec<Masked>, Vec<Masked>) {
        (
            both.0.redact_bytes_masked(text.as_bytes()).1,
            both.1.redact_bytes_masked(text.as_bytes()).1,
        )
    }

    /// The cut as a walk down position by position would find it.
    fn largest_safe_by_steps(
        hay: &[u8],
        p: usize,
        hi: usize,
        blocked: &[(usize, usize)],
        line_starts_only: bool,
    ) -> Option<usize> {
        (p + 1..=hi).rev().find(|&c| {
            (!line_starts_only || hay[c - 1] == b'\n')
                && !blocked.iter().any(|&(s, e)| s < c && c < e)
        })
    }

    proptest! {
        /// The cut found by a few passes over the unsorted intervals, and
        /// after them over the sorted and merged ones, is the largest safe
        /// position, on texts with chains of windows longer than the passes.
        #[test]
        fn the_cut_is_the_one_merged_intervals_give(
            lines in prop::collection::vec(0..12usize, 1..40),
            windows in prop::collection::vec((0..400usize, 0..40usize), 0..60),
            p in 0..40usize,
            below in 0..60usize,
            line_starts_only: bool,
        ) {
            let hay: Vec<u8> = lines
                .iter()
                .flat_map(|&n| std::iter::repeat_n(b'a', n).chain([b'\n']))
                .collect();
            let hi = hay.len().saturating_sub(below);
            let p = p.min(hi);
            let blocked: Vec<(usize, usize)> = windows
                .iter()
                .map(|&(s, w)| (s.min(hay.len()), (s + w).min(hay.len())))
                .collect();
            let want = largest_safe_by_steps(&hay, p, hi, &blocked, line_starts_only);
            let got = largest_safe(&hay, p, hi, &mut blocked.clone(), line_starts_only);
            prop_assert_eq!(got, want);
            let merged = largest_safe_merged(&hay, p, hi, &mut blocked.clone(), line_starts_only);
            prop_assert_eq!(merged, want);
            // Added as rounds add them (each into the last where they
            // overlap): the same union, the same cut, no more intervals.
            let mut added = Vec::new();
            for &w in &blocked {
                block(&mut added, w);
            }
            prop_assert!(added.len() <= blocked.len());
            let got = largest_safe(&hay, p, hi, &mut added, line_starts_only);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_chain_of_windows_longer_than_the_passes_is_walked_to_its_start() {
        // Ten windows, each starting inside the one before it: the cut lies
        // below all of them, past the passes over the unsorted intervals.
        let hay = vec![b'a'; 300];
        let mut blocked: Vec<(usize, usize)> =
            (0..10).map(|k| (100 + 10 * k, 115 + 10 * k)).collect();
        blocked.reverse();
        assert_eq!(
            largest_safe(&hay, 0, 250, &mut blocked.clone(), false),
            Some(250)
        );
        assert_eq!(
            largest_safe(&hay, 0, 205, &mut blocked.clone(), false),
            Some(205)
        );
        assert_eq!(
            largest_safe(&hay, 0, 199, &mut blocked.clone(), false),
            Some(100)
        );
        assert_eq!(largest_safe(&hay, 100, 199, &mut blocked, false), None);
    }

    proptest! {
        /// Putting off the checks of matches whose candidate is already
        /// covered changes nothing: the same spans and ids as running every
        /// check at once, in one round and in small ones.
        #[test]
        fn putting_checks_off_changes_nothing(
            parts in prop::collection::vec(secret_piece(), 0..40),
            small in 1..3usize,
        ) {
            let text = parts.concat();
            let (put_off, at_once) = masked_both(put_off_and_at_once_at(0), &text);
            prop_assert_eq!(put_off, at_once);
            let both = put_off_and_at_once_at(small);
            prop_assert_eq!(both.0.redact(&text), both.1.redact(&text));
        }
    }

    proptest! {
        /// A window's `dot_six` from the text's dots is the window's own,
        /// long or short.
        #[test]
        fn long_windows_judge_dot_six_from_the_texts_dots(
            parts in prop::collection::vec(checks::hit_reference::dot_six_piece(), 0..60),
            cuts in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        ) {
            let hay = parts.concat();
            let (a, b) = (cuts.0.index(hay.len() + 1), cuts.1.index(hay.len() + 1));
            let (ls, le) = (a.min(b), a.max(b));
            let long = LongLines::default();
            prop_assert_eq!(
                dot_six_in(&hay, (ls, le), &long),
                checks::dot_six(&hay[ls..le])
            );
        }

        /// A window's `Guard::Run(n)` from the text's runs is the window's
        /// own, long or short.
        #[test]
        fn long_windows_judge_runs_from_the_texts_runs(
            parts in prop::collection::vec(
                prop::sample::select(vec!["AKIA ", "x", "Ab3+/_-9", "\n", " ", "é", "k"]),
                0..400,
            ),
            cuts in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
            n in 0usize..12,
        ) {
            let hay = parts.concat().into_bytes();
            let (a, b) = (cuts.0.index(hay.len() + 1), cuts.1.index(hay.len() + 1));
            let (ls, le) = (a.min(b), a.max(b));
            let long = LongLines::default();
            // The index answers long windows; asked twice, from it both times.
            let whole = checks::has_run(&hay[ls..le], n);
            prop_assert_eq!(run_in(&hay, (ls, le), n, &long), whole);
            prop_assert_eq!(run_in(&hay, (ls, le), n, &long), whole);
            prop_assert_eq!(run_in(&hay, (0, hay.len()), n, &long), checks::has_run(&hay, n));
        }

        /// Grouping a window's keyword starts by rule gives the same spans
        /// and ids as every rule filtering them, on many lines or one long
        /// line (minified JSON, a log line without breaks).
        #[test]
        fn grouping_keyword_starts_changes_nothing(
            parts in prop::collection::vec(secret_piece(), 0..40),
        ) {
            static BOTH: OnceLock<(Redactor, Redactor)> = OnceLock::new();
            let both = BOTH.get_or_init(|| {
                let b = || Redactor::builder().env_values(false);
                (b().anchors_grouped().build().unwrap(), b().anchors_filtered().build().unwrap())
            });
            // On one line or on many.
            let text = parts.concat();
            let (grouped, filtered) = masked_both(both, &text);
            prop_assert_eq!(grouped, filtered);
            let text = text.replace(['\n', '\r'], " ");
            let (grouped, filtered) = masked_both(both, &text);
            prop_assert_eq!(grouped, filtered);
        }

        /// Resuming searches where a match may start changes nothing: the
        /// same spans and ids as restarting one byte after each match.
        #[test]
        fn resuming_searches_changes_nothing(
            parts in prop::collection::vec(secret_piece(), 0..40),
        ) {
            static BOTH: OnceLock<(Redactor, Redactor)> = OnceLock::new();
            let both = BOTH.get_or_init(|| {
                let b = || Redactor::builder().env_values(false);
                (b().build().unwrap(), b().no_resume().build().unwrap())
            });
            let text = parts.concat();
            let (resumed, restarted) = masked_both(both, &text);
            prop_assert_eq!(resumed, restarted);
        }
    }

    proptest! {
        /// Reading groups by the pattern's pieces changes nothing: the same
        /// spans and ids as asking a capture engine for every match.
        #[test]
        fn reading_groups_by_pieces_changes_nothing(
            parts in prop::collection::vec(secret_piece(), 0..40),
        ) {
            static BOTH: OnceLock<(Redactor, Redactor)> = OnceLock::new();
            let both = BOTH.get_or_init(|| {
                let b = || Redactor::builder().env_values(false);
                (b().build().unwrap(), b().capture_engines().build().unwrap())
            });
            let text = parts.concat();
            let (pieces, engines) = masked_both(both, &text);
            prop_assert_eq!(pieces, engines);
        }
    }

    /// A put-off check that rejects (`secret_name` is no secret's name, the
    /// value is a GitHub token) still sends its window to the second look,
    /// which finds `secret_name :=` there (`:` then the value `=`), as when
    /// every check runs at once; one that accepts does not.
    #[test]
    fn a_put_off_check_that_rejects_still_sends_its_window_to_the_second_look() {
        let both = put_off_and_at_once_at(0);
        let token = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c";
        let mut kept = Vec::new();
        for name in [
            "secret_name",
            "token_count",
            "key_id",
            "HF_TOKEN",
            "api_key",
        ] {
            for op in [" := ", " ::= ", "=", ": "] {
                let t = format!("{name}{op}{token} password=Xy7Kq9Lm2Pz8Wv\n");
                SIDE_KEPT.with(|n| n.set(0));
                let (put_off, at_once) = masked_both(both, &t);
                assert_eq!(put_off, at_once, "{t}");
                assert!(put_off.iter().any(|m| m.value == token.as_bytes()), "{t}");
                kept.push((name, op, SIDE_KEPT.with(|n| n.get())));
            }
        }
        let counted =
            |name: &str, op: &str| kept.iter().any(|k| (k.0, k.1, k.2 > 0) == (name, op, true));
        assert!(counted("secret_name", " := "), "{kept:?}");
        assert!(!counted("HF_TOKEN", " := "), "{kept:?}");
    }

    /// The bare `Bearer X` rule's check is put off where the `Authorization:
    /// Bearer X` rule (the same priority, listed first) took the same token,
    /// and the spans and ids are those of running every check.
    #[test]
    fn a_check_covered_by_an_earlier_rule_of_its_priority_is_put_off() {
        let both = put_off_and_at_once_at(0);
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.5VRWV_XeQiSSpCGHLBz3EEB45cxNOhIAKQXnHhyz.4A0ioUDQk6hfgKtReRMH__0hUagP797MH_aAINm7r5B";
        for t in [
            format!("Authorization: Bearer {jwt}\n"),
            format!("curl -H 'Authorization: Bearer {jwt}' https://x\n"),
            format!("authorization=Bearer {jwt} (ok)\n"),
            format!("Bearer {jwt}\n"),
            format!("\"Authorization\": \"Bearer {jwt}\", \"token\": \"Bearer {jwt}\"\n"),
        ] {
            PUT_OFF.with(|n| n.set(0));
            let (put_off, at_once) = masked_both(both, &t);
            assert_eq!(put_off, at_once, "{t}");
            assert!(
                put_off
                    .iter()
                    .any(|m| m.rule_id == "bearer-token" && m.value == jwt.as_bytes()),
                "{t}: {put_off:?}"
            );
            if t.contains("uthorization") {
                assert!(PUT_OFF.with(|n| n.get()) > 0, "{t}");
            }
        }
    }

    /// Which candidates let a check be put off: one covering its span with a
    /// better priority, or with the same priority from the same rule or one
    /// listed before it; not one of a worse priority, nor one listed after
    /// it with the same priority (its id could then change), nor one that
    /// misses part of the span.
    #[test]
    fn which_candidates_put_a_check_off() {
        let red = Redactor::builder().env_values(false).build().unwrap();
        let inner = &*red.inner;
        let r = inner
            .rules
            .iter()
            .position(|x| x.check == Some(checks::Check::BareBearer))
            .unwrap() as u32;
        let rule = &inner.rules[r as usize];
        let win = b"x Bearer abcdefghijklmnop y";
        // The match `Bearer abcdefghijklmnop` at 2..25, its secret at 9..25,
        // in a window starting at 100.
        let (m, sec) = ((2, 25), (9, 25));
        let put_off = |s: usize, e: usize, prio: u8, src: u32| {
            let k = Cand { s, e, src, prio };
            red.deferrable(rule, r, checks::Check::BareBearer, win, 100, m, sec, &[k])
        };
        let p = rule.priority;
        assert!(put_off(109, 125, p - 10, r + 5));
        assert!(put_off(109, 125, p, r - 1));
        assert!(put_off(100, 127, p, r));
        assert!(!put_off(109, 125, p + 10, 0));
        assert!(!put_off(109, 125, p, r + 1));
        assert!(!put_off(110, 125, p - 10, 0));
        assert!(!put_off(109, 124, p, r - 1));
    }

    /// The corpus (every family in every context, clean look-alikes), record
    /// by record and as one text in small rounds, and text as dense with
    /// secrets as the bench's: the same spans and ids with the shortcuts
    /// (checks put off, searches resumed, groups read by pieces) or without;
    /// and checks are put off there (most vendor tokens come assigned).
    /// The corpus as one line (records joined by `, `, as in minified JSON):
    /// its windows' keyword starts are grouped by rule, with the same spans
    /// and ids as when every rule filters them.
    #[test]
    fn the_corpus_on_one_line_is_judged_alike_with_keyword_starts_grouped_or_not() {
        let b = || Redactor::builder().env_values(false);
        let both = (
            b().build().unwrap(),
            b().anchors_filtered().build().unwrap(),
        );
        let line = corpus_texts()
            .iter()
            .map(|t| t.replace(['\n', '\r'], " "))
            .collect::<Vec<_>>()
            .join(", ");
        GROUPED.with(|n| n.set(0));
        let (grouped, filtered) = masked_both(&both, &line);
        assert!(GROUPED.with(|n| n.get()) > 0);
        assert!(!grouped.is_empty());
        assert_eq!(grouped, filtered);
    }

    #[test]
    fn the_corpus_is_judged_alike_with_checks_put_off_or_not() {
        let both = put_off_and_at_once_at(0);
        PUT_OFF.with(|n| n.set(0));
        for t in corpus_texts() {
            let (put_off, at_once) = masked_both(both, t);
            assert_eq!(put_off, at_once, "{t:?}");
        }
        assert!(
            PUT_OFF.with(|n| n.get()) > 500,
            "{}",
            PUT_OFF.with(|n| n.get())
        );
        let all = corpus_texts()[..300].join("\n");
        for i in 1..3 {
            let both = put_off_and_at_once_at(i);
            assert_eq!(both.0.redact(&all), both.1.redact(&all), "rounds {i}");
        }
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let line = (secret_piece(), 0..1000u32);
        let mut dense = String::new();
        while dense.len() < 400_000 {
            let (piece, step) = line.new_tree(&mut runner).unwrap().current();
            dense.push_str(&format!(
                "[2025-06-01T12:00:00Z] deploy step {step}: {piece}  (ok) (ok)\n"
            ));
        }
        let (put_off, at_once) = masked_both(both, &dense);
        assert!(put_off.len() > 1000, "{}", put_off.len());
        assert_eq!(put_off, at_once);
    }

    /// The shapes of `Context`, `Typed`, `Spaced` and `AssignName` are
    /// necessary conditions: wherever the guard passes at a keyword hit, its
    /// shape bit is set. (Both paths test a guard as `may_pass && guard_ok_at`,
    /// so they agree whatever the shapes; these four were narrowed to what
    /// their guard needs, and must not drop a hit at which it passes.)
    #[test]
    fn a_guard_passes_only_where_its_shape_is() {
        use crate::checks::{guard_ok_at, HitCtx, NameMemo};
        use proptest::strategy::ValueTree;
        let r = Redactor::builder().env_values(false).build().unwrap();
        let inner = &*r.inner;
        use checks::Guard;
        let guards = [
            Guard::Context,
            Guard::Typed,
            Guard::Spaced,
            Guard::AssignName,
        ];
        let mut memo = NameMemo::default();
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut checked = 0;
        for _ in 0..600 {
            let parts = prop::collection::vec(dense_piece(), 0..80)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            let text = parts.concat();
            let hay = text.as_bytes();
            let mut hits = Vec::new();
            let mut seg = Default::default();
            inner.scanner.scan(hay, &mut hits, &mut seg);
            for h in hits {
                if hay[h.start()..h.end()].contains(&b'\n') {
                    continue;
                }
                let (ls, le) = line_window(hay, h.start(), h.end());
                let ne = with_next_line(hay, (ls, le)).1;
                let c = HitCtx::new(hay, h.start(), h.end(), ls, le);
                for g in guards {
                    if guard_ok_at(g, hay, &c, ne, &mut memo) {
                        checked += 1;
                        assert!(
                            c.may_pass(g),
                            "{g:?} at {}..{} of {text:?}",
                            h.start(),
                            h.end()
                        );
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }

    /// A keyword inside another at its start, of the same rules, is covered
    /// by it: a hit of the one makes the other's hit at its start redundant
    /// (equal sets: the later keyword is covered by the earlier). `secret_`
    /// is covered by nothing. The built-in keywords hold no such pair (`tok`
    /// became `tok`/`toke` and a byte, see `builtin::tok_keywords`, so that
    /// `token` is not hit twice): no built-in hit is found only to be dropped.
    #[test]
    fn a_keyword_inside_another_of_the_same_rules_is_covered_by_it() {
        let rule = Rule::builder("tok-rule", r"tok[a-z]*=(?P<secret>[0-9]{8})")
            .keywords(["tok", "token", "secret_"])
            .secret_group("secret")
            .build()
            .unwrap();
        let r = Redactor::builder()
            .env_values(false)
            .builtin_rules(false)
            .rule(rule)
            .build()
            .unwrap();
        let inner = &*r.inner;
        let (mut hits, mut seg) = (Vec::new(), Default::default());
        inner
            .scanner
            .scan(b"tok token secret_", &mut hits, &mut seg);
        let pat = |s: usize, e: usize| {
            hits.iter()
                .find(|h| (h.start(), h.end()) == (s, e))
                .unwrap()
                .pattern
        };
        let (tok, token, secret_) = (pat(4, 7), pat(4, 9), pat(10, 17));
        assert_eq!(pat(0, 3), tok);
        assert!(inner.targets[token as usize].covered_by.contains(&tok));
        assert!(inner.targets[tok as usize].covered_by.is_empty());
        assert!(inner.targets[secret_ as usize].covered_by.is_empty());
        assert_eq!(
            r.redact("token=12345678 tok=87654321"),
            "token=[REDACTED:tok-rule] tok=[REDACTED:tok-rule]"
        );

        let builtin = Redactor::builder().env_values(false).build().unwrap();
        assert!(builtin
            .inner
            .targets
            .iter()
            .all(|t| t.covered_by.is_empty()));
    }

    /// The context a hit lends to a longer hit at its start is the one that
    /// hit would read itself.
    #[test]
    fn a_longer_hit_at_the_same_start_reads_the_same_context() {
        use crate::checks::HitCtx;
        use proptest::strategy::ValueTree;
        let r = Redactor::builder().env_values(false).build().unwrap();
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut lent = 0;
        // `tok`/`token` and `secret`/`secret_` no longer both hit: fewer
        // keywords lie at the start of a longer one, more texts are read.
        for _ in 0..1000 {
            let parts = prop::collection::vec(dense_piece(), 0..80)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            let text = parts.concat();
            let hay = text.as_bytes();
            let (mut hits, mut seg) = (Vec::new(), Default::default());
            r.inner.scanner.scan(hay, &mut hits, &mut seg);
            hits.sort_unstable_by_key(|h| (h.start(), h.end()));
            let mut last: Option<HitCtx> = None;
            for h in hits {
                if hay[h.start()..h.end()].contains(&b'\n') {
                    continue;
                }
                let w = line_window(hay, h.start(), h.end());
                let c = HitCtx::new(hay, h.start(), h.end(), w.0, w.1);
                if let Some(l) = last.and_then(|l| l.for_longer_hit(hay, (h.start(), h.end()), w)) {
                    lent += 1;
                    assert_eq!(l, c, "{}..{} of {text:?}", h.start(), h.end());
                }
                last = Some(c);
            }
        }
        assert!(lent > 200, "{lent}");
    }

    #[test]
    fn windows_stay_on_the_line() {
        let hay = b"aaa\nbb token cc\ndd";
        assert_eq!(line_window(hay, 7, 12), (4, 15));
        assert_eq!(following_window(hay, 7, 12, 1), (4, 15));
        assert_eq!(following_window(hay, 7, 12, 100), (4, 18));
    }

    /// Rounds of 160 KiB (more than a context plus `PREDICT_RANGE`, so that
    /// cuts can be predicted), on `threads` threads.
    fn threaded(threads: usize) -> RedactorBuilder {
        Redactor::builder()
            .env_values(false)
            .block_size(160 << 10)
            .threads(threads)
    }

    /// About `bytes` of log text: ordinary lines with one of the corpus's
    /// records (secrets of every family, clean look-alikes, long lines) after
    /// about every `every`-th, from `seed`; with `pem`, PEM blocks too (each opens a 64 KiB
    /// window: a few close together push a cut far below its round's end,
    /// where it is not predicted).
    fn long_log(seed: usize, bytes: usize, every: usize, pem: bool) -> String {
        let texts: Vec<&String> = corpus_texts()
            .iter()
            .filter(|t| pem || !t.contains("-----BEGIN"))
            .collect();
        let mut out = String::with_capacity(bytes + 4096);
        let mut i = seed;
        while out.len() < bytes {
            i = i
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            out.push_str(&format!(
                "2024-05-{:02}T12:00:00Z INFO step {} done in {} ms\n",
                i % 28 + 1,
                i % 977,
                i % 5003
            ));
            if i.is_multiple_of(every) {
                out.push_str(texts[(i >> 8) % texts.len()]);
                out.push('\n');
            }
        }
        out
    }

    /// The rounds one thread makes over `hay`, with their starts.
    fn sequential_rounds(r: &Redactor, hay: &[u8]) -> Vec<(usize, Round)> {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        let (mut q, mut state) = (0, (0, 0));
        loop {
            let round = r.round_at(hay, q, state, true, &mut scratch).unwrap();
            let next = (!round.last).then(|| round.next(q));
            out.push((q, round));
            let Some((nq, np, nskip)) = next else {
                return out;
            };
            (q, state) = (nq, (np, nskip - nq));
        }
    }

    /// On ordinary text every prediction holds: a batch judges as many
    /// rounds as it has threads, and they are the rounds one thread makes.
    /// (Text where a secret or a rule's wide window sits on every few lines
    /// can have its safe cuts far below a round's end, where no cut is
    /// predicted: `threads_never_change_the_output` covers it.)
    #[test]
    fn a_batch_judges_its_rounds_side_by_side() {
        let text = long_log(7, 1 << 20, 12, false);
        let hay = text.as_bytes();
        let one = sequential_rounds(&threaded(1).build().unwrap(), hay);
        assert!(one.len() >= 6, "{}", one.len());
        let r = threaded(4).build().unwrap();
        let mut scratch = Scratch::default();
        std::thread::scope(|sc| {
            let mut workers = Workers::idle(3);
            let mut at = 0;
            while at < one.len() {
                let (q0, first) = &one[at];
                let batch = r.batch(
                    &Text::Slice(hay),
                    (*q0, hay.len() - q0),
                    (first.from, 0),
                    true,
                    &mut scratch,
                    (sc, &mut workers),
                    &mut Pace::new(4),
                    Meanwhile::Wait,
                );
                let want = (one.len() - at).min(4);
                assert_eq!(batch.len(), want, "batch at round {at}");
                for (k, (q, round)) in batch.into_iter().enumerate() {
                    assert_eq!(
                        (q0 + q, &round),
                        (one[at + k].0, &one[at + k].1),
                        "round {}",
                        at + k
                    );
                }
                at += want;
            }
            // The three workers were started once, for every batch.
            assert_eq!(workers.lanes.len(), 3);
            assert!(workers.lanes.iter().all(Option::is_some));
        });
        assert_eq!(r.redact(&text), threaded(1).build().unwrap().redact(&text));
    }

    /// Every cut predicted with the short look-back is the one the whole
    /// context gives, on logs with and without PEM blocks; and the keyword
    /// test is what keeps it so: a PEM block between the two look-backs,
    /// whose 64 KiB window holds the round's end, pushes the cut below it,
    /// which the short look-back alone does not see.
    #[test]
    fn a_short_look_back_predicts_what_the_whole_context_does() {
        let short = threaded(1).build().unwrap();
        let full = threaded(1).full_context().build().unwrap();
        let limit = short.inner.block + short.inner.context;
        let mut scratch = Scratch::default();
        let mut short_reads = 0;
        for (seed, pem) in [(3, false), (5, true), (8, true)] {
            let text = long_log(seed, 1 << 20, 12, pem);
            let hay = text.as_bytes();
            let (mut q, mut state) = (0, (0, 0));
            loop {
                let round = short.round_at(hay, q, state, true, &mut scratch).unwrap();
                if round.last {
                    break;
                }
                let view = &hay[q..(q + state.0 + limit).min(hay.len())];
                let got = short.predict_cut(view, state.0, &mut scratch);
                let want = full.predict_cut(view, state.0, &mut scratch);
                assert_eq!(got, want, "seed {seed}, round at {q}");
                let hi = (state.0 + short.inner.block).min(view.len());
                let from = hi.checked_sub(short.inner.context + PREDICT_RANGE);
                let to = hi - short.inner.short - PREDICT_RANGE;
                if from.is_some_and(|f| f > state.0)
                    && !short
                        .inner
                        .wide
                        .as_ref()
                        .unwrap()
                        .is_match(&view[from.unwrap()..(to + short.inner.max_keyword).min(hi)])
                {
                    short_reads += 1;
                }
                let (nq, np, nskip) = round.next(q);
                (q, state) = (nq, (np, nskip - nq));
            }
        }
        assert!(short_reads >= 10, "{short_reads}");
        // A PEM block ~50 KiB below the first round's end (160 KiB).
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 110 << 10 {
            text.push_str(&format!("2024-05-01T12:00:00Z INFO step {i} done\n"));
            i += 1;
        }
        let pem_at = text.len();
        text.push_str("-----BEGIN RSA PRIVATE KEY-----\n");
        for k in 0..20 {
            text.push_str(&format!(
                "MIIEowIBAAKCAQEA{k:02}q3T0xK9v8Zp2Lr7Wm4Ys1Nc6Hb5Jd0Fg3Ke8Qa2Ut9Xw\n"
            ));
        }
        text.push_str("-----END RSA PRIVATE KEY-----\n");
        while text.len() < 400 << 10 {
            text.push_str(&format!("2024-05-01T12:00:00Z INFO step {i} done\n"));
            i += 1;
        }
        let hay = text.as_bytes();
        let rounds = sequential_rounds(&short, hay);
        let cut = rounds[1].0;
        assert!(cut <= pem_at, "the PEM window pushes the cut down: {cut}");
        let view = &hay[..limit];
        let predicted = short.predict_cut(view, 0, &mut scratch);
        assert!(predicted.is_none_or(|c| c == cut), "{predicted:?} vs {cut}");
        let hi = short.inner.block;
        let blind = short.predict_from(
            view,
            0,
            hi - short.inner.short - PREDICT_RANGE,
            &mut scratch,
        );
        assert!(blind.is_some_and(|c| c != cut), "{blind:?} vs {cut}");
    }

    /// A round that reads only the short context ahead (no keyword of a
    /// wide window near its end) is the round that reads the whole context:
    /// the same cut, spans and end of output; only its text is shorter.
    /// Logs with corpus records, with and without PEM blocks (whose rounds
    /// read the whole context where a block is near their end).
    #[test]
    fn a_round_reads_the_short_context_ahead_alike() {
        let short = threaded(1).build().unwrap();
        let full = threaded(1).full_context().build().unwrap();
        let (mut shorter, mut whole) = (0, 0);
        for (seed, pem, every) in [(2, false, 12), (4, true, 12), (6, true, 3), (9, false, 2)] {
            let text = long_log(seed, 1 << 20, every, pem);
            let hay = text.as_bytes();
            let a = sequential_rounds(&short, hay);
            let b = sequential_rounds(&full, hay);
            assert_eq!(a.len(), b.len(), "seed {seed}");
            for ((qa, ra), (qb, rb)) in a.iter().zip(&b) {
                assert_eq!(
                    (qa, &ra.spans, ra.from, ra.to, ra.cut, ra.forced, ra.last),
                    (qb, &rb.spans, rb.from, rb.to, rb.cut, rb.forced, rb.last),
                    "seed {seed}, round at {qa}"
                );
                if ra.hay_len < rb.hay_len {
                    shorter += 1;
                } else if !ra.last {
                    whole += 1;
                }
            }
            assert_eq!(short.redact(&text), full.redact(&text), "seed {seed}");
        }
        assert!(
            shorter >= 10 && whole >= 1,
            "{shorter} short, {whole} whole"
        );
    }

    /// One-shot redaction of `text` on one thread (the reference output).
    fn one_thread(text: &str) -> Vec<u8> {
        threaded(1)
            .build()
            .unwrap()
            .redact_bytes(text.as_bytes())
            .into_owned()
    }

    /// Shares one count of the bytes read with a writer: how far the
    /// reader had gone when each write came.
    struct SharedCount<'a> {
        data: &'a [u8],
        read: Arc<std::sync::atomic::AtomicUsize>,
        size: usize,
        /// Fail (not `Interrupted`) once this many bytes were read.
        fail_at: Option<usize>,
    }

    impl Read for SharedCount<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            use std::sync::atomic::Ordering::SeqCst;
            let done = self.read.load(SeqCst);
            if self.fail_at.is_some_and(|f| done >= f) {
                return Err(io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.size).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            self.read.fetch_add(n, SeqCst);
            Ok(n)
        }
    }

    struct WriteLog {
        out: Vec<u8>,
        read: Arc<std::sync::atomic::AtomicUsize>,
        /// Bytes read when each write came.
        seen: Vec<usize>,
    }

    impl Write for WriteLog {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.seen
                .push(self.read.load(std::sync::atomic::Ordering::SeqCst));
            self.out.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Reading ahead, a stream on several threads has read the next
    /// batch's input before it writes a batch (without, it reads only what
    /// the batch needs first), and writes what one thread and one-shot
    /// redaction give, whatever the size of the reads.
    #[test]
    fn a_stream_reads_ahead_while_its_rounds_are_judged() {
        let text = long_log(12, 2 << 20, 6, true);
        let one = one_thread(&text);
        let block = 160 << 10;
        for (threads, size) in [(2, 1 << 20), (3, 4096), (2, 70_001)] {
            // Not reading ahead; all workers judging while the stream reads;
            // the stream judging too and reading while it waits.
            for (ahead, spare) in [(false, false), (true, true), (true, false)] {
                let r = threaded(threads)
                    .read_ahead(ahead)
                    .spare_cpu(spare)
                    .build()
                    .unwrap();
                let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
                let reader = SharedCount {
                    data: text.as_bytes(),
                    read: Arc::clone(&read),
                    size,
                    fail_at: None,
                };
                let mut w = WriteLog {
                    out: Vec::new(),
                    read: Arc::clone(&read),
                    seen: Vec::new(),
                };
                let opts = StreamOptions {
                    chunk_size: size,
                    ..StreamOptions::default()
                };
                let stats = r.redact_stream_with(reader, &mut w, opts).unwrap();
                assert!(
                    w.out == one,
                    "{threads} threads, reads of {size}, ahead {ahead}, spare {spare}"
                );
                assert_eq!(stats.bytes_in, text.len() as u64);
                // The first batch needs its rounds and one context past them.
                let first = threads * block + r.inner.context + 1;
                let before_first_write = w.seen[0];
                if ahead && spare {
                    assert!(
                        before_first_write >= first + threads * block,
                        "{before_first_write} read before the first write"
                    );
                } else if ahead {
                    // As much as the workers' time allowed, never more than
                    // the next batch's rounds.
                    assert!(
                        before_first_write < first + size + threads * block,
                        "{before_first_write} read before the first write"
                    );
                } else {
                    assert!(
                        before_first_write < first + size,
                        "{before_first_write} read before the first write"
                    );
                }
            }
        }
    }

    /// A reader that fails while the stream reads ahead fails the stream
    /// with its error, after the output of the batches read before it (a
    /// prefix of one-shot's), as without reading ahead.
    #[test]
    fn a_reader_failing_ahead_fails_the_stream_as_without() {
        let text = long_log(13, 1 << 20, 6, false);
        let one = one_thread(&text);
        for fail_at in [10_000, 400 << 10, 700 << 10] {
            let mut outs = Vec::new();
            for (ahead, spare) in [(false, false), (true, true), (true, false)] {
                let r = threaded(2)
                    .read_ahead(ahead)
                    .spare_cpu(spare)
                    .build()
                    .unwrap();
                let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
                let reader = SharedCount {
                    data: text.as_bytes(),
                    read: Arc::clone(&read),
                    size: 8192,
                    fail_at: Some(fail_at),
                };
                let mut w = WriteLog {
                    out: Vec::new(),
                    read,
                    seen: Vec::new(),
                };
                let err = r.redact_stream(reader, &mut w).unwrap_err();
                assert_eq!(err.to_string(), "disk on fire");
                assert!(
                    one.starts_with(&w.out),
                    "fail at {fail_at}, ahead {ahead}, spare {spare}"
                );
                outs.push(w.out.len());
            }
            // Reading ahead, the failure is met while the batch before it is
            // judged: that batch is still written. Read while the stream
            // waits, the bytes before the failure serve the batches that
            // need them, and it fails where it fails without.
            assert!(outs[1] >= outs[0], "fail at {fail_at}: {outs:?}");
            assert_eq!(outs[2], outs[0], "fail at {fail_at}: {outs:?}");
        }
    }

    /// A round judged from a wrong prediction is dropped and judged again:
    /// with every prediction off by a byte a batch keeps only its first
    /// round, and the output is still the one of one thread.
    #[test]
    fn a_round_from_a_wrong_prediction_is_judged_again() {
        let text = long_log(11, 700 << 10, 12, false);
        let r = threaded(3).mispredict().build().unwrap();
        let mut pace = Pace::new(3);
        let hay = text.as_bytes();
        let got = std::thread::scope(|sc| {
            r.batch(
                &Text::Slice(hay),
                (0, hay.len()),
                (0, 0),
                true,
                &mut Scratch::default(),
                (sc, &mut Workers::idle(2)),
                &mut pace,
                Meanwhile::Wait,
            )
            .len()
        });
        assert_eq!(got, 1);
        // The next batches judge one round each.
        assert_eq!((pace.width(), pace.calm), (1, Pace::CALM));
        let want = threaded(1).build().unwrap().redact(&text).into_owned();
        assert_eq!(r.redact(&text), want);
        let mut out = Vec::new();
        r.redact_stream(text.as_bytes(), &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    /// A keyword-dense line longer than several rounds (no safe cut: forced
    /// cuts, rounds that look back) between ordinary text: every thread count
    /// gives the output of one thread, streamed and one-shot.
    #[test]
    fn threads_keep_the_forced_cuts_of_one_thread() {
        let mut text = long_log(3, 200 << 10, 12, false);
        let unit = "token_count=3 key_id=k7 secret_name=db ";
        let dense_from = text.len();
        while text.len() < dense_from + (600 << 10) {
            text.push_str(unit);
            if text.len() % (64 << 10) < unit.len() {
                text.push_str("password=Lr8nK3sYbQ-hunter2 ");
            }
        }
        text.push('\n');
        text.push_str(&long_log(4, 200 << 10, 12, false));
        let one = threaded(1).build().unwrap();
        let rounds = sequential_rounds(&one, text.as_bytes());
        assert!(rounds.iter().filter(|(_, r)| r.forced).count() >= 2);
        let want = one.redact(&text).into_owned();
        assert!(!want.contains("Lr8nK3sYbQ"));
        for threads in [2, 3] {
            let r = threaded(threads).build().unwrap();
            assert_eq!(r.redact(&text), want, "{threads} threads, one-shot");
            let mut out = Vec::new();
            r.redact_stream(text.as_bytes(), &mut out).unwrap();
            assert!(out == want.as_bytes(), "{threads} threads, streamed");
        }
    }

    /// One keyword-dense line of many rounds (minified JSON: no safe cut
    /// anywhere, every round forced): the rounds after a forced one are
    /// guessed forced too, and the guesses hold (no round is dropped), so
    /// that threads judge them side by side; the rounds and the output are
    /// those of one thread, one-shot and streamed, and a wrong guess is
    /// dropped.
    #[test]
    fn rounds_after_a_forced_cut_are_guessed_forced() {
        use std::sync::atomic::Ordering;
        let mut text = String::from("[");
        let mut i = 0u32;
        while text.len() < 2 << 20 {
            text.push_str(&format!(
                "{{\"key_id\":\"key_{i:08x}\",\"token_count\":{i},\"next_page_token\":\"p-{i}\"}},"
            ));
            i += 1;
        }
        text.push_str("{\"password\":\"Lr8nK3sYbQ-hunter2\"}]");
        let hay = text.as_bytes();
        let one = sequential_rounds(&threaded(1).build().unwrap(), hay);
        assert!(one.len() >= 10, "{}", one.len());
        assert!(one[..one.len() - 1].iter().all(|(_, r)| r.forced));
        let want = threaded(1).build().unwrap().redact(&text).into_owned();
        assert!(!want.contains("Lr8nK3sYbQ"));
        for threads in [2, 3] {
            FORCED_GUESSES.store(0, Ordering::Relaxed);
            DROPPED.store(0, Ordering::Relaxed);
            let r = threaded(threads).build().unwrap();
            let (rounds, _) = slice_rounds_of(&r, hay);
            assert!(rounds == one, "{threads} threads");
            assert!(FORCED_GUESSES.load(Ordering::Relaxed) >= one.len() / 2);
            assert_eq!(DROPPED.load(Ordering::Relaxed), 0, "{threads} threads");
            assert_eq!(r.redact(&text), want, "{threads} threads");
            DROPPED.store(0, Ordering::Relaxed);
            let wrong = threaded(threads).mispredict().build().unwrap();
            let (rounds, _) = slice_rounds_of(&wrong, hay);
            assert!(rounds == one, "{threads} threads, mispredicted");
            assert!(DROPPED.load(Ordering::Relaxed) > 0);
            // Streamed: the batches' workers judge rounds ahead from the same guesses.
            for r in [&r, &wrong] {
                FORCED_GUESSES.store(0, Ordering::Relaxed);
                let mut out = Vec::new();
                r.redact_stream(hay, &mut out).unwrap();
                assert!(out == want.as_bytes(), "{threads} threads, streamed");
                assert!(FORCED_GUESSES.load(Ordering::Relaxed) > 0);
            }
        }
    }

    /// The rounds `slice_rounds` hands to `each` (with their starts) and
    /// the positions `done` hears.
    fn slice_rounds_of(r: &Redactor, hay: &[u8]) -> (Vec<(usize, Round)>, Vec<usize>) {
        let (mut rounds, mut done) = (Vec::new(), Vec::new());
        r.slice_rounds(
            hay,
            |q, round| {
                rounds.push((
                    q,
                    Round {
                        spans: round.spans.clone(),
                        ..*round
                    },
                ));
                Ok(())
            },
            |n| done.push(n),
        )
        .unwrap();
        (rounds, done)
    }

    /// A text in memory on several threads, predictions right or wrong
    /// (`mispredict`: every one off by a byte) and with keyword-dense
    /// stretches (forced cuts): `slice_rounds` hands out exactly the rounds
    /// one thread makes, in order, and `done` hears each next round's
    /// start once that round's predecessor is written.
    #[test]
    fn pipelined_rounds_are_the_rounds_of_one_thread() {
        let mut text = long_log(5, 900 << 10, 12, true);
        let dense_from = text.len();
        while text.len() < dense_from + (500 << 10) {
            text.push_str("token_count=3 key_id=k7 secret_name=db ");
        }
        text.push('\n');
        text.push_str(&long_log(6, 600 << 10, 12, false));
        let hay = text.as_bytes();
        let one = sequential_rounds(&threaded(1).build().unwrap(), hay);
        assert!(one.len() >= 10, "{}", one.len());
        assert!(one.iter().any(|(_, r)| r.forced));
        let starts: Vec<usize> = one[1..].iter().map(|(q, _)| *q).collect();
        for threads in [1, 2, 3, 4] {
            for wrong in [false, true] {
                let mut b = threaded(threads);
                if wrong {
                    b = b.mispredict();
                }
                let (rounds, done) = slice_rounds_of(&b.build().unwrap(), hay);
                assert!(rounds == one, "{threads} threads, mispredicted: {wrong}");
                assert_eq!(done, starts, "{threads} threads, mispredicted: {wrong}");
            }
        }
    }

    /// A write that fails stops the rounds there: its error is returned,
    /// no later round is written, and the workers still judging are let go.
    #[test]
    fn a_failed_write_stops_the_pipelined_rounds() {
        let text = long_log(9, 1 << 20, 12, false);
        let hay = text.as_bytes();
        let total = sequential_rounds(&threaded(1).build().unwrap(), hay).len();
        assert!(total >= 5, "{total}");
        for threads in [1, 2, 4] {
            let r = threaded(threads).build().unwrap();
            let mut written = 0;
            let got = r.slice_rounds(
                hay,
                |_, _| {
                    written += 1;
                    if written == 3 {
                        Err(io::Error::other("disk full"))
                    } else {
                        Ok(())
                    }
                },
                |_| {},
            );
            assert_eq!(
                got.unwrap_err().to_string(),
                "disk full",
                "{threads} threads"
            );
            assert_eq!(written, 3, "{threads} threads");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Whatever the thread count, one-shot and streamed output is the
        /// one of a single thread, reading ahead (either way) or not: long log text with
        /// keyword-dense stretches (where cuts cannot be predicted or rounds
        /// are forced).
        #[test]
        fn threads_never_change_the_output(
            seed in 0..1_000_000usize,
            dense in prop::collection::vec(prop::collection::vec(dense_piece(), 0..400), 0..4),
            threads in 2..5usize,
            chunk in 4096..300_000usize,
            ahead in any::<bool>(),
            spare in any::<bool>(),
        ) {
            let mut text = long_log(seed, 400 << 10, 2 + seed % 12, seed % 2 == 0);
            for (k, d) in dense.iter().enumerate() {
                let at = (text.len() / 4 * (k + 1)).min(text.len());
                let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                text.insert_str(at, &d.concat());
            }
            let want = threaded(1).build().unwrap().redact(&text).into_owned();
            let r = threaded(threads).read_ahead(ahead).spare_cpu(spare).build().unwrap();
            prop_assert_eq!(r.redact(&text), want.as_str());
            let mut out = Vec::new();
            r.redact_stream_with(
                text.as_bytes(),
                &mut out,
                StreamOptions { chunk_size: chunk, ..StreamOptions::default() },
            )
            .unwrap();
            prop_assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }
}
