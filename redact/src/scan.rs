//! The keyword prefilter: every keyword occurrence in one pass over the text.
//!
//! The keywords (ASCII case-insensitive, overlapping hits) are compiled here
//! into an Aho-Corasick DFA laid out as one compact table: one byte class per
//! byte that occurs in a keyword (both cases share it, every other byte is
//! class 0), rows of `stride` entries (the class count plus 2, rounded up to
//! a multiple of 4, not to a power of two), and state ids that are where a
//! state's row starts: a multiple of 4, plus 2 for a match state (its row is
//! shifted by two entries), so that "is any of four lanes in a match state?"
//! is one `or` of the four ids and one bit test. Match states' rows come
//! last, so their keyword lists are indexed from 0 by `(id - match_min) /
//! stride`, computed per hit as a multiply and a shift. When the table has at most
//! 2^17 entries (the built-in set at stop 49: 589 keywords and guard words,
//! 2 184 states, 57 classes, stride 60, 131 040 entries: full) the ids are
//! stored halved in `u16` entries of a fixed-size array of 2^17 + 256
//! entries: `table[2 * id + class]` is in bounds by the types (no bounds
//! check, nothing masked on the chain of dependent loads) and the table
//! touched is 256 KiB instead of the 546 KiB of `u32` rows of 64 entries.
//! Up to 2^18 entries the ids are stored quartered (rows of a multiple of 8
//! entries, match rows shifted by 4, `table[4 * id + class]` in an array of
//! 2^18 + 256): twice the states for rows a few entries longer (stride 64
//! for the built-in classes). Measured at stop 49 with the built-in set
//! forced into it: the same instruction count as the halved table (callgrind,
//! 5 MB keyword-free log and 20 MB Rust sources, within 0.01 %) and the same
//! wall time within noise (12 alternated runs each). The built-in set
//! outgrew the halved table at stop 53 (734 keywords and guard words, with
//! `tok`/`toke` and `sk-` each followed by a byte instead of alone: 2 429
//! states, 59 classes, stride 64, 155 456 entries) and walks the quartered
//! one: 100 MB of the keyword-free log and of Rust sources through
//! `toolexec redact` took the same time as before (6 alternated runs).
//! Larger tables keep `u32` ids (checked indexing). The construction is the
//! textbook one, done directly on that table (a trie in the table, then the
//! failure links breadth first, each missing transition copied from the
//! failure state's row): for the built-in set
//! it costs ~2.3 M instructions (~0.5 ms), against ~36 M for building
//! `aho-corasick`'s DFA and re-flattening it through a map. Very large
//! keyword sets (hundreds of known values, more than [`FLAT_MAX_ENTRIES`]
//! table entries) use `aho-corasick`'s DFA, walked through its `Automaton`
//! trait, and beyond that DFA's own limits its contiguous NFA.
//!
//! A DFA step is one dependent table load, so a single walk is bound by load
//! latency; the text is cut into four segments walked in lock step, which
//! keeps four loads in flight. Each segment's walk starts `max_keyword_len - 1`
//! bytes early so that a keyword straddling a segment border is still seen (by
//! exactly one walk). A round is walked so in pieces of 128 KiB (each cut in
//! four): the hits of the second to fourth segments wait in buffers until
//! their piece is done, so those buffers hold a piece's hits, not a round's
//! (on a megabyte of `token token …`, ~1 M hits, they were 19 MB per round and
//! thread). Hits are counted from the piece's start inside the walk and moved
//! by it afterwards: with the piece's start as a fourth live value the loop
//! cost 2.7 % more instructions on 20 MB of Rust sources.
//!
//! Measured alternatives, kept out (the built-in set, 20 MB of logs, JSON and
//! Rust sources, this machine, scan alone): a SIMD prefilter
//! (`aho_corasick::packed` Teddy over the lower-cased text, patterns cut at
//! their first 3–4 bytes and split into groups of at most 64/128, then an
//! anchored trie walk per candidate) runs at 60–400 MB/s
//! because the built-in set has ~330 distinct 3-byte prefixes, far beyond
//! what Teddy's 8/16 buckets can tell apart; a trigram bitmap filter (one L1
//! table lookup per position, branch-free candidate masks) costs more
//! instructions per byte than the DFA because ordinary text holds 14–90
//! keyword-prefix candidates per KB; byte-indexed rows without bounds checks
//! (7.6 instead of 9 instructions per byte) were slower in wall time (a
//! 1.4 MB table), and so were `u16` rows, six or eight lanes and recording
//! the lanes' states per block to test them branch-free. So were (measured
//! again at stop 23, 20 MB of sources and of a keyword-free log, one thread,
//! best of 24 alternated runs) a fixed-size 512 KiB table indexed under a mask
//! instead of a bounds check (−29 % instructions in the scan, +33 % time: the
//! mask lies on the walk's chain of dependent loads, the check does not), rows
//! reached through a sliced column (`trans[class..][state]`, +10 %), and match
//! states numbered from a power of two so that four lanes are tested by one
//! `or` (−6 % instructions, same time). The four-lane DFA
//! stayed the fastest: ~9 instructions per byte on text with few keyword
//! hits, ~16 on JSON full of `token`/`key` names (~60 hits per KB).
//!
//! Stop 24 (the same four 20 MB inputs, scan alone over 1 MB blocks, the
//! previous code and the new one alternated in one process, best of 30,
//! three runs on the shared 2-CPU machine): the hot loop went from 45
//! instructions per 4-byte step (bounds checks, four match compares, four
//! indices, four spills) to 30 (the narrow table: no bounds check, one `or`
//! test, one index, no spill). Kept: the narrow `u16` table with flagged
//! ids and match rows last — keyword-free log −19 % time (1 050 → 1 296
//! MB/s), Rust sources −22 % (1 074 → 1 385), structured log −5..−15 %, JSON
//! −5..+2 % (within noise); callgrind of `toolexec redact --no-env
//! --threads 1` over the same inputs: scan 243 → 157 M instructions
//! (log), 241 → 155 M (sources), 252 → 171 M (structured log), 264 → 188 M
//! (JSON); whole command 386 → 300, 384 → 298, 852 → 761, 1 403 → 1 307 M.
//! Measured and left out: the same table with match rows interleaved in
//! trie order (one `matches` entry per state): JSON +3.5 %, structured log
//! +1 %; testing the four lanes by four branches instead of one `or`: no
//! gain left on the keyword-free log, JSON +7 %; eight lanes at constant
//! distances (rounds of 8 × (8 KiB + 64) bytes, one pointer, lanes
//! unrolled, 58 instructions per 8 bytes): keyword-free log +4..7 %,
//! sources −1..+1 %, structured log +15..20 %, JSON +12..24 % (a step with a
//! hit in any of eight lanes is twice as frequent, presumably a
//! misprediction each);
//! with the lanes exactly 8 KiB apart (one L1 set) it was slower still; a
//! `u32` table with checked indexing, the flagged ids and match rows
//! interleaved (what the built-in set got before its rows of 60 `u16`
//! entries fitted): −7 % on the log, −9 % on sources, JSON +8 %. (How the
//! `u16` rows measured slower before, above, were laid out is not
//! recorded.) Through the command (100 MB, 1 thread, best of 8–12
//! alternated runs, CPU time) the two binaries differed by −5..0 % on the
//! keyword-free log, −10..−2 % on sources, −4..+6 % on the structured log
//! and −2..+13 % on JSON: within this machine's noise (the same binary
//! moved by 10–20 % between batches).

