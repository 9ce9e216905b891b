//! The seed examples and the statistical properties of the estimators.

use dedupcrawl_sketch::{
    BottomSketch, LshParams, MOD_SAMPLE_MAX_MODULUS, MinHasher, ModSample, candidate_probability,
    classic_minhash, jaccard, shingle_set,
};
use dedupcrawl_textprep::{Language, NormalizeOptions, Normalizer, hash_token};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn raw_token_hashes(text: &str) -> Vec<u64> {
    let normalizer = Normalizer::new(NormalizeOptions {
        lowercase: true,
        ..NormalizeOptions::raw()
    });
    normalizer
        .tokens(text, Language::English)
        .iter()
        .map(|t| hash_token(t))
        .collect()
}

#[test]
fn rose_example_resemblance_by_shingle_size() {
    let a = raw_token_hashes("a rose is a rose is a rose");
    let b = raw_token_hashes("a rose is a flower which is a rose");
    assert_eq!(a.len(), 8);
    let r = |w| jaccard(&shingle_set(&a, w), &shingle_set(&b, w));
    assert_eq!(r(1), 3.0 / 5.0);
    assert_eq!(r(2), 3.0 / 6.0);
    assert_eq!(r(3), 3.0 / 7.0);
    assert_eq!(shingle_set(&a, 4).len(), 3);
}

#[test]
fn min_s_of_union_is_min_s_of_sketch_union() {
    // The seeds' example: A = {x, m, t, r}, B = {x, m, e, r}, alphabetical order as permutation.
    let rank = |c: char| c as u64;
    let a = BottomSketch::from_ranks("xmtr".chars().map(rank), 3);
    let b = BottomSketch::from_ranks("xmer".chars().map(rank), 3);
    let union_of_sets = BottomSketch::from_ranks("xmtre".chars().map(rank), 3);
    assert_eq!(a.union(&b), union_of_sets);
    assert_eq!(union_of_sets.values, vec![rank('e'), rank('m'), rank('r')]);
    // Of MIN_3(A ∪ B) = {e, m, r}, m and r are in both: estimate 2/3 (true: 3/5).
    assert!((a.resemblance(&b) - 2.0 / 3.0).abs() < 1e-12);
}

/// Two random sets with exactly the given union size and intersection.
fn pair_with_jaccard(rng: &mut StdRng, union: usize, target: f64) -> (Vec<u64>, Vec<u64>, f64) {
    let common = ((target * union as f64).round() as usize).clamp(1, union);
    let only = union - common;
    let only_a = only / 2;
    let mut a = Vec::with_capacity(common + only_a);
    let mut b = Vec::with_capacity(union - only_a);
    for _ in 0..common {
        let v = rng.random::<u64>();
        a.push(v);
        b.push(v);
    }
    for i in 0..only {
        let v = rng.random::<u64>();
        if i < only_a { a.push(v) } else { b.push(v) }
    }
    a.sort_unstable();
    b.sort_unstable();
    (a, b, common as f64 / union as f64)
}

struct ErrorStats {
    mean_absolute: f64,
    mean_signed: f64,
}

fn errors(pairs: &[(f64, f64)]) -> ErrorStats {
    let n = pairs.len() as f64;
    ErrorStats {
        mean_absolute: pairs.iter().map(|(t, e)| (e - t).abs()).sum::<f64>() / n,
        mean_signed: pairs.iter().map(|(t, e)| e - t).sum::<f64>() / n,
    }
}

#[test]
fn one_permutation_minhash_estimates_as_well_as_classic_minhash() {
    let mut rng = StdRng::seed_from_u64(7);
    let hasher = MinHasher::new(128);
    let (mut oph, mut classic) = (Vec::new(), Vec::new());
    for i in 0..1200 {
        // Shingle-set sizes of real pages: a few hundred to a few thousand.
        let union = rng.random_range(200..3000);
        let target = 0.1 + 0.85 * (i as f64 / 1199.0);
        let (a, b, truth) = pair_with_jaccard(&mut rng, union, target);
        let (sa, sb) = (hasher.signature(&a).unwrap(), hasher.signature(&b).unwrap());
        oph.push((truth, sa.similarity(&sb)));
        let seed = rng.random::<u64>();
        let (ca, cb) = (
            classic_minhash(&a, 128, seed).unwrap(),
            classic_minhash(&b, 128, seed).unwrap(),
        );
        classic.push((truth, ca.similarity(&cb)));
    }
    let (oph, classic) = (errors(&oph), errors(&classic));
    eprintln!(
        "OPH MAE {:.4} bias {:+.4}; classic MAE {:.4} bias {:+.4}",
        oph.mean_absolute, oph.mean_signed, classic.mean_absolute, classic.mean_signed
    );
    assert!(oph.mean_absolute <= 0.03, "OPH MAE {}", oph.mean_absolute);
    assert!(
        oph.mean_signed.abs() <= 0.005,
        "OPH bias {}",
        oph.mean_signed
    );
    assert!(oph.mean_absolute <= classic.mean_absolute * 1.05);
}

