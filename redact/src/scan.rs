//! The keyword prefilter: every keyword occurrence in one pass over the text.
//!
//! The keywords (ASCII case-insensitive) are compiled by `aho-corasick` into a
//! DFA with overlapping ("standard") semantics, which is then flattened into a
//! compact table: premultiplied `u32` state ids, one byte-class per byte that
//! occurs in a keyword (both cases), and the match states numbered last so
//! that "is this a match?" is one comparison. A DFA step is one dependent
//! table load, so a single walk is bound by load latency; the text is cut into
//! four segments walked in lock step, which keeps four loads in flight. Each
//! segment's walk starts `max_keyword_len - 1` bytes early so that a keyword
//! straddling a segment border is still seen (by exactly one walk).

use aho_corasick::automaton::Automaton;
use aho_corasick::{dfa, nfa, Anchored, MatchKind};

use crate::Error;

/// One keyword occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) pattern: u32,
}

#[derive(Debug)]
enum Engine {
    Flat(Flat),
    Dfa(dfa::DFA),
    Nfa(nfa::contiguous::NFA),
}

/// The flattened DFA.
#[derive(Debug)]
struct Flat {
    /// `next = trans[state + class[byte]]`; states are premultiplied by the stride.
    trans: Vec<u32>,
    class: [u8; 256],
    shift: u32,
    start: u32,
    /// States `>= match_min` are match states.
    match_min: u32,
    /// Per match state (index from `match_min >> shift`): (pattern, length).
    matches: Vec<Vec<(u32, u32)>>,
}

/// Largest flattened table (entries) before falling back to the `aho-corasick` DFA.
const FLAT_MAX_ENTRIES: usize = 1 << 22;

impl Flat {
    fn build(d: &dfa::DFA, patterns: &[Vec<u8>]) -> Option<Flat> {
        let start = d.start_state(Anchored::No).ok()?;
        // Byte classes: every byte used by a keyword gets its own class (shared
        // by both ASCII cases); all other bytes behave alike (class 0).
        let mut class = [0u8; 256];
        let mut reps: Vec<u8> = Vec::new();
        let mut next_class = 1usize;
        for p in patterns {
            for &b in p {
                let l = b.to_ascii_lowercase();
                if class[l as usize] == 0 {
                    if next_class > 255 {
                        return None;
                    }
                    class[l as usize] = next_class as u8;
                    class[l.to_ascii_uppercase() as usize] = next_class as u8;
                    reps.push(l);
                    next_class += 1;
                }
            }
        }
        let mut all_reps: Vec<(usize, u8)> = Vec::with_capacity(next_class);
        if let Some(b) = (0..=255u8).find(|&b| class[b as usize] == 0) {
            all_reps.push((0, b));
        }
        all_reps.extend(reps.iter().map(|&b| (class[b as usize] as usize, b)));
        let stride = next_class.next_power_of_two().max(2);
        let shift = stride.trailing_zeros();
        // Discover the states.
        let mut ids: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
        let mut order: Vec<aho_corasick::automaton::StateID> = vec![start];
        ids.insert(start.as_u32(), 0);
        let mut i = 0;
        while i < order.len() {
            let sid = order[i];
            for &(_, b) in &all_reps {
                let n = d.next_state(Anchored::No, sid, b);
                if let std::collections::hash_map::Entry::Vacant(e) = ids.entry(n.as_u32()) {
                    e.insert(order.len());
                    order.push(n);
                }
            }
            i += 1;
            if order.len() * stride > FLAT_MAX_ENTRIES {
                return None;
            }
        }
        // Number non-match states first, match states last.
        let mut plain: Vec<usize> = Vec::new();
        let mut matching: Vec<usize> = Vec::new();
        for (k, &sid) in order.iter().enumerate() {
            if d.is_match(sid) {
                matching.push(k);
            } else {
                plain.push(k);
            }
        }
        let mut new_id = vec![0u32; order.len()];
        for (n, &k) in plain.iter().chain(matching.iter()).enumerate() {
            new_id[k] = u32::try_from(n << shift).ok()?;
        }
        let mut trans = vec![0u32; order.len() << shift];
        let mut matches = vec![Vec::new(); matching.len()];
        for (k, &sid) in order.iter().enumerate() {
            let base = new_id[k] as usize;
            for &(c, b) in &all_reps {
                let n = d.next_state(Anchored::No, sid, b);
                trans[base + c] = new_id[ids[&n.as_u32()]];
            }
            if d.is_match(sid) {
                let m = &mut matches[(base >> shift) - plain.len()];
                for j in 0..d.match_len(sid) {
                    let pid = d.match_pattern(sid, j);
                    m.push((pid.as_u32(), d.pattern_len(pid) as u32));
                }
            }
        }
        Some(Flat {
            trans,
            class,
            shift,
            start: new_id[0],
            match_min: u32::try_from(plain.len() << shift).ok()?,
            matches,
        })
    }
}

/// One way of walking the automaton (the flat table, or `aho-corasick`'s own).
trait Walk {
    type S: Copy;
    fn start(&self) -> Option<Self::S>;
    fn next(&self, s: Self::S, b: u8) -> Self::S;
    fn is_match(&self, s: Self::S) -> bool;
    fn report(&self, s: Self::S, at: usize, out: &mut Vec<Hit>);
}