use aho_corasick::automaton::Automaton;
use aho_corasick::{dfa, nfa, Anchored, MatchKind};

use crate::Error;

/// One keyword occurrence: `hay[start()..end()]` is keyword `pattern`.
///
/// 12 bytes (an offset in the round, which is at most 4 GiB, and the
/// keyword's length, not its end): a round of keyword-dense text holds
/// hundreds of thousands of hits, and they are most of its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    at: u32,
    pub(crate) pattern: u32,
    len: u32,
}

impl Hit {
    /// The hit of keyword `pattern`, `len` bytes long, at `start` (below
    /// 2^32: rounds are at most the redactor's `MAX_BLOCK` plus a context).
    #[cfg(test)]
    pub(crate) fn new(start: usize, len: u32, pattern: u32) -> Hit {
        debug_assert!(u32::try_from(start).is_ok());
        Hit {
            at: start as u32,
            pattern,
            len,
        }
    }

    /// The hit of keyword `pattern`, `len` bytes long, that ends at `end`
    /// of a piece of the round (see [`walk_piece`]): its start is kept
    /// modulo 2^32 (a keyword that began before the piece starts "below
    /// zero" until [`Hit::shift`] adds where the piece starts).
    #[inline(always)]
    fn ending(end: usize, len: u32, pattern: u32) -> Hit {
        Hit {
            at: (end as u32).wrapping_sub(len),
            pattern,
            len,
        }
    }

    /// Moves a hit found in a piece that starts at `by` into the round.
    fn shift(&mut self, by: usize) {
        self.at = self.at.wrapping_add(by as u32);
    }

    /// Where the keyword starts.
    #[inline(always)]
    pub(crate) fn start(&self) -> usize {
        self.at as usize
    }

    /// Where the keyword ends.
    #[inline(always)]
    pub(crate) fn end(&self) -> usize {
        self.start() + self.len as usize
    }

    /// The keyword's length.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }
}

#[derive(Debug)]
enum Engine {
    Flat(Flat),
    Dfa(dfa::DFA),
    Nfa(nfa::contiguous::NFA),
}

/// Entries of the narrow table: every `u16` state (an id halved) plus any class.
const NARROW_LEN: usize = (1 << 17) + 256;

/// Entries of the quartered narrow table: every `u16` state (an id
/// quartered) plus any class.
const QUARTER_LEN: usize = (1 << 18) + 256;

/// How the flat table stores state ids (see [`Flat::build`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ids {
    /// The narrowest layout the table fits: halved `u16` ids, else
    /// quartered ones, else `u32` ones.
    Narrowest,
    /// Quartered `u16` ids when the table fits them, else `u32` ones.
    #[cfg_attr(not(test), allow(dead_code))] // only tests pick a layout
    Quartered,
    /// `u32` ids.
    #[cfg_attr(not(test), allow(dead_code))] // only tests pick a layout
    Wide,
}

/// The flattened DFA's transitions.
#[derive(Debug)]
enum Table {
    /// `u16` ids halved (tables of at most 2^17 entries): the index `2 *
    /// state + class` is below [`NARROW_LEN`] by its types, so it needs no
    /// check.
    Narrow(Box<[u16; NARROW_LEN]>),
    /// `u16` ids quartered (tables of at most 2^18 entries, rows of a
    /// multiple of 8 entries, match rows shifted by 4): `4 * state + class`
    /// is below [`QUARTER_LEN`] by its types. It holds twice the states of
    /// the halved layout for a few more bytes a row.
    Quarter(Box<[u16; QUARTER_LEN]>),
    /// `u32` ids, for larger tables.
    Wide(Vec<u32>),
}

/// The flattened DFA.
#[derive(Debug)]
struct Flat {
    /// `next = table[state + class[byte]]`; a state's id is its index times
    /// the stride, plus 1 for a match state (whose row starts there).
    table: Table,
    class: [u8; 256],
    /// `id / stride` is `id * inv >> 40` (no division per hit).
    inv: u64,
    /// The first match state's id (match states are numbered last).
    match_min: u32,
    start: u32,
    /// Per match state (by `(id - match_min) / stride`): its range in `outs`.
    matches: Vec<(u32, u32)>,
    /// (pattern, length) of every keyword a match state ends, longest first.
    outs: Vec<(u32, u32)>,
}