#[test]
fn densified_signatures_of_small_sets_are_unbiased() {
    // Fewer shingles than bins: most bins are filled by densification.
    let mut rng = StdRng::seed_from_u64(11);
    let hasher = MinHasher::new(128);
    let mut pairs = Vec::new();
    for i in 0..1500 {
        let union = rng.random_range(10..100);
        let target = 0.1 + 0.85 * ((i % 100) as f64 / 99.0);
        let (a, b, truth) = pair_with_jaccard(&mut rng, union, target);
        let (sa, sb) = (hasher.signature(&a).unwrap(), hasher.signature(&b).unwrap());
        pairs.push((truth, sa.similarity(&sb)));
    }
    let stats = errors(&pairs);
    eprintln!(
        "small sets: MAE {:.4} bias {:+.4}",
        stats.mean_absolute, stats.mean_signed
    );
    assert!(
        stats.mean_signed.abs() <= 0.01,
        "bias {}",
        stats.mean_signed
    );
    assert!(stats.mean_absolute <= 0.05, "MAE {}", stats.mean_absolute);
}

#[test]
fn seed_s_curve_value() {
    let p = candidate_probability(0.8, 20, 5);
    assert!((p - 0.99965).abs() < 1e-5, "{p}");
}

#[test]
fn measured_candidate_rates_follow_the_s_curve() {
    let params = LshParams::optimal(128, 0.8, 0.05, 0.95);
    assert!(params.bands * params.rows <= 128);
    eprintln!("optimal at t=0.8 (fp 0.05, fn 0.95): {params:?}");
    let hasher = MinHasher::new(128);
    let mut rng = StdRng::seed_from_u64(3);
    for level in [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95] {
        let pairs = 4000;
        let mut candidates = 0;
        for _ in 0..pairs {
            let (a, b, _) = pair_with_jaccard(&mut rng, 1000, level);
            let ka = params.band_keys(&hasher.signature(&a).unwrap());
            let kb = params.band_keys(&hasher.signature(&b).unwrap());
            if ka.iter().zip(&kb).any(|(x, y)| x == y) {
                candidates += 1;
            }
        }
        let measured = candidates as f64 / pairs as f64;
        let expected = params.candidate_probability(level);
        eprintln!("s={level}: measured {measured:.4} expected {expected:.4}");
        assert!(
            (measured - expected).abs() <= 0.03,
            "s={level}: {measured} vs {expected}"
        );
    }
}

#[test]
fn optimiser_favours_recall_when_asked() {
    let balanced = LshParams::optimal(128, 0.8, 0.5, 0.5);
    let recall = LshParams::optimal(128, 0.8, 0.05, 0.95);
    assert!(recall.candidate_probability(0.8) >= balanced.candidate_probability(0.8));
    assert!(recall.candidate_probability(0.8) > 0.9);
}

#[test]
fn mod_m_sample_size_and_containment() {
    let mut rng = StdRng::seed_from_u64(5);
    let big: Vec<u64> = {
        let mut v: Vec<u64> = (0..20_000).map(|_| rng.random()).collect();
        v.sort_unstable();
        v
    };
    // A document of up to 50 × 64 shingles keeps 50..100 values; a longer one is sampled at
    // the largest modulus and its sample grows with it (one value per 64 shingles).
    let short = ModSample::from_shingles(&big[..3000]);
    assert!(short.modulus.is_power_of_two());
    assert!(
        (40..=130).contains(&short.values.len()),
        "{}",
        short.values.len()
    );
    let sample = ModSample::from_shingles(&big);
    assert_eq!(sample.modulus, MOD_SAMPLE_MAX_MODULUS);
    assert!(
        (250..=380).contains(&sample.values.len()),
        "{}",
        sample.values.len()
    );
    // A small part (a chapter of a book's one-page version) still has enough values at the
    // common modulus to be found inside it.
    let chapter = ModSample::from_shingles(&big[7000..8500]);
    assert!(chapter.at_modulus(sample.modulus).values.len() >= 16);
    assert_eq!(chapter.containment_in(&sample), 1.0);
    // V at 2m derives from V at m.
    let doubled = sample.at_modulus(sample.modulus * 2);
    assert_eq!(doubled, ModSample::with_modulus(&big, sample.modulus * 2));
    // A part (a quarter) of the big document is contained in it.
    let part: Vec<u64> = big[..5000].to_vec();
    let part_sample = ModSample::from_shingles(&part);
    assert_eq!(part_sample.containment_in(&sample), 1.0);
    let reverse = sample.containment_in(&part_sample);
    assert!((reverse - 0.25).abs() < 0.15, "{reverse}");
    // Resemblance estimate near the true 0.25.
    assert!((sample.resemblance(&part_sample) - 0.25).abs() < 0.15);
}
