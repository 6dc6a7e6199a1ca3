//! Merging several mirror lists for one source into one order, as
//! openshift/runtime-utils `pkg/registries/topo.go` does.
//!
//! Every list contributes "a before b" constraints (and "last before the
//! source" when the list does not name the source); the merged order is a
//! topological sort with byte-wise tie-breaks, and a cycle is broken at the
//! byte-wise smallest node still unused. The source is dropped when it comes
//! out last, since containers/image tries it last anyway.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Merges the mirror `lists` recorded for `source` into one ordered list.
pub fn merged_mirrors<L, S>(source: &str, lists: &[L]) -> Vec<String>
where
    L: AsRef<[S]>,
    S: AsRef<str>,
{
    if let Some(list) = single_chain(source, lists) {
        return list;
    }
    let graph = Graph::new(source, lists);
    let mut out = graph.sorted();
    if out.last().is_some_and(|&i| graph.names[i] == source) {
        out.pop();
    }
    out.into_iter()
        .map(|i| graph.names[i].to_string())
        .collect()
}

/// One list of distinct mirrors that does not name the source is a single
/// chain ending at the source: the sort gives the list back. This is by
/// far the common case, so the graph is not built for it.
fn single_chain<L, S>(source: &str, lists: &[L]) -> Option<Vec<String>>
where
    L: AsRef<[S]>,
    S: AsRef<str>,
{
    let [only] = lists else {
        return None;
    };
    let only = only.as_ref();
    let distinct = only
        .iter()
        .enumerate()
        .all(|(i, m)| !only[..i].iter().any(|n| n.as_ref() == m.as_ref()));
    (distinct && !only.iter().any(|m| m.as_ref() == source))
        .then(|| only.iter().map(|m| m.as_ref().to_string()).collect())
}

/// The "a before b" constraints of the lists, nodes indexed in byte-wise
/// order (so index order is the tie-break order).
struct Graph<'a> {
    names: Vec<&'a str>,
    successors: Vec<Vec<usize>>,
    predecessors: Vec<usize>,
}

impl<'a> Graph<'a> {
    fn new<L, S>(source: &'a str, lists: &'a [L]) -> Self
    where
        L: AsRef<[S]> + 'a,
        S: AsRef<str> + 'a,
    {
        let mut names: BTreeSet<&str> = BTreeSet::new();
        for list in lists {
            names.extend(list.as_ref().iter().map(AsRef::as_ref));
        }
        let mut edges: BTreeSet<(&str, &str)> = BTreeSet::new();
        for list in lists {
            let list = list.as_ref();
            for pair in list.windows(2) {
                edges.insert((pair[0].as_ref(), pair[1].as_ref()));
            }
            if let Some(last) = list.last() {
                if !list.iter().any(|m| m.as_ref() == source) {
                    names.insert(source);
                    edges.insert((last.as_ref(), source));
                }
            }
        }
        let names: Vec<&str> = names.into_iter().collect();
        let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut successors: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
        let mut predecessors: Vec<usize> = vec![0; names.len()];
        for (from, to) in &edges {
            successors[index[from]].push(index[to]);
            predecessors[index[to]] += 1;
        }
        Self {
            names,
            successors,
            predecessors,
        }
    }

    /// The topological order, ties broken byte-wise, each cycle broken at
    /// the smallest node still unused.
    fn sorted(&self) -> Vec<usize> {
        let len = self.names.len();
        let mut remaining_preds = self.predecessors.clone();
        let mut used = vec![false; len];
        let mut queue: VecDeque<usize> = (0..len).filter(|&i| remaining_preds[i] == 0).collect();
        let mut next_unused = 0;
        let mut out: Vec<usize> = Vec::with_capacity(len);
        while !queue.is_empty() || next_unused < len {
            let n = match queue.pop_front() {
                Some(n) => n,
                None => {
                    // Only cycles remain: break one at the smallest unused node.
                    let n = next_unused;
                    next_unused += 1;
                    if used[n] {
                        continue;
                    }
                    n
                }
            };
            if used[n] {
                continue;
            }
            used[n] = true;
            out.push(n);
            let mut batch = Vec::new();
            for &s in &self.successors[n] {
                remaining_preds[s] -= 1;
                if remaining_preds[s] == 0 && !used[s] {
                    batch.push(s);
                }
            }
            batch.sort_unstable();
            queue.extend(batch);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge(source: &str, lists: &[&[&str]]) -> Vec<String> {
        let lists: Vec<Vec<&str>> = lists.iter().map(|l| l.to_vec()).collect();
        merged_mirrors(source, &lists)
    }

    /// Cases from openshift/runtime-utils pkg/registries/registries_test.go
    /// `TestMergedMirrors` and topo_test.go, and the properties the MCO
    /// notes list.
    #[test]
    fn merged_mirrors_upstream_cases() {
        for (name, lists, want) in [
            (
                "one list keeps its order",
                vec![vec!["m2", "m1"]],
                vec!["m2", "m1"],
            ),
            (
                "unrelated mirrors sort byte-wise",
                vec![vec!["o3"], vec!["o1"], vec!["o2"]],
                vec!["o1", "o2", "o3"],
            ),
            (
                "opposite orders form a cycle broken at the smallest",
                vec![vec!["m2", "m1"], vec!["m1", "m2"]],
                vec!["m1", "m2"],
            ),
            (
                "chains join",
                vec![vec!["B", "C"], vec!["A", "B"]],
                vec!["A", "B", "C"],
            ),
            (
                "duplicates collapse",
                vec![vec!["m1", "m2"], vec!["m1", "m2"]],
                vec!["m1", "m2"],
            ),
            (
                "a list naming the source keeps it where it is",
                vec![vec!["src", "m1"]],
                vec!["src", "m1"],
            ),
            (
                "source listed last is dropped",
                vec![vec!["m1", "src"]],
                vec!["m1"],
            ),
            (
                "interleaved lists",
                vec![vec!["a", "c"], vec!["b", "c"], vec!["a", "b"]],
                vec!["a", "b", "c"],
            ),
        ] {
            let refs: Vec<&[&str]> = lists.iter().map(|l| l.as_slice()).collect();
            assert_eq!(merge("src", &refs), want, "{name}");
        }
    }

    #[test]
    fn cycle_breaks_at_the_source_when_it_sorts_first() {
        // "a-source" sorts before both mirrors: breaking the m1/m2 cycle emits it first.
        assert_eq!(
            merge("a-source", &[&["m2", "m1"], &["m1", "m2"]]),
            vec!["a-source", "m1", "m2"]
        );
    }

    /// The single-list shortcut gives what the full sort gives.
    #[test]
    fn single_list_shortcut_matches_the_sort() {
        for list in [vec!["m3", "m1", "m2"], vec!["b"], vec!["z", "a"]] {
            assert_eq!(merge("src", &[&list]), list, "{list:?}");
            // Two copies of the same list take the full sort and agree.
            assert_eq!(merge("src", &[&list, &list]), list, "{list:?}");
        }
    }

    #[test]
    fn self_edge_is_a_cycle() {
        assert_eq!(merge("src", &[&["m1", "m1"]]), vec!["m1"]);
    }
}