/// Largest flattened table (entries) before falling back to `aho-corasick`'s NFA.
const FLAT_MAX_ENTRIES: usize = 1 << 22;

/// No transition yet (during construction).
const NONE: u32 = u32::MAX;

impl Flat {
    /// The Aho-Corasick DFA of `patterns` (ASCII case-insensitive, every
    /// match reported), or `None` when its table would exceed
    /// [`FLAT_MAX_ENTRIES`]. `ids` picks the layout (other than
    /// [`Ids::Narrowest`] only to test the other paths).
    fn build(patterns: &[Vec<u8>], ids: Ids) -> Option<Flat> {
        // Byte classes: every byte used by a keyword gets its own class (shared
        // by both ASCII cases); all other bytes behave alike (class 0).
        let mut class = [0u8; 256];
        let mut classes = 1usize;
        for p in patterns {
            for &b in p {
                let l = b.to_ascii_lowercase();
                if class[l as usize] == 0 {
                    // At most 256 - 26 distinct bytes after case folding.
                    class[l as usize] = u8::try_from(classes).ok()?;
                    class[l.to_ascii_uppercase() as usize] = class[l as usize];
                    classes += 1;
                }
            }
        }
        // The trie, in a dense table over the classes.
        let mut go: Vec<u32> = vec![NONE; classes];
        let mut own: Vec<Vec<(u32, u32)>> = vec![Vec::new()];
        for (pi, p) in patterns.iter().enumerate() {
            let mut n = 0usize;
            for &b in p {
                let at = n * classes + class[b as usize] as usize;
                n = match go[at] {
                    NONE => {
                        let id = own.len();
                        if (id + 1) * classes > FLAT_MAX_ENTRIES {
                            return None;
                        }
                        own.push(Vec::new());
                        go.resize((id + 1) * classes, NONE);
                        go[at] = u32::try_from(id).ok()?;
                        id
                    }
                    next => next as usize,
                };
            }
            own[n].push((u32::try_from(pi).ok()?, u32::try_from(p.len()).ok()?));
        }
        let states = own.len();
        // Failure links breadth first; a missing transition is the failure
        // state's (already complete, being shallower).
        let mut fail = vec![0u32; states];
        let mut order: Vec<u32> = Vec::with_capacity(states);
        for slot in go.iter_mut().take(classes) {
            match *slot {
                NONE => *slot = 0,
                child => order.push(child),
            }
        }
        let mut i = 0;
        while i < order.len() {
            let n = order[i] as usize;
            i += 1;
            let f = fail[n] as usize;
            for c in 0..classes {
                let via_fail = go[f * classes + c];
                match go[n * classes + c] {
                    NONE => go[n * classes + c] = via_fail,
                    child => {
                        fail[child as usize] = via_fail;
                        order.push(child);
                    }
                }
            }
        }
        // A state ends its own keywords and those of its failure state (the
        // failure state is shallower, so it is complete by now).
        for &n in &order {
            let f = fail[n as usize] as usize;
            if !own[f].is_empty() {
                let inherited = own[f].clone();
                own[n as usize].extend(inherited);
            }
        }
        // Rows of `stride >= classes + 2` entries, `stride` a multiple of 4:
        // a state's id (where its entries start) is a multiple of 4, or 2
        // more for a match state, and its `classes` entries still lie in its
        // own row. Quartered ids: rows of a multiple of 8 entries, `stride
        // >= classes + 4`, match states 4 more.
        let halved = (classes + 5) & !3;
        let quartered = (classes + 11) & !7;
        let (stride, shift) = match ids {
            Ids::Narrowest if states * halved <= 1 << 17 => (halved, 1),
            Ids::Narrowest | Ids::Quartered if states * quartered <= 1 << 18 => (quartered, 2),
            _ => (halved, 0),
        };
        let flag = if shift == 2 { 4 } else { 2 };
        if states * stride > FLAT_MAX_ENTRIES {
            return None;
        }
        // Rows of non-match states first, then those of match states (whose
        // ranges in `outs` are then indexed from 0).
        let mut pos = vec![0usize; states];
        let plain = own.iter().filter(|o| o.is_empty()).count();
        let (mut next_plain, mut next_match) = (0, plain);
        let mut matches = Vec::with_capacity(states - plain);
        let mut outs = Vec::new();
        for (n, o) in own.iter().enumerate() {
            if o.is_empty() {
                pos[n] = next_plain;
                next_plain += 1;
            } else {
                pos[n] = next_match;
                next_match += 1;
                let a = u32::try_from(outs.len()).ok()?;
                outs.extend_from_slice(o);
                matches.push((a, u32::try_from(outs.len()).ok()?));
            }
        }
        let id = |n: usize| pos[n] * stride + flag * usize::from(!own[n].is_empty());
        // Narrow: ids halved (they are even) into `u16`; the last id is at
        // most `states * stride - stride + 2 <= 2^17 - 2`. Quartered: ids
        // are multiples of 4, the last at most `2^18 - 4`.
        let table = if shift == 1 {
            Table::Narrow(narrow_rows(&go, classes, states, id, 2)?)
        } else if shift == 2 {
            Table::Quarter(narrow_rows(&go, classes, states, id, 4)?)
        } else {
            let mut t = vec![0u32; states * stride];
            for n in 0..states {
                let row = &go[n * classes..(n + 1) * classes];
                for (t, &g) in t[id(n)..id(n) + classes].iter_mut().zip(row) {
                    *t = u32::try_from(id(g as usize)).ok()?;
                }
            }
            Table::Wide(t)
        };
        Some(Flat {
            table,
            class,
            inv: stride_inverse(stride),
            match_min: u32::try_from(plain * stride + flag).ok()?,
            start: u32::try_from(id(0)).ok()?,
            matches,
            outs,
        })
    }

