//! Which ranks probe each other: disjoint pairs, in rounds, so that each peer class the
//! job has is calibrated once.

/// Disjoint pairs over all ranks: first one pair inside a node and one across nodes where
/// the job has them, then the remaining ranks in order; an odd rank out waits.
pub fn choose_pairs(node_of: &[u32]) -> Vec<[u32; 2]> {
    let n = node_of.len();
    let mut used = vec![false; n];
    let mut pairs = vec![];
    let mut take = |a: usize, b: usize, used: &mut Vec<bool>| {
        used[a] = true;
        used[b] = true;
        pairs.push([a as u32, b as u32]);
    };
    if let Some((a, b)) = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .find(|&(a, b)| node_of[a] == node_of[b])
    {
        take(a, b, &mut used);
    }
    if let Some((a, b)) = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .find(|&(a, b)| !used[a] && !used[b] && node_of[a] != node_of[b])
    {
        take(a, b, &mut used);
    }
    let rest: Vec<usize> = (0..n).filter(|&r| !used[r]).collect();
    for c in rest.chunks(2) {
        if let [a, b] = c {
            take(*a, *b, &mut used);
        }
    }
    pairs
}

/// The rounds of pairs: `choose_pairs`, then, where that has no pair across nodes but the
/// job spans several (two nodes of two ranks: both pairs lie inside a node), a second
/// round with one pair across, so that both peer classes are calibrated in one job.
pub fn choose_rounds(node_of: &[u32]) -> Vec<Vec<[u32; 2]>> {
    let first = choose_pairs(node_of);
    let across = |p: &[u32; 2]| node_of[p[0] as usize] != node_of[p[1] as usize];
    let mut rounds = vec![first];
    if !rounds[0].iter().any(across) {
        if let Some(b) = (1..node_of.len()).find(|&b| node_of[b] != node_of[0]) {
            rounds.push(vec![[0, b as u32]]);
        }
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_nodes_of_two_ranks_get_a_second_round_across() {
        assert_eq!(
            choose_rounds(&[0, 0, 1, 1]),
            vec![vec![[0, 1], [2, 3]], vec![[0, 2]]]
        );
        // A first round with a pair across needs no second.
        assert_eq!(choose_rounds(&[0, 0, 1, 1, 2]).len(), 1);
        // One node: one round.
        assert_eq!(choose_rounds(&[0, 0, 0, 0]), vec![vec![[0, 1], [2, 3]]]);
        // One rank per node: the first round is across already.
        assert_eq!(choose_rounds(&[0, 1]), vec![vec![[0, 1]]]);
    }

    #[test]
    fn pairs_cover_ranks_with_one_intra_and_one_inter_pair() {
        // ranks 0,1 on node 0; 2,3 on node 1; 4 on node 2
        let p = choose_pairs(&[0, 0, 1, 1, 2]);
        assert_eq!(p[0], [0, 1]);
        assert_eq!(p[1], [2, 4]);
        assert_eq!(p.len(), 2, "an odd rank out waits: {p:?}");
        let p = choose_pairs(&[0, 1]);
        assert_eq!(p, [[0, 1]]);
        let p = choose_pairs(&[0, 0, 0, 0]);
        assert_eq!(p, [[0, 1], [2, 3]]);
    }
}