impl Walk for Flat {
    type S = u32;
    fn start(&self) -> Option<u32> {
        Some(self.start)
    }
    #[inline(always)]
    fn next(&self, s: u32, b: u8) -> u32 {
        self.trans[s as usize + self.class[b as usize] as usize]
    }
    #[inline(always)]
    fn is_match(&self, s: u32) -> bool {
        s >= self.match_min
    }
    fn report(&self, s: u32, at: usize, out: &mut Vec<Hit>) {
        let idx = ((s - self.match_min) >> self.shift) as usize;
        for &(pattern, len) in &self.matches[idx] {
            let end = at + 1;
            out.push(Hit {
                start: end - len as usize,
                end,
                pattern,
            });
        }
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
}

/// Below this size one walk is as fast as four.
const INTERLEAVE_MIN: usize = 4096;

impl Scanner {
    pub(crate) fn new(patterns: &[Vec<u8>]) -> Result<Scanner, Error> {
        if patterns.is_empty() {
            return Ok(Scanner {
                engine: None,
                max_len: 0,
            });
        }
        let max_len = patterns.iter().map(Vec::len).max().unwrap_or(0);
        let engine = match dfa::DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            .build(patterns)
        {
            Ok(d) => match Flat::build(&d, patterns) {
                Some(f) => Engine::Flat(f),
                None => Engine::Dfa(d),
            },
            // Very large pattern sets (thousands of known values) may exceed the
            // DFA's limits: the contiguous NFA is slower but has none.
            Err(_) => Engine::Nfa(
                nfa::contiguous::NFA::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .prefilter(false)
                    .build(patterns)
                    .map_err(|e| Error::Automaton {
                        message: e.to_string(),
                    })?,
            ),
        };
        Ok(Scanner {
            engine: Some(engine),
            max_len,
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
            Some(Engine::Flat(f)) => scan_with(f, self.max_len, hay, out, segments),
            Some(Engine::Dfa(d)) => scan_with(&Ac(d), self.max_len, hay, out, segments),
            Some(Engine::Nfa(n)) => scan_with(&Ac(n), self.max_len, hay, out, segments),
        }
    }
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
        let len = a.pattern_len(pid);
        let end = at + 1;
        out.push(Hit {
            start: end - len,
            end,
            pattern: pid.as_u32(),
        });
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
    max_len: usize,
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
    // Four segments [b0,b1) [b1,b2) [b2,b3) [b3,n).
    let q = n / 4;
    let bounds = [0, q, 2 * q, 3 * q, n];
    let warm = max_len.saturating_sub(1);
    let mut states = [start; 4];
    // Warm up each walk on the bytes just before its segment (matches there
    // belong to the previous segment and are not reported).
    for k in 1..4 {
        let from = bounds[k].saturating_sub(warm);
        let mut sid = start;
        for &b in &hay[from..bounds[k]] {
            sid = w.next(sid, b);
        }
        states[k] = sid;
    }
    let s0 = &hay[bounds[0]..bounds[1]];
    let s1 = &hay[bounds[1]..bounds[2]];
    let s2 = &hay[bounds[2]..bounds[3]];
    let s3 = &hay[bounds[3]..bounds[4]];
    let [mut a0, mut a1, mut a2, mut a3] = states;
    let it = s0
        .iter()
        .zip(&s1[..q])
        .zip(&s2[..q])
        .zip(&s3[..q])
        .enumerate();
    for (i, (((&b0, &b1), &b2), &b3)) in it {
        a0 = w.next(a0, b0);
        a1 = w.next(a1, b1);
        a2 = w.next(a2, b2);
        a3 = w.next(a3, b3);
        // Hits are rare: one predictable branch per step, the work out of line.
        if w.is_match(a0) | w.is_match(a1) | w.is_match(a2) | w.is_match(a3) {
            report4(
                w,
                [a0, a1, a2, a3],
                [bounds[0] + i, bounds[1] + i, bounds[2] + i, bounds[3] + i],
                out,
                outs,
            );
        }
    }
    for (i, &b) in s3.iter().enumerate().skip(q) {
        a3 = w.next(a3, b);
        if w.is_match(a3) {
            w.report(a3, bounds[3] + i, &mut outs[2]);
        }
    }
    for o in outs.iter_mut() {
        out.append(o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(pats: &[&str], hay: &[u8]) -> Vec<(usize, usize, u32)> {
        let lower: Vec<u8> = hay.to_ascii_lowercase();
        let mut v = Vec::new();
        for end in 1..=hay.len() {
            for (pi, p) in pats.iter().enumerate() {
                let p = p.to_ascii_lowercase();
                if p.len() <= end && lower[end - p.len()..end] == *p.as_bytes() {
                    v.push((end - p.len(), end, pi as u32));
                }
            }
        }
        v
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
        let mut hay = Vec::new();
        let mut i = 0u32;
        while hay.len() < 20_000 {
            i = i.wrapping_mul(1103515245).wrapping_add(12345);
            match (i >> 16) % 7 {
                0 => hay.extend_from_slice(b"Token"),
                1 => hay.extend_from_slice(b"gHp_"),
                2 => hay.extend_from_slice(b"passWORD"),
                _ => hay.push(b'a' + ((i >> 20) % 26) as u8),
            }
        }
        let mut got = Vec::new();
        scanner.scan(&hay, &mut got, &mut Default::default());
        let mut got: Vec<_> = got.iter().map(|h| (h.start, h.end, h.pattern)).collect();
        got.sort();
        let mut want = naive(&pats, &hay);
        want.sort();
        assert_eq!(got, want);
    }
}