    /// Appends the keywords match state `s` ends at `at` to `out`.
    #[inline(always)]
    fn report(&self, s: u32, at: usize, out: &mut Vec<Hit>) {
        let m = (u64::from(s.wrapping_sub(self.match_min)) * self.inv) >> 40;
        let Some(&(a, z)) = self.matches.get(m as usize) else {
            return;
        };
        let end = at + 1;
        out.extend(
            self.outs[a as usize..z as usize]
                .iter()
                .map(|&(pattern, len)| Hit::ending(end, len, pattern)),
        );
    }
}

/// `⌊2^40 / stride⌋ + 1`: `id * inv >> 40 == id / stride` whenever
/// `id * stride < 2^40` (ids stay below [`FLAT_MAX_ENTRIES`] = `2^22`, strides
/// below 512): the rounding error, below `id / 2^40`, is then smaller than
/// the `1 / stride` that `id / stride`'s fraction lacks to the next integer.
fn stride_inverse(stride: usize) -> u64 {
    (1u64 << 40) / stride as u64 + 1
}

/// One way of walking the automaton (the flat tables, or `aho-corasick`'s own).
trait Walk {
    type S: Copy;
    fn start(&self) -> Option<Self::S>;
    fn next(&self, s: Self::S, b: u8) -> Self::S;
    fn is_match(&self, s: Self::S) -> bool;
    /// Whether any of four states is a match state.
    #[inline(always)]
    fn any_match(&self, a: Self::S, b: Self::S, c: Self::S, d: Self::S) -> bool {
        self.is_match(a) | self.is_match(b) | self.is_match(c) | self.is_match(d)
    }
    fn report(&self, s: Self::S, at: usize, out: &mut Vec<Hit>);
}

/// The rows of a narrow table of `LEN` entries: state `n`'s `classes`
/// entries at `id(n)`, each the next state's id divided by `scale`.
fn narrow_rows<const LEN: usize>(
    go: &[u32],
    classes: usize,
    states: usize,
    id: impl Fn(usize) -> usize,
    scale: usize,
) -> Option<Box<[u16; LEN]>> {
    let mut t: Box<[u16; LEN]> = vec![0u16; LEN].into_boxed_slice().try_into().ok()?;
    for n in 0..states {
        let row = &go[n * classes..(n + 1) * classes];
        for (t, &g) in t[id(n)..id(n) + classes].iter_mut().zip(row) {
            *t = u16::try_from(id(g as usize) / scale).ok()?;
        }
    }
    Some(t)
}

/// The flat DFA with `u16` ids: an id divided by `SCALE` (2: halved, 4:
/// quartered) in a table of `LEN` entries, which every `SCALE * state +
/// class` indexes within.
struct Narrow<'a, const SCALE: usize, const LEN: usize> {
    table: &'a [u16; LEN],
    flat: &'a Flat,
}

impl<const SCALE: usize, const LEN: usize> Walk for Narrow<'_, SCALE, LEN> {
    type S = u16;
    fn start(&self) -> Option<u16> {
        u16::try_from(self.flat.start as usize / SCALE).ok()
    }
    #[inline(always)]
    fn next(&self, s: u16, b: u8) -> u16 {
        self.table[SCALE * usize::from(s) + usize::from(self.flat.class[b as usize])]
    }
    #[inline(always)]
    fn is_match(&self, s: u16) -> bool {
        s & 1 != 0
    }
    #[inline(always)]
    fn any_match(&self, a: u16, b: u16, c: u16, d: u16) -> bool {
        (a | b | c | d) & 1 != 0
    }
    #[inline(always)]
    fn report(&self, s: u16, at: usize, out: &mut Vec<Hit>) {
        // `SCALE * s` is below 2^18: the cast loses nothing.
        self.flat.report((SCALE * usize::from(s)) as u32, at, out);
    }
}

/// The flat DFA with `u32` ids.
struct Wide<'a> {
    table: &'a [u32],
    flat: &'a Flat,
}

impl Walk for Wide<'_> {
    type S = u32;
    fn start(&self) -> Option<u32> {
        Some(self.flat.start)
    }
    #[inline(always)]
    fn next(&self, s: u32, b: u8) -> u32 {
        self.table[s as usize + self.flat.class[b as usize] as usize]
    }
    #[inline(always)]
    fn is_match(&self, s: u32) -> bool {
        s & 2 != 0
    }
    #[inline(always)]
    fn any_match(&self, a: u32, b: u32, c: u32, d: u32) -> bool {
        (a | b | c | d) & 2 != 0
    }
    #[inline(always)]
    fn report(&self, s: u32, at: usize, out: &mut Vec<Hit>) {
        self.flat.report(s, at, out);
    }
}

/// `aho-corasick`'s automata, stepped through its public `Automaton` trait.
struct Ac<'a, A>(&'a A);

impl<A: Automaton> Walk for Ac<'_, A> {
    type S = aho_corasick::automaton::StateID;
    fn start(&self) -> Option<Self::S> {
        self.0.start_state(Anchored::No).ok()
    }
    #[inline(always)]
    fn next(&self, s: Self::S, b: u8) -> Self::S {
        self.0.next_state(Anchored::No, s, b)
    }
    #[inline(always)]
    fn is_match(&self, s: Self::S) -> bool {
        self.0.is_match(s)
    }
    fn report(&self, s: Self::S, at: usize, out: &mut Vec<Hit>) {
        report(self.0, s, at, out)
    }
}

/// Keyword scanner over a fixed list of patterns.
#[derive(Debug)]
pub(crate) struct Scanner {
    engine: Option<Engine>,
    max_len: usize,
    /// Bytes walked in four lanes at a time ([`PIECE`]; smaller in tests).
    piece: usize,
}

/// Below this size one walk is as fast as four.
const INTERLEAVE_MIN: usize = 4096;

impl Scanner {
    pub(crate) fn new(patterns: &[Vec<u8>]) -> Result<Scanner, Error> {
        if patterns.is_empty() {
            return Ok(Scanner {
                engine: None,
                max_len: 0,
                piece: PIECE,
            });
        }
        let max_len = patterns.iter().map(Vec::len).max().unwrap_or(0);
        let engine = match Flat::build(patterns, Ids::Narrowest) {
            Some(f) => Engine::Flat(f),
            // Larger sets (hundreds of known values): `aho-corasick`'s DFA has
            // no table limit; beyond its own limits the contiguous NFA is
            // slower but has none.
            None => match ac_dfa(patterns) {
                Ok(d) => Engine::Dfa(d),
                Err(_) => Engine::Nfa(ac_nfa(patterns).map_err(|e| Error::Automaton {
                    message: e.to_string(),
                })?),
            },
        };
        Ok(Scanner {
            engine: Some(engine),
            max_len,
            piece: PIECE,
        })
    }

    /// Appends every keyword occurrence in `hay` to `out`, ordered by end
    /// offset; `segments` are work buffers (reused by the caller).
    pub(crate) fn scan(&self, hay: &[u8], out: &mut Vec<Hit>, segments: &mut [Vec<Hit>; 3]) {
        for s in segments.iter_mut() {
            s.clear();
        }
        match &self.engine {
            None => {}
            Some(Engine::Flat(f)) => match &f.table {
                Table::Narrow(t) => scan_with(
                    &Narrow::<2, NARROW_LEN> { table: t, flat: f },
                    (self.max_len, self.piece),
                    hay,
                    out,
                    segments,
                ),
                Table::Quarter(t) => scan_with(
                    &Narrow::<4, QUARTER_LEN> { table: t, flat: f },
                    (self.max_len, self.piece),
                    hay,
                    out,
                    segments,
                ),
                Table::Wide(t) => scan_with(
                    &Wide { table: t, flat: f },
                    (self.max_len, self.piece),
                    hay,
                    out,
                    segments,
                ),
            },
            Some(Engine::Dfa(d)) => {
                scan_with(&Ac(d), (self.max_len, self.piece), hay, out, segments)
            }
            Some(Engine::Nfa(n)) => {
                scan_with(&Ac(n), (self.max_len, self.piece), hay, out, segments)
            }
        }
    }
}

/// `aho-corasick`'s DFA of the keywords (ASCII case-insensitive, overlapping).
fn ac_dfa(patterns: &[Vec<u8>]) -> Result<dfa::DFA, aho_corasick::BuildError> {
    dfa::DFA::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .prefilter(false)
        .build(patterns)
}

/// `aho-corasick`'s contiguous NFA of the keywords: slower, but no size limit.
fn ac_nfa(patterns: &[Vec<u8>]) -> Result<nfa::contiguous::NFA, aho_corasick::BuildError> {
    nfa::contiguous::NFA::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .prefilter(false)
        .build(patterns)
}

#[inline(always)]
fn report<A: Automaton>(
    a: &A,
    sid: aho_corasick::automaton::StateID,
    at: usize,
    out: &mut Vec<Hit>,
) {
    for i in 0..a.match_len(sid) {
        let pid = a.match_pattern(sid, i);
        // Keywords are at most 64 bytes (`RuleBuilder::keywords`).
        let len = a.pattern_len(pid) as u32;
        out.push(Hit::ending(at + 1, len, pid.as_u32()));
    }
}

#[cold]
#[inline(never)]
fn report4<W: Walk>(
    w: &W,
    sids: [W::S; 4],
    at: [usize; 4],
    out: &mut Vec<Hit>,
    outs: &mut [Vec<Hit>; 3],
) {
    if w.is_match(sids[0]) {
        w.report(sids[0], at[0], out);
    }
    for k in 1..4 {
        if w.is_match(sids[k]) {
            w.report(sids[k], at[k], &mut outs[k - 1]);
        }
    }
}

fn scan_with<W: Walk>(
    w: &W,
    (max_len, piece): (usize, usize),
    hay: &[u8],
    out: &mut Vec<Hit>,
    outs: &mut [Vec<Hit>; 3],
) {
    let Some(start) = w.start() else {
        return;
    };
    let n = hay.len();
    if n < INTERLEAVE_MIN {
        let mut sid = start;
        for (i, &b) in hay.iter().enumerate() {
            sid = w.next(sid, b);
            if w.is_match(sid) {
                w.report(sid, i, out);
            }
        }
        return;
    }
    // Pieces of `piece` bytes (the last up to twice that), each walked in
    // four lanes: the lanes' hits wait in `outs` only until their piece
    // is done, so those buffers hold a piece's hits, not a round's.
    let mut from = 0;
    while from < n {
        let to = if n - from < 2 * piece {
            n
        } else {
            from + piece
        };
        walk_piece(w, start, max_len, hay, (from, to), out, outs);
        from = to;
    }
}

/// Bytes of a round walked in four lanes at a time (see [`scan_with`]).
const PIECE: usize = 128 << 10;

/// The hits of `hay[from..to]` (at least [`INTERLEAVE_MIN`] bytes), in four
/// lanes walked in lock step, appended to `out` in order of their ends.
#[inline(always)]
fn walk_piece<W: Walk>(
    w: &W,
    start: W::S,
    max_len: usize,
    hay: &[u8],
    (from, to): (usize, usize),
    out: &mut Vec<Hit>,
    outs: &mut [Vec<Hit>; 3],
) {
    let piece = &hay[from..to];
    // Four segments [0,q) [q,2q) [2q,3q) [3q,len) of the piece.
    let q = piece.len() / 4;
    let warm = max_len.saturating_sub(1);
    // Warm up each walk on the bytes just before its segment (matches there
    // belong to the previous segment or piece and are not reported).
    let mut states = [start; 4];
    for (k, state) in states.iter_mut().enumerate() {
        let b = from + k * q;
        let mut sid = start;
        for &byte in &hay[b.saturating_sub(warm)..b] {
            sid = w.next(sid, byte);
        }
        *state = sid;
    }
    let first = out.len();
    let (s0, s1, s2, s3) = (
        &piece[..q],
        &piece[q..2 * q],
        &piece[2 * q..3 * q],
        &piece[3 * q..4 * q],
    );
    let [mut a0, mut a1, mut a2, mut a3] = states;
    // Offsets in the piece (the loop keeps no more registers live than a
    // walk over the whole round did: 2.7 % fewer instructions on 20 MB of
    // Rust sources), moved into the round below.
    for i in 0..q {
        a0 = w.next(a0, s0[i]);
        a1 = w.next(a1, s1[i]);
        a2 = w.next(a2, s2[i]);
        a3 = w.next(a3, s3[i]);
        // Hits are rare: one predictable branch per step, the work out of line.
        if w.any_match(a0, a1, a2, a3) {
            report4(
                w,
                [a0, a1, a2, a3],
                [i, q + i, 2 * q + i, 3 * q + i],
                out,
                outs,
            );
        }
    }
    for (i, &b) in piece.iter().enumerate().skip(4 * q) {
        a3 = w.next(a3, b);
        if w.is_match(a3) {
            w.report(a3, i, &mut outs[2]);
        }
    }
    for o in outs.iter_mut() {
        out.append(o);
    }
    if from > 0 {
        for h in &mut out[first..] {
            h.shift(from);
        }
    }
}

#[cfg(test)]
impl Scanner {
    /// The same keywords through `aho-corasick`'s NFA (the large-set path).
    fn with_nfa(patterns: &[Vec<u8>]) -> Scanner {
        Scanner {
            engine: Some(Engine::Nfa(ac_nfa(patterns).unwrap())),
            max_len: patterns.iter().map(Vec::len).max().unwrap_or(0),
            piece: PIECE,
        }
    }

    /// The same keywords through `aho-corasick`'s DFA (the larger-set path).
    fn with_dfa(patterns: &[Vec<u8>]) -> Scanner {
        Scanner {
            engine: Some(Engine::Dfa(ac_dfa(patterns).unwrap())),
            max_len: patterns.iter().map(Vec::len).max().unwrap_or(0),
            piece: PIECE,
        }
    }

    /// The same keywords in the flat table with `u32` ids (the path for
    /// tables too large for `u16` ones).
    fn with_wide(patterns: &[Vec<u8>]) -> Scanner {
        Scanner {
            engine: Some(Engine::Flat(Flat::build(patterns, Ids::Wide).unwrap())),
            max_len: patterns.iter().map(Vec::len).max().unwrap_or(0),
            piece: PIECE,
        }
    }

    /// The same keywords in the flat table with quartered `u16` ids (the
    /// path for tables too large for halved ones).
    fn with_quarter(patterns: &[Vec<u8>]) -> Scanner {
        let flat = Flat::build(patterns, Ids::Quartered).unwrap();
        assert!(matches!(flat.table, Table::Quarter(_)));
        Scanner {
            engine: Some(Engine::Flat(flat)),
            max_len: patterns.iter().map(Vec::len).max().unwrap_or(0),
            piece: PIECE,
        }
    }

    /// The same scanner walking pieces of `n` bytes (borders between
    /// pieces in short texts).
    fn with_piece(mut self, n: usize) -> Scanner {
        self.piece = n;
        self
    }

    fn is_flat(&self) -> bool {
        matches!(self.engine, Some(Engine::Flat(_)))
    }

    /// Whether the table holds `u16` ids (halved or quartered).
    pub(crate) fn is_narrow(&self) -> bool {
        matches!(&self.engine, Some(Engine::Flat(f))
            if matches!(f.table, Table::Narrow(_) | Table::Quarter(_)))
    }

    /// Whether the table holds halved `u16` ids.
    pub(crate) fn is_halved(&self) -> bool {
        matches!(&self.engine, Some(Engine::Flat(f)) if matches!(f.table, Table::Narrow(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every occurrence of every pattern (ASCII case-insensitive), ordered
    /// by (start, end, pattern).
    fn naive_bytes(pats: &[Vec<u8>], hay: &[u8]) -> Vec<(usize, usize, u32)> {
        let lower: Vec<u8> = hay.to_ascii_lowercase();
        let mut v = Vec::new();
        for (pi, p) in pats.iter().enumerate() {
            let p = p.to_ascii_lowercase();
            if p.is_empty() || p.len() > lower.len() {
                continue;
            }
            for (s, w) in lower.windows(p.len()).enumerate() {
                if w == p.as_slice() {
                    v.push((s, s + p.len(), pi as u32));
                }
            }
        }
        v.sort_unstable();
        v
    }

    /// The scanner's hits, checked to be ordered by end, then sorted like
    /// [`naive_bytes`].
    fn scanned(scanner: &Scanner, hay: &[u8]) -> Vec<(usize, usize, u32)> {
        let mut got = Vec::new();
        scanner.scan(hay, &mut got, &mut Default::default());
        assert!(
            got.windows(2).all(|w| w[0].end() <= w[1].end()),
            "hits not ordered by end"
        );
        let mut got: Vec<_> = got
            .iter()
            .map(|h| (h.start(), h.end(), h.pattern))
            .collect();
        got.sort_unstable();
        got
    }

    fn naive(pats: &[&str], hay: &[u8]) -> Vec<(usize, usize, u32)> {
        let pats: Vec<Vec<u8>> = pats.iter().map(|p| p.as_bytes().to_vec()).collect();
        naive_bytes(&pats, hay)
    }

    /// Bytes from a small alphabet (both cases, non-letters, a non-ASCII
    /// byte and NUL) so that patterns overlap, share prefixes and occur.
    fn small_byte() -> impl Strategy<Value = u8> {
        prop::sample::select(&b"aAbBkKeEyY-_=:. \n\x00\xe9\xc9"[..])
    }

    fn pattern_set(max: usize) -> impl Strategy<Value = Vec<Vec<u8>>> {
        prop::collection::vec(
            prop_oneof![
                // 1- to 3-byte patterns (single bytes included).
                4 => prop::collection::vec(small_byte(), 1..=3),
                // Longer ones, often sharing prefixes with the short ones.
                2 => prop::collection::vec(small_byte(), 4..=12),
                // Any byte at all.
                1 => prop::collection::vec(any::<u8>(), 1..=6),
            ],
            1..=max,
        )
    }

    /// Text made of the alphabet, pieces of the patterns (in either case)
    /// and arbitrary bytes, long enough to be cut into the four segments.
    fn text_for(pats: Vec<Vec<u8>>) -> impl Strategy<Value = (Vec<Vec<u8>>, Vec<u8>)> {
        let n = pats.len();
        let pats2 = pats.clone();
        let pieces = prop::collection::vec(
            prop_oneof![
                3 => small_byte().prop_map(|b| (None, b, false)),
                2 => (0..n, any::<bool>()).prop_map(|(i, up)| (Some(i), 0u8, up)),
                1 => any::<u8>().prop_map(|b| (None, b, false)),
            ],
            0..3000,
        );
        (Just(pats), pieces).prop_map(move |(pats, pieces)| {
            let mut hay = Vec::new();
            for (i, b, up) in pieces {
                match i {
                    Some(i) if up => hay.extend(pats2[i].to_ascii_uppercase()),
                    Some(i) => hay.extend_from_slice(&pats2[i]),
                    None => hay.push(b),
                }
            }
            (pats, hay)
        })
    }

    /// At least `len` bytes of `units` and random letters (a unit where
    /// `(x >> 16) % modulo` picks one, a letter otherwise), the same every run.
    fn lcg_text(len: usize, units: &[&[u8]], modulo: u32) -> Vec<u8> {
        let mut hay = Vec::new();
        let mut i = 0u32;
        while hay.len() < len {
            i = i.wrapping_mul(1103515245).wrapping_add(12345);
            match units.get(((i >> 16) % modulo) as usize) {
                Some(unit) => hay.extend_from_slice(unit),
                None => hay.push(b'a' + ((i >> 20) % 26) as u8),
            }
        }
        hay
    }

    #[test]
    fn finds_overlapping_hits_across_segment_borders() {
        let pats = ["token", "ken", "ghp_", "PASSWORD"];
        let scanner = Scanner::new(
            &pats
                .iter()
                .map(|p| p.as_bytes().to_vec())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let hay = lcg_text(20_000, &[b"Token", b"gHp_", b"passWORD"], 7);
        let mut got = Vec::new();
        scanner.scan(&hay, &mut got, &mut Default::default());
        let mut got: Vec<_> = got
            .iter()
            .map(|h| (h.start(), h.end(), h.pattern))
            .collect();
        got.sort();
        let mut want = naive(&pats, &hay);
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn hits_across_piece_borders_are_found_once_and_in_order() {
        // A round longer than two pieces (the built-in piece size), dense
        // with overlapping keywords: what a naive search finds, whatever
        // the piece size, and the lanes' buffers hold one piece's hits.
        let pats = ["token", "ken", "oke", "to", "PASSWORD", "word"];
        let pats_bytes: Vec<Vec<u8>> = pats.iter().map(|p| p.as_bytes().to_vec()).collect();
        let mut hay = lcg_text(8 * PIECE, &[b"Token ", b"passWORD", b"tokentoken"], 5);
        hay.truncate(8 * PIECE);
        let mut want = naive(&pats, &hay);
        want.sort_unstable();
        for scanner in [
            Scanner::new(&pats_bytes).unwrap(),
            Scanner::new(&pats_bytes).unwrap().with_piece(4096),
            Scanner::new(&pats_bytes).unwrap().with_piece(5000),
            Scanner::with_dfa(&pats_bytes).with_piece(4097),
        ] {
            assert_eq!(scanned(&scanner, &hay), want);
        }
        let scanner = Scanner::new(&pats_bytes).unwrap();
        let (mut out, mut lanes) = (Vec::new(), <[Vec<Hit>; 3]>::default());
        scanner.scan(&hay, &mut out, &mut lanes);
        assert_eq!(out.len(), want.len());
        // Eight pieces of a quarter piece per lane: a lane's buffer grew to
        // hold at most a quarter piece's hits (doubling: less than a
        // piece's); lanes a quarter of the round long held two pieces'.
        let per_piece = naive(&pats, &hay[..PIECE]).len();
        for lane in &lanes {
            assert!(lane.is_empty());
            assert!(
                lane.capacity() < per_piece,
                "{} hits kept, a piece has {per_piece}",
                lane.capacity()
            );
        }
    }

    proptest! {
        /// The scanner finds exactly what a naive search finds, for any
        /// pattern set and text (short, long, overlapping, shared prefixes,
        /// non-letters, single bytes), across the four segments' borders,
        /// and the paths for larger sets (`aho-corasick`'s DFA and NFA) agree.
        #[test]
        fn scan_equals_naive_search((pats, hay) in pattern_set(40).prop_flat_map(text_for)) {
            let scanner = Scanner::new(&pats).unwrap();
            prop_assert!(scanner.is_narrow());
            let want = naive_bytes(&pats, &hay);
            prop_assert_eq!(&scanned(&scanner, &hay), &want);
            prop_assert_eq!(&scanned(&Scanner::with_wide(&pats), &hay), &want);
            prop_assert_eq!(&scanned(&Scanner::with_quarter(&pats), &hay), &want);
            prop_assert_eq!(&scanned(&Scanner::with_dfa(&pats), &hay), &want);
            prop_assert_eq!(&scanned(&Scanner::with_nfa(&pats), &hay), &want);
            // Pieces far shorter than a round's: their borders fall inside.
            for piece in [1000, 1531] {
                prop_assert_eq!(&scanned(&Scanner::new(&pats).unwrap().with_piece(piece), &hay), &want);
                prop_assert_eq!(&scanned(&Scanner::with_dfa(&pats).with_piece(piece), &hay), &want);
            }
        }

        /// Hundreds of patterns (more than any SIMD prefilter's bucket
        /// count), text of any bytes; every prefix of the text too (the
        /// segment borders move with its length).
        #[test]
        fn many_patterns_equal_naive_search(
            pats in prop::collection::vec(prop::collection::vec(small_byte(), 1..=8), 200..600),
            hay in prop::collection::vec(small_byte(), 4096..9000),
            cut in 0usize..9000,
        ) {
            let scanner = Scanner::new(&pats).unwrap();
            let hay = &hay[..cut.min(hay.len())];
            let want = naive_bytes(&pats, hay);
            prop_assert_eq!(&scanned(&scanner, hay), &want);
            prop_assert_eq!(&scanned(&Scanner::with_wide(&pats), hay), &want);
            prop_assert_eq!(&scanned(&Scanner::with_quarter(&pats), hay), &want);
            prop_assert_eq!(&scanned(&Scanner::new(&pats).unwrap().with_piece(1200), hay), &want);
        }

        /// `id * inv >> 40` is `id / stride` for every id a flat table can
        /// hold and every stride (at most 256 classes, rounded up).
        #[test]
        fn stride_inverse_divides(stride in 1usize..=260, id in 0u32..(FLAT_MAX_ENTRIES as u32)) {
            let inv = stride_inverse(stride);
            prop_assert_eq!((u64::from(id) * inv) >> 40, u64::from(id) / stride as u64);
        }
    }

    #[test]
    fn builds_the_builtin_sized_set_into_one_table() {
        // ~400 keywords of 2..20 bytes like the built-in set.
        let mut pats: Vec<Vec<u8>> = Vec::new();
        let mut x = 7u32;
        for i in 0..400 {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            let len = 2 + (x >> 16) as usize % 18;
            pats.push(
                (0..len)
                    .map(|k| {
                        b"abcdefghijklmnopqrstuvwxyz0123456789_-.:="
                            [(i * 7 + k * 13 + (x >> 8) as usize) % 41]
                    })
                    .collect(),
            );
        }
        let scanner = Scanner::new(&pats).unwrap();
        assert!(scanner.is_narrow());
        let hay: Vec<u8> = pats
            .iter()
            .flat_map(|p| p.iter().chain(b" "))
            .copied()
            .collect();
        assert_eq!(scanned(&scanner, &hay), naive_bytes(&pats, &hay));
    }

    /// `n` values of `len` bytes drawn from `alphabet` by a xorshift
    /// generator seeded with `x` (the same values on every run).
    fn random_values(mut x: u64, n: usize, len: usize, alphabet: &[u8]) -> Vec<Vec<u8>> {
        (0..n)
            .map(|_| {
                (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        alphabet[(x % alphabet.len() as u64) as usize]
                    })
                    .collect()
            })
            .collect()
    }

    /// 5 000 bytes of `x`, then every `step`-th value followed by its first
    /// 15 bytes in upper case.
    fn with_values(pats: &[Vec<u8>], step: usize) -> Vec<u8> {
        let mut hay = b"x".repeat(5000);
        for p in pats.iter().step_by(step) {
            hay.extend_from_slice(p);
            hay.extend_from_slice(&p[..15].to_ascii_uppercase());
        }
        hay
    }

    #[test]
    fn a_set_too_large_for_halved_ids_uses_quartered_ones() {
        // 120 distinct 30-byte values over 36 byte classes: ~3 600 states,
        // ~144 000 entries in rows of 40 (more than 2^17), ~173 000 in rows
        // of 48 (less than 2^18).
        let pats = random_values(5, 120, 30, b"abcdefghijklmnopqrstuvwxyz0123456789");
        let scanner = Scanner::new(&pats).unwrap();
        assert!(scanner.is_narrow() && !scanner.is_halved());
        let hay = with_values(&pats, 1);
        let got = scanned(&scanner, &hay);
        assert!(got.contains(&(5000, 5030, 0)));
        assert_eq!(got, naive_bytes(&pats, &hay));
    }

    #[test]
    fn a_set_too_large_for_u16_ids_uses_u32_ids() {
        // 400 distinct 30-byte values over 36 byte classes: ~11 000
        // states, ~440 000 table entries (more than 2^17, less than 2^22).
        let pats = random_values(3, 400, 30, b"abcdefghijklmnopqrstuvwxyz0123456789");
        let scanner = Scanner::new(&pats).unwrap();
        assert!(scanner.is_flat() && !scanner.is_narrow());
        let hay = with_values(&pats, 7);
        let got = scanned(&scanner, &hay);
        assert!(got.contains(&(5000, 5030, 0)));
        assert_eq!(got, naive_bytes(&pats, &hay));
    }

    #[test]
    fn a_set_too_large_for_the_table_uses_aho_corasick() {
        // 2 000 distinct 40-byte values over 64 byte classes: ~78 000
        // states, > 4 M table entries.
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/!#$%&()*,;<>?@[]^{|}~";
        let pats = random_values(1, 2000, 40, &alphabet[..58]);
        let scanner = Scanner::new(&pats).unwrap();
        assert!(matches!(scanner.engine, Some(Engine::Dfa(_))));
        let mut hay = b"x".repeat(5000);
        hay.extend_from_slice(&pats[17]);
        hay.extend_from_slice(&pats[1999].to_ascii_lowercase());
        let got = scanned(&scanner, &hay);
        assert!(got.contains(&(5000, 5040, 17)));
        assert!(got.contains(&(5040, 5080, 1999)));
        assert_eq!(got, naive_bytes(&pats, &hay));
    }

    #[test]
    fn no_pattern_finds_nothing() {
        let scanner = Scanner::new(&[]).unwrap();
        assert!(scanned(&scanner, b"token key secret").is_empty());
    }
}
